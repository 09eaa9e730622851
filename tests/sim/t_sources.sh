#!/bin/bash
# Every command against the live source (tests/cli/t_sources.sh has the
# offline ones): a whole fabric, the same fabric with a dead switch (a
# partial walk), and a fabric with no subnet manager. Each command either
# does its job or refuses with exit 2 or 3 and exactly one error line
# saying why; route and path on a partial walk say it is partial.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/sources.sh"
RUN=(sim_run "$IBSCAN")
base=$ROOT/fixtures/baselines/net.2sw2path4hca.json
declare -A SRC=(
	[live]=""
	[dead]="--timeout 100 --retries 0" # Switch2 drops every MAD
	[nosm]="--timeout 100 --retries 0" # no subnet manager: no LIDs
)
PART="the result is partial: 2 queries got no valid answer"

sim_start "$FABRICS/net.2sw2path4hca"
check_table <<ROWS
live|topology|0|out|^topology: 6 nodes \(2 switches, 4 CAs, 0 routers\), 6 links$
live|nodes|0|out|"Hca4"
live|links --json|0|out|"schema": "ibscan.links/1"
live|sm|0|out|SM port 0x0000000000200000 "Switch1" port 0 LID 1 master
live|health|0|out|^IBSCAN OK - 6 nodes, 6 links, no findings
live|counters|0|out|^counters: 12 ports, 12 answered$
live|counters --interval 1|0|out|^counters: 12 ports, 12 answered, read again 1 s after the first reading$
live|diff $base live|0|out|^no differences
live|route Hca1 Hca4|0|out|^to   ca 0x0000000000100009 "Hca4" port 1 LID 6
live|routes --dump|0|out|^switch 0x0000000000200001 "Switch2" LID 3 LinearFDBTop 6
live|path Hca1 Hca4|0|out|^DLID +6$
live|topology --gids --json|0|out|"gids": \[
live|topology --record $TMP/live.cap|0|out|^topology: 6 nodes
live|capture info $TMP/live.cap|0|out|exchanges: .* answered
live|local --sysfs $ROOT/fixtures/sysfs/ib-ipoib|0|out|mlx5_0
live|ping --listen --wait 1|3|err|no RDMA device found
live|exporter --listen nonsense|3|err|--listen wants ADDR:PORT
live|fleet $ROOT/tests/cli/golden/local/gpu-container.json|0|out|^IBSCAN FLEET OK - 1 host [|]
live|report|0|out|"source":\{"kind":"live","what":"ibsim0 port [0-9]+"\},"counters":true,"map":true
ROWS
check_every_command "$0"

# A capture that --record cannot write whole (a file-size limit reached mid-walk, EFBIG: as a
# full disk) is a failed run, exit 3, though the view itself is written.
rc=0
(trap '' XFSZ; ulimit -f 8; sim_run "$IBSCAN" topology --record "$TMP/cut.cap") >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc -eq 3 ] || { cat "$TMP/err"; fail "--record cut short by a full disk exited $rc, want 3"; }
grep -q "^ibscan: error: cannot write capture '$TMP/cut.cap': File too large$" "$TMP/err" || { cat "$TMP/err"; fail "--record cut short: no error naming the capture"; }
grep -q "^topology: 6 nodes" "$TMP/out" || fail "--record cut short: the view was not written"
ok "--record that cannot write its capture whole exits 3"

sim_console 'Error "Switch2" 100' >/dev/null
check_table <<ROWS
dead|topology|3|part|$PART
dead|sm|3|part|$PART
dead|health|1|out|^IBSCAN WARNING - 2 unreachable parts
dead|counters|3|part|$PART
dead|route Hca1 Hca3|3|part|$PART
dead|route Hca1 Hca4|3|err|no node or port matches 'Hca4' .*; the walk is partial: it may be behind what did not answer
dead|routes --dump|3|part|$PART
dead|path Hca1 Hca3|3|part|$PART
dead|path Hca1 Hca4|3|err|the walk is partial
dead|diff $base live|3|err|the live walk is partial
dead|report|3|part|$PART
ROWS
sim_stop

SIM_NO_SM=1 sim_start "$FABRICS/net.2sw2path4hca"
check_table <<ROWS
nosm|topology|0|out|LID 0, SM LID 0$
nosm|health|2|part|PMA counters could not be read: no port has a LID
nosm|counters|3|part|PMA counters could not be read: no port has a LID
nosm|route Hca1 Hca4|2|err|'Hca1' has no LID \(is a subnet manager running\?\)
nosm|path Hca1 Hca4|2|err|'Hca1' has no LID
nosm|report|0|out|"counters":false,"map":true
ROWS
sim_stop
t_done
