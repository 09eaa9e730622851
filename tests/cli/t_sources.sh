#!/bin/bash
# Every command against every offline source (captures that hold different
# answers, a partial capture, an ibnetdiscover cache, and the files diff,
# health --baseline and capture take): each either does its job (the exit
# status it should have, and output that says something) or refuses with
# exit 2 or 3 and exactly one error line naming what the source lacks. No
# option is silently ignored. The live source is tests/sim/t_sources.sh.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/sources.sh"
RUN=("$IBSCAN")
caps=$ROOT/fixtures/captures
cache=$ROOT/fixtures/caches/net.2sw2path4hca.cache
base=$ROOT/fixtures/baselines/net.2sw2path4hca.json
netfile=$ROOT/tests/cli/golden/net.2sw2path4hca/topology.net
declare -A SRC=(
	[cap]="--replay $caps/net.2sw2path4hca.cap"          # walk, SMInfo, PMA (recorded by health)
	[routes]="--replay $caps/net.2sw2path4hca-routes.cap" # walk, SMInfo, every LFT
	[path]="--replay $caps/net.2sw2path4hca-path.cap"     # walk, SMInfo, one PathRecord
	[partial]="--replay $caps/dead-switch.cap"            # Switch2 answers nothing
	[cache]="--load-cache $cache"                         # ibnetdiscover: the walk only
	[empty]="--replay $TMP/empty.cap"                     # a capture with no exchange
	[none]=""                                             # for commands that take files
)

# The header and the end record (version 2): complete, and no exchange in it.
{ head -5 "$caps/net.2sw2path4hca.cap" && echo end; } >"$TMP/empty.cap"
"$IBSCAN" topology --json --replay "$caps/dead-switch.cap" -o "$TMP/partial.json" 2>/dev/null || true
# route and path find nodes by the names the output shows: a node-name map's too.
printf '0x0000000000100000 node01\n' >"$TMP/names.map"
printf '0x0000000000100000 node01\n0x0000000000100003 node01\n' >"$TMP/same.map"
LFT="holds no forwarding tables \(LinearForwardingTable\)"
SA="holds no path records \(SA PathRecord\)"
PMA="holds no port counters \(PortCounters\)"
GUID="holds no GID tables \(GUIDInfo\)"
SM="holds no subnet manager state \(SMInfo\)"
PART="the result is partial: 2 queries got no valid answer"
UNK_PMA="^IBSCAN UNKNOWN - error-counter checks not run: the source holds no PortCounters [|]"

# source|command|exit|how|what it says
check_table <<EOF
cap|topology|0|out|^topology: 6 nodes \(2 switches, 4 CAs, 0 routers\), 6 links$
cap|nodes --json|0|out|"schema": "ibscan.nodes/1"
cap|links|0|out|4xSDR Active
cap|sm|0|out|SM port 0x0000000000200000 "Switch1" port 0 LID 1 master
cap|health|0|out|^IBSCAN OK - 6 nodes, 6 links, no findings
cap|counters|0|out|^counters: 12 ports, 12 answered
cap|counters --interval 1|3|part|PMA of 12 of 12 ports did not answer.*the capture held no answer for
cap|diff $base live|0|out|^no differences
cap|route Hca1 Hca4|3|err|capture '.*net.2sw2path4hca.cap' $LFT; 'ibscan route' or 'ibscan routes --dump' records them
cap|routes --dump|3|err|$LFT
cap|path Hca1 Hca4|3|err|$SA; 'ibscan path' records them
cap|topology --gids|3|err|$GUID; a walk with --gids records them
routes|topology --format netfile|0|out|^Switch	8 "S-0000000000200000"
routes|sm --json|0|out|"master_lid": 1
routes|health|3|out|$UNK_PMA
routes|health --no-counters|0|out|^IBSCAN OK
routes|health --reset-counters|3|err|$PMA
routes|counters|3|err|$PMA; 'ibscan counters' or 'ibscan health' records them
routes|route Hca1 Hca4|0|out|^to   ca 0x0000000000100009 "Hca4" port 1 LID 6
routes|route Hca4 Hca1 --json|0|out|"result": "ok"
routes|routes --dump|0|out|^switch 0x0000000000200001 "Switch2" LID 3 LinearFDBTop 6
routes|path Hca1 Hca4|3|err|$SA
path|path Hca1 Hca4|0|out|^SLID +2$
path|path Hca2 Hca4|3|err|did not answer the PathRecord query \(timeout\) \(a replay answers only what the capture recorded\)
path|route Hca1 Hca4|3|err|$LFT
path|counters --json|3|err|$PMA
partial|topology|3|part|$PART
partial|links|3|part|$PART
partial|sm|3|part|$PART
partial|health|1|out|^IBSCAN WARNING - 2 unreachable parts
partial|counters|3|part|$PART
partial|counters --interval 1|3|part|the result is partial
partial|diff $base live|3|err|the live walk is partial
partial|route Hca1 Hca4|3|err|$LFT
partial|path Hca1 Hca4|3|err|$SA
empty|topology|3|err|capture '.*empty.cap' holds no NodeInfo answer: there is no walk to replay
empty|health|3|err|holds no NodeInfo answer
cache|topology|0|out|^local port: cache port 0, node 0x0000000000200000, LID 1, SM LID 1$
cache|nodes|0|out|"Hca4"
cache|links --json|0|out|"schema": "ibscan.links/1"
cache|sm|2|err|'.*net.2sw2path4hca.cache' is an ibnetdiscover cache: it $SM; use a live fabric, or --replay a capture
cache|health|3|out|^IBSCAN UNKNOWN - SM and error-counter checks not run: the source holds no SMInfo or PortCounters [|]
cache|health --no-counters|3|out|^IBSCAN UNKNOWN - SM checks not run: the source holds no SMInfo [|]
cache|health --reset-counters|3|err|ibnetdiscover cache: it $PMA
cache|counters|2|err|ibnetdiscover cache: it $PMA
cache|diff $base live|0|out|^no differences
cache|route Hca1 Hca4|2|err|ibnetdiscover cache: it $LFT
cache|routes --dump|2|err|ibnetdiscover cache: it $LFT
cache|path Hca1 Hca4|2|err|ibnetdiscover cache: it $SA
cache|topology --gids|2|err|ibnetdiscover cache: it $GUID
cache|topology --timeout 100|2|err|--load-cache sends no MADs: --window, --max-smps-per-switch, --timeout, --fixed-timeout, --retries, --deadline and --m-key do not apply
cache|topology --m-key 0x10|2|err|--load-cache sends no MADs: --window, --max-smps-per-switch, --timeout, --fixed-timeout, --retries, --deadline and --m-key do not apply
cache|topology --fixed-timeout|2|err|--load-cache sends no MADs: --window, --max-smps-per-switch, --timeout, --fixed-timeout, --retries, --deadline and --m-key do not apply
cache|nodes --max-smps-per-switch 8|2|err|--load-cache sends no MADs: --window, --max-smps-per-switch, --timeout, --fixed-timeout, --retries, --deadline and --m-key do not apply
cache|topology -C mlx5_0|2|err|--load-cache reads no device: -C/--ca and -P/--port do not apply
cap|topology --port 1|2|err|--replay reads no device
cap|nodes -P 0|2|err|--replay reads no device: -C/--ca and -P/--port do not apply
cache|nodes --port 0|2|err|--load-cache reads no device: -C/--ca and -P/--port do not apply
none|diff $base $cache -P 0|2|err|--port is about reading the fabric, and neither side is 'live'
cap|topology --record-times|2|err|--record-times goes with --record
none|topology --replay-strict|2|err|--replay-strict goes with --replay
cap|topology --record $TMP/x.cap|2|err|--replay, --record and --load-cache cannot be used together
none|diff $base $netfile|0|out|^no differences
none|diff $cache $base|0|out|^no differences
none|diff $base $cache --replay $caps/net.2sw2path4hca.cap|2|err|--replay is about reading the fabric, and neither side is 'live'
none|diff $TMP/partial.json $base|3|err|^ibscan: error: '.*partial.json' holds a partial walk: a diff against it would report what that walk missed as added$
partial|diff live $TMP/partial.json|3|err|holds a partial walk
none|diff - -|2|err|^ibscan: error: standard input can be read once: '-' is given as A and as B$
none|nodes --replay - --node-name-map -|2|err|standard input can be read once: '-' is given as --replay and as --node-name-map
none|nodes --record -|2|err|--record needs a file name: the capture cannot share standard output with the view
none|nodes --load-cache -|2|err|--load-cache needs a file name: the cache is opened by name, not read from standard input
none|diff $base $cache --m-key 0x10|2|err|--m-key is about reading the fabric, and neither side is 'live'
none|diff $base $cache --fixed-timeout|2|err|--fixed-timeout is about reading the fabric, and neither side is 'live'
none|diff $base $cache --max-smps-per-switch 8|2|err|--max-smps-per-switch is about reading the fabric, and neither side is 'live'
none|diff $base $caps/net.2sw2path4hca.cap|3|err|net.2sw2path4hca.cap' is an ibscan capture, not an ibnetdiscover topology file: --replay reads it
none|diff $base $TMP/missing.json|3|err|cannot open '.*missing.json'
cap|health --baseline $cache|0|out|^IBSCAN OK
cap|health --baseline $netfile|0|out|^IBSCAN OK
cap|health --baseline $caps/net.2sw2path4hca.cap|3|err|is an ibscan capture, not an ibnetdiscover topology file
none|capture info $caps/net.2sw2path4hca-routes.cap|0|out|LinearForwardingTable
none|capture info $cache|3|err|this is not a capture
none|capture export $base -o $TMP/x.pcap|3|err|not an ibscan capture
cap|capture info $caps/net.2sw2path4hca.cap|2|err|unknown option '--replay'
cache|local --sysfs $ROOT/fixtures/sysfs/ib-ipoib|2|err|unknown option '--load-cache'
none|local --sysfs $ROOT/fixtures/sysfs/ib-ipoib|0|out|mlx5_0
cap|ping --listen|2|err|unknown option '--replay'
cap|fleet $ROOT/tests/cli/golden/local/gpu-container.json|3|err|unknown option '--replay'
none|fleet $ROOT/tests/cli/golden/local/gpu-container.json|0|out|^IBSCAN FLEET OK - 1 host [|]
none|fleet $caps/net.2sw2path4hca.cap|3|err|net.2sw2path4hca.cap:1: not valid JSON
cap|exporter --record $TMP/x.cap|2|err|--record writes one run's capture: not for the exporter's sweeps
cache|exporter --listen nonsense|3|err|--listen wants ADDR:PORT
cap|report|0|out|"counters":true,"map":(true|false)
cap|report --no-counters|0|out|"counters":false,
routes|report|0|out|"status":"UNKNOWN","exit_code":3,"summary":"IBSCAN UNKNOWN - error-counter checks not run
partial|report|3|part|$PART
empty|report|3|err|holds no NodeInfo answer
cache|report|0|out|"source":\{"kind":"cache","what":".*net.2sw2path4hca.cache"\}
cache|report -C mlx5_0|2|err|--load-cache reads no device
cap|report --json|2|err|a report is HTML only
routes|route node01 Hca4 --node-name-map $TMP/names.map|0|out|^from ca 0x0000000000100000 "node01" port 1 LID 2$
routes|route node01 Hca4 --node-name-map $TMP/same.map|2|err|'node01' matches 2 nodes: give a LID or a port GUID
EOF

check_every_command "$0"
t_done
