#!/bin/bash
# Whatever ends a health run, the file it was told to write says UNKNOWN,
# in the format asked (issue 23, item 6): SIGTERM, SIGINT, SIGHUP, the
# watchdog (SIGALRM at --deadline plus 5 s) and running out of memory. Each
# file first holds a healthy last run's verdict (IBSCAN OK, ibscan_up 1,
# "status": "OK"), which an older ibscan left in place. The run is kept
# under way by a capture that is a FIFO nobody writes: its open() blocks.
# promtool checks the metrics, dot and an XML parser the drawings, and the
# JSON has the keys of every health document.
. "$(dirname "$0")/lib.sh"
caps=$ROOT/fixtures/captures
bin=${IBSCAN_PRELOAD_BIN:-$ROOT/ibscan} # the release build: ASan has its own malloc
command -v promtool >/dev/null || fail "promtool is missing: run 'make deps'"
mkfifo "$TMP/cap.fifo"

# Healthy last runs, in each format.
"$IBSCAN" health --replay "$caps/net.2sw2path4hca.cap" >"$TMP/ok.txt" || fail "a healthy run"
"$IBSCAN" health --format prom --replay "$caps/net.2sw2path4hca.cap" >"$TMP/ok.prom" || fail "a healthy run (prom)"
"$IBSCAN" health --json --replay "$caps/net.2sw2path4hca.cap" >"$TMP/ok.json" || fail "a healthy run (json)"
"$IBSCAN" health --format dot --replay "$caps/net.2sw2path4hca.cap" >"$TMP/ok.dot" || fail "a healthy run (dot)"
"$IBSCAN" health --format svg --replay "$caps/net.2sw2path4hca.cap" >"$TMP/ok.svg" || fail "a healthy run (svg)"
grep -q '^IBSCAN OK' "$TMP/ok.txt" && grep -qx 'ibscan_up 1' "$TMP/ok.prom" || fail "the healthy runs are not OK"

# blocked PID: until ibscan PID waits for a writer on the FIFO (the run under way).
blocked() {
	local i
	for i in $(seq 200); do
		[ "$(cat "/proc/$1/wchan" 2>/dev/null)" = wait_for_partner ] && return 0
		sleep 0.05
	done
	fail "ibscan did not get to the FIFO"
}
# cut SIG FMT FILE [ARGS...]: health --format FMT -o FILE (FILE primed with the healthy run),
# ended by SIG while under way; $rc its exit status.
cut() {
	local sig=$1 fmt=$2 file=$3 ext pid
	shift 3
	case $fmt in text) ext=txt ;; *) ext=$fmt ;; esac
	cp "$TMP/ok.$ext" "$file"
	rc=0
	# A background job of a script starts with SIGINT ignored, and a test run under nohup with
	# SIGHUP ignored (ibscan then leaves them so, as it should): not here.
	env --default-signal=INT,HUP,TERM "$IBSCAN" health --format "$fmt" --deadline 20 --replay "$TMP/cap.fifo" -o "$file" "$@" \
		>"$TMP/out" 2>"$TMP/err" &
	pid=$!
	blocked $pid
	kill -"$sig" $pid
	wait $pid || rc=$?
}
unknown_text() { # FILE WHY
	head -1 "$1" | grep -q "^IBSCAN UNKNOWN - $2 | links_down=0 " || fail "$1: '$(head -1 "$1")', want UNKNOWN - $2"
}

for sig in TERM INT HUP; do
	cut $sig text "$TMP/v.txt"
	[ $rc = $((128 + $(kill -l $sig))) ] || fail "SIG$sig: exit $rc, want $((128 + $(kill -l $sig))) (ended by the signal)"
	unknown_text "$TMP/v.txt" "stopped by SIG$sig before the run finished"
	[ "$(wc -l <"$TMP/v.txt")" = 1 ] || fail "SIG$sig: more than the status line"
done
echo "ok: SIGTERM, SIGINT, SIGHUP: the status line says UNKNOWN and why; the process ends by the signal"

cut TERM prom "$TMP/h.prom"
grep -qx 'ibscan_up 0' "$TMP/h.prom" && grep -qx 'ibscan_health_status 3' "$TMP/h.prom" ||
	fail "prom: $(cat "$TMP/h.prom")"
promtool check metrics <"$TMP/h.prom" >"$TMP/promtool.out" 2>&1 || { cat "$TMP/promtool.out"; fail "promtool rejects the UNKNOWN metrics"; }
cut TERM json "$TMP/h.json"
python3 - "$TMP/h.json" "$TMP/ok.json" <<'PY' || fail "json: $(cat "$TMP/h.json")"
import json, sys
d, ok = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d["schema"] == "ibscan.health/1" and d["status"] == "UNKNOWN" and d["exit_code"] == 3, d
assert d["reason"] == "stopped by SIGTERM before the run finished", d["reason"]
assert d["summary"].startswith("IBSCAN UNKNOWN - stopped by SIGTERM"), d["summary"]
assert d["partial"] is True and d["findings"] == [] and d["nodes"] == 0, d
assert set(d) == set(ok) and set(d["counts"]) == set(ok["counts"]), (set(d) ^ set(ok))
PY
cut TERM dot "$TMP/h.dot"
dot -Tsvg "$TMP/h.dot" >"$TMP/h.dot.svg" || fail "dot cannot read the UNKNOWN drawing: $(cat "$TMP/h.dot")"
says() { # SVG: its text is health's UNKNOWN status line (the performance data left out)
	python3 -c 'import sys, xml.etree.ElementTree as E
t = "".join(E.parse(sys.argv[1]).getroot().itertext())
assert "IBSCAN UNKNOWN - stopped by SIGTERM before the run finished" in t and "|" not in t, t' "$1"
}
says "$TMP/h.dot.svg" || fail "the DOT drawing does not say UNKNOWN"
cut TERM svg "$TMP/h.svg"
says "$TMP/h.svg" || fail "the SVG drawing does not say UNKNOWN"
echo "ok: prom (ibscan_up 0, promtool accepts it), json (the keys of every health document), dot and svg say UNKNOWN"

# Standard output (a monitoring plugin's), a hard-linked file (both names), a FIFO's reader.
rc=0
"$IBSCAN" health --deadline 20 --replay "$TMP/cap.fifo" >"$TMP/stdout" 2>"$TMP/err" &
pid=$!
blocked $pid
kill -TERM $pid
wait $pid || rc=$?
unknown_text "$TMP/stdout" "stopped by SIGTERM before the run finished"
cp "$TMP/ok.txt" "$TMP/a.txt"
ln -f "$TMP/a.txt" "$TMP/b.txt"
cut TERM text "$TMP/a.txt"
unknown_text "$TMP/b.txt" "stopped by SIGTERM before the run finished"
[ "$(stat -c %h "$TMP/a.txt")" = 2 ] || fail "the hard link was broken"
echo "ok: standard output and a hard-linked file say UNKNOWN too"

# The watchdog: --deadline 1, and nothing answers: SIGALRM 6 s on, exit 3.
cut_by_watchdog() {
	cp "$TMP/ok.prom" "$TMP/w.prom"
	rc=0
	timeout 30 "$IBSCAN" health --format prom --deadline 1 --replay "$TMP/cap.fifo" -o "$TMP/w.prom" >"$TMP/out" 2>"$TMP/err" || rc=$?
}
cut_by_watchdog
[ $rc = 3 ] || fail "watchdog: exit $rc, want 3"
err_has "no progress within --deadline plus 5 s grace"
grep -qx 'ibscan_up 0' "$TMP/w.prom" && grep -qx 'ibscan_health_status 3' "$TMP/w.prom" || fail "watchdog: $(cat "$TMP/w.prom")"
promtool check metrics <"$TMP/w.prom" >/dev/null 2>&1 || fail "promtool rejects the watchdog's metrics"
echo "ok: the watchdog: ibscan_up 0, exit 3"

# Out of memory: every allocation over 200 KB refused (a preload), during the walk of a 612-node capture.
cc -shared -fPIC -o "$TMP/nomem.so" "$ROOT/tests/cli/preload/nomem.c" || fail "cannot build the preload"
for fmt in text prom; do
	case $fmt in text) f=$TMP/m.txt ;; prom) f=$TMP/m.prom ;; esac
	cp "$TMP/ok.${f##*.}" "$f"
	rc=0
	IBS_T_NOMEM=200000 LD_PRELOAD=$TMP/nomem.so "$bin" health --format $fmt --replay "$caps/fattree3.cap" -o "$f" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	[ $rc = 3 ] || fail "out of memory ($fmt): exit $rc, want 3"
	err_has "ibscan: fatal: out of memory"
done
unknown_text "$TMP/m.txt" "out of memory"
grep -qx 'ibscan_up 0' "$TMP/m.prom" || fail "out of memory: $(cat "$TMP/m.prom")"
echo "ok: out of memory: UNKNOWN, exit 3"

# A library whose destructor hangs at exit (the simulator's shim does, joining its reader
# thread when a walk stops at --deadline): the run still ends, with its own status and its
# output in place, within the 10 s exit guard. `timeout` is outside the preload.
cc -shared -fPIC -o "$TMP/hangexit.so" "$ROOT/tests/cli/preload/hangexit.c" || fail "cannot build the preload"
for want in 0 2; do
	cap=$caps/net.2sw2path4hca.cap
	[ $want = 0 ] || cap=$caps/dup-guid.cap
	rc=0
	start=$(date +%s)
	timeout 40 env LD_PRELOAD="$TMP/hangexit.so" "$bin" health --replay "$cap" >"$TMP/out" 2>"$TMP/err" || rc=$?
	took=$(($(date +%s) - start))
	[ $rc = $want ] || fail "a destructor that hangs: exit $rc, want $want (124: hung)"
	[ $took -ge 9 ] || fail "a destructor that hangs: ended in ${took} s, before the guard (did the preload load?)"
	grep -q '^IBSCAN ' "$TMP/out" || fail "a destructor that hangs: no verdict written: $(cat "$TMP/out")"
	err_has "ibscan: warning: a library did not finish exiting within 10 s: ended without it"
done
echo "ok: a hang in a library's exit handler ends in 10 s with the run's own status"

# A run that ends well is not touched by any of this: the verdict, and no temporary file.
cp "$TMP/ok.prom" "$TMP/done.prom"
run 0 health --format prom --replay "$caps/net.2sw2path4hca.cap" -o "$TMP/done.prom"
grep -qx 'ibscan_up 1' "$TMP/done.prom" || fail "a whole run: $(cat "$TMP/done.prom")"
! ls -A "$TMP" | grep -q '^\.ibscan' || fail "a temporary file was left: $(ls -A "$TMP")"
echo "ok: a health run cut short leaves UNKNOWN where it was told to write, in its format"
t_done
