#!/bin/bash
# health, counters and diff offline: exit codes, the status line, Prometheus
# output accepted by promtool on every capture, atomic -o, bad inputs.
. "$(dirname "$0")/lib.sh"
caps=$ROOT/fixtures/captures
command -v promtool >/dev/null || fail "promtool is missing: run 'make deps'"

for cap in "$caps"/*.cap; do
	name=$(basename "$cap" .cap)
	rc=0
	"$IBSCAN" health --format prom --replay "$cap" -o "$TMP/$name.prom" 2>/dev/null || rc=$?
	# The routes and path captures hold no counters: UNKNOWN, and counters refused (t_sources.sh).
	case $name in *-routes | *-path) [ $rc -eq 3 ] || fail "$name: health exit $rc, want 3" ;;
	*) [ $rc -le 2 ] || fail "$name: health exit $rc" ;;
	esac
	promtool check metrics <"$TMP/$name.prom" >"$TMP/promtool.out" 2>&1 || { cat "$TMP/promtool.out"; fail "$name: promtool rejects health metrics"; }
	grep -q "^ibscan_health_status $rc$" "$TMP/$name.prom" || fail "$name: ibscan_health_status is not the exit code $rc"
	case $name in *-routes | *-path) continue ;; esac
	"$IBSCAN" counters --format prom --replay "$cap" -o "$TMP/$name.c.prom" 2>/dev/null || true
	promtool check metrics <"$TMP/$name.c.prom" >"$TMP/promtool.out" 2>&1 || { cat "$TMP/promtool.out"; fail "$name: promtool rejects counter metrics"; }
done
echo "ok: promtool accepts health and counters metrics of every capture"
# counters.cap holds Hca2's PortRcvErrorDetails (its PortRcvErrors moved): one series per reason, each
# family once, in both outputs that promtool just accepted.
for f in "$TMP/counters.prom" "$TMP/counters.c.prom"; do
	[ "$(grep -c '^# TYPE ibscan_port_rcv_error_details_total counter$' "$f")" = 1 ] || fail "$f: no details family"
	[ "$(grep -c '^ibscan_port_rcv_error_details_total{.*name="Hca2".*reason="[a-z_]*"} [0-9]*$' "$f")" = 6 ] ||
		fail "$f: want 6 details series for Hca2: $(grep details "$f")"
	grep -q 'reason="local_physical"} 700$' "$f" || fail "$f: LocalPhysical 700 missing"
done
grep -q details_total "$TMP/net.2sw2path4hca.prom" && fail "a clean fabric has details series"
echo "ok: PortRcvErrorDetails series per reason where PortRcvErrors moved, none on a clean fabric"

# Verdicts and exit codes, one per kind of fault.
expect() { # CAPTURE EXIT STATUS-LINE-PREFIX [args]
	local cap=$1 want=$2 prefix=$3
	shift 3
	run "$want" health --replay "$caps/$cap.cap" "$@"
	head -1 "$TMP/out" | grep -qF -- "$prefix" || fail "$cap: status line '$(head -1 "$TMP/out")' lacks '$prefix'"
}
expect net.2sw2path4hca 0 "IBSCAN OK - 6 nodes, 6 links, no findings | links_down=0"
expect counters 1 "IBSCAN WARNING - 3 ports with errors |"
expect degraded 1 "IBSCAN WARNING - 1 degraded link, 1 link held down by configuration |"
expect dead-switch 1 "IBSCAN WARNING - 2 unreachable parts |"
expect dup-guid 2 "IBSCAN CRITICAL - 1 duplicate GUID |"
expect dup-port-guid 2 "IBSCAN CRITICAL - 1 duplicate port GUID |"
expect dup-lid 2 "IBSCAN CRITICAL - 1 duplicate LID |"
expect lid-zero 2 "IBSCAN CRITICAL - 1 active port without LID"
expect no-sm 2 "IBSCAN CRITICAL - 1 unreachable master SM |"
expect port-init 2 "IBSCAN CRITICAL - 2 links down, 1 unreachable master SM"
expect cable-pulled 2 "IBSCAN CRITICAL - 4 links down, 3 nodes missing |" --baseline "$ROOT/fixtures/baselines/cable-pulled.json"
expect moved 1 "IBSCAN WARNING - 1 cable moved |" --baseline "$ROOT/fixtures/baselines/moved.json"
# Thresholds: a flag and a file silence the counter findings.
expect counters 0 "IBSCAN OK" --threshold SymbolErrorCounter=9999 --threshold LinkDownedCounter=9999 --threshold PortRcvErrors=9999
printf 'SymbolErrorCounter=9999\nLinkDownedCounter = 9999 # comment\nPortRcvErrors=9999\n' >"$TMP/thr"
expect counters 0 "IBSCAN OK" --thresholds "$TMP/thr"
expect counters 0 "IBSCAN OK" --no-counters
# A capture without PortCounters: the counter checks did not run, and an unchecked fabric is not OK.
expect net.2sw2path4hca-routes 3 "IBSCAN UNKNOWN - error-counter checks not run: the source holds no PortCounters |"
expect net.2sw2path4hca-routes 0 "IBSCAN OK - 6 nodes, 6 links, no findings" --no-counters
echo "ok: verdicts and exit codes for every fault capture"

# UNKNOWN: usage errors, no device, bad inputs (monitoring-plugin exit 3, with a status line).
run 3 health --format yaml
grep -q "^IBSCAN UNKNOWN - usage error" "$TMP/out" || fail "usage: no UNKNOWN status line"
# --reset-counters needs the read that --no-counters turns off: refused, not ignored.
run 3 health --no-counters --reset-counters --replay "$caps/counters.cap"
err_has "--reset-counters clears the counters once read: --no-counters reads none"
run 3 health --threshold Bogus=1
err_has "unknown counter 'Bogus'"
run 3 health
grep -q "^IBSCAN UNKNOWN - " "$TMP/out" || fail "no device: no UNKNOWN status line"
err_has "no InfiniBand device found"
printf 'SymbolErrorCounter=10\nwhat\n' >"$TMP/bad.thr"
run 3 health --replay "$caps/counters.cap" --thresholds "$TMP/bad.thr"
err_has "bad.thr:2: threshold 'what': want Name=N"
# A partial baseline (issue 23 item 5): a walk that missed a part cannot say it is missing now.
# Saved from a walk in which Switch2 and its hosts did not answer, then checked against a fabric
# that has lost nothing: UNKNOWN (exit 3), as diff refuses it, never OK or "new nodes".
run 3 topology --json --replay "$caps/dead-switch.cap" -o "$TMP/partial.json"
jq -e '.partial == true' "$TMP/partial.json" >/dev/null || fail "the dead-switch walk is not partial"
run 3 health --replay "$caps/net.2sw2path4hca.cap" --baseline "$TMP/partial.json"
out_has "IBSCAN UNKNOWN - the baseline holds a partial walk"
err_has "holds a partial walk"
run 3 diff "$TMP/partial.json" "$ROOT/fixtures/baselines/net.2sw2path4hca.json"
err_has "holds a partial walk"
run 3 health --replay "$caps/counters.cap" --baseline "$TMP/none.json"
err_has "cannot open '$TMP/none.json'"
echo '{"schema": "ibscan.topology/1", "nodes": 5}' >"$TMP/bad.json"
run 3 health --replay "$caps/counters.cap" --baseline "$TMP/bad.json"
err_has "bad.json: \"nodes\" is not an array"
run 3 health --format prom --replay "$caps/no-such.cap"
grep -q "^ibscan_up 0$" "$TMP/out" || fail "failed run: prom output lacks ibscan_up 0"
# A thresholds file that goes bad under cron is a failed run like a bad baseline: the textfile
# collector's file says ibscan_up 0 rather than keep the last good run's metrics.
echo "ibscan_up 1" >"$TMP/thr.prom"
run 3 health --format prom -o "$TMP/thr.prom" --replay "$caps/counters.cap" --thresholds "$TMP/bad.thr"
grep -q "^ibscan_up 0$" "$TMP/thr.prom" || fail "bad thresholds: -o prom file lacks ibscan_up 0"
[ -s "$TMP/out" ] && fail "bad thresholds with -o: stdout is not empty"
run 3 health --json --replay "$caps/counters.cap" --thresholds "$TMP/bad.thr"
# The status line goes where -o says, as the metrics do: the file must not keep the last "IBSCAN OK".
echo "IBSCAN OK - the last run" >"$TMP/status.txt"
run 3 health -o "$TMP/status.txt" --replay "$caps/no-such.cap"
grep -q "^IBSCAN UNKNOWN - the fabric could not be read" "$TMP/status.txt" || fail "health -o: a failed run kept '$(cat "$TMP/status.txt")'"
[ -s "$TMP/out" ] && fail "bad thresholds with --json: a text status line on stdout"
echo "ok: UNKNOWN with a status line for usage errors, no device and bad inputs"

# counters: usage exit 2; no LIDs is not silently OK.
run 2 counters --interval 0
run 2 counters --format dot
run 0 counters --json --replay "$caps/counters.cap"
python3 - "$TMP/out" <<'PY' || fail "counters JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "ibscan.counters/1" and d["ports"] == 12 and d["answered"] == 12, d
p = [x for x in d["ports_counters"] if x["guid"] == "0x0000000000200000" and x["port"] == 1][0]
assert p["counters"]["SymbolErrorCounter"] == 5000, p
w = [x for x in d["ports_counters"] if x["guid"] == "0x0000000000100006"][0]
assert w["counters"]["PortXmitWait"] == 123456, w
assert w["xmit_bytes"] % 4 == 0
PY
run 3 counters --replay "$caps/port-init.cap"
# Its Init port gets no PMA request (no GMP reaches it) and says so, not "timeout".
grep -q "Hca1 .*not read: the port is Init, and no GMP reaches a port that is not Active" "$TMP/out" ||
	fail "counters: a port not Active is not listed as such"
grep -q "no answer: timeout" "$TMP/out" && fail "counters: a port not Active is listed as timed out"
echo "ok: counters JSON, unanswered ports listed, usage errors"

# -o is atomic: no temporary file is left, and a failed write keeps the old file.
echo old >"$TMP/h.prom"
run 1 health --format prom --replay "$caps/counters.cap" -o "$TMP/h.prom"
grep -q "^ibscan_up 1$" "$TMP/h.prom" || fail "-o did not write"
ls -A "$TMP" | grep -q "h.prom.tmp\|^\.ibscan" && fail "-o left a temporary file"
# The directory is read-only to an unprivileged user (root would write it anyway:
# as root, the check runs as nobody; tests/cli/t_output.sh has the other cases).
as_user=()
if [ "$(id -u)" = 0 ]; then
	as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	chmod 711 "$TMP"
fi
mkdir -p "$TMP/ro" && echo keep >"$TMP/ro/h.prom"
[ "$(id -u)" = 0 ] && chown 65534 "$TMP/ro/h.prom"
chmod 555 "$TMP/ro"
rc=0
"${as_user[@]}" "$IBSCAN" health --format prom --replay "$caps/counters.cap" -o "$TMP/ro/h.prom" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc -eq 3 ] || fail "health -o into a read-only directory exited $rc, want 3 (UNKNOWN)"
err_has "ibscan: error: cannot write '$TMP/ro/h.prom': Permission denied"
grep -q keep "$TMP/ro/h.prom" || fail "a failed -o damaged the old file"
chmod 755 "$TMP/ro"
rc=0
"$IBSCAN" health --replay "$caps/counters.cap" >/dev/full 2>"$TMP/err" || rc=$?
[ $rc -eq 3 ] || fail "health > /dev/full exited $rc, want 3"
rc=0
"$IBSCAN" topology --replay "$caps/counters.cap" >/dev/full 2>"$TMP/err" || rc=$?
[ $rc -eq 3 ] || fail "topology > /dev/full exited $rc, want 3"
err_has "cannot write"
echo "ok: atomic -o; a full disk is an error"

# diff: equal 0, different 1, bad input 3, usage 2.
base=$ROOT/fixtures/baselines/net.2sw2path4hca.json
run 0 diff "$base" live --replay "$caps/net.2sw2path4hca.cap"
grep -q "no differences" "$TMP/out" || fail "diff equal: no 'no differences'"
"$IBSCAN" topology --format netfile --replay "$caps/net.2sw2path4hca.cap" -o "$TMP/n.net"
run 0 diff "$base" "$TMP/n.net"
run 1 diff "$base" live --replay "$caps/moved.cap" --json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert not d['equal'] and [c['kind'] for c in d['changes']]==['link_moved'], d" "$TMP/out" || fail "diff moved JSON"
run 1 diff "$base" live --replay "$caps/cable-pulled.cap"
grep -q "^node_removed" "$TMP/out" || fail "diff: no node_removed"
run 3 diff "$base" "$TMP/none.json"
run 3 diff "$base" "$IBSCAN"
run 2 diff "$base"
run 2 diff live live
run 3 diff "$base" live --replay "$caps/dead-switch.cap"
err_has "the live walk is partial"
echo "ok: diff exit codes 0/1/2/3"
t_done
