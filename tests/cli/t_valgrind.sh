#!/bin/bash
# The replay tier under valgrind memcheck: zero errors, zero leaks, on every
# command that reads a capture, a baseline or a thresholds file.
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || fail "valgrind is missing: run 'make deps'"
# The release build: valgrind and ASan do not mix.
bin=${IBSCAN_VALGRIND:-$ROOT/ibscan}
caps=$ROOT/fixtures/captures
vg() { # WANT_RC ARGS...
	local want=$1 rc=0
	shift
	valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible "$bin" "$@" >"$TMP/out" 2>"$TMP/vg" || rc=$?
	if [ $rc -eq 99 ] || grep -q "==[0-9]*== " "$TMP/vg"; then
		cat "$TMP/vg" >&2
		fail "valgrind: errors or leaks in: ibscan $*"
	fi
	[ $rc -eq "$want" ] || fail "ibscan $* exited $rc under valgrind, want $want"
}
for c in net.2sw2path4hca dead-switch bad-status dup-guid counters; do
	for v in "topology --json" "topology --format dot" "topology --format netfile" nodes links sm; do
		# shellcheck disable=SC2086
		vg "$(grep "^$(echo $v | sed 's/ --json/.json/;s/ --format dot/.dot/;s/ --format netfile/.net/;s/^nodes$/nodes.txt/;s/^links$/links.txt/;s/^sm$/sm.txt/;s/^topology\.json$/topology.json/') " "$ROOT/tests/cli/golden/$c/rc.txt" | awk '{print $2}')" $v --replay "$caps/$c.cap"
	done
	vg "$(grep '^health.json ' "$ROOT/tests/cli/golden/$c/rc.txt" | awk '{print $2}')" health --json --replay "$caps/$c.cap"
	vg "$(grep '^health.prom ' "$ROOT/tests/cli/golden/$c/rc.txt" | awk '{print $2}')" health --format prom --replay "$caps/$c.cap"
	vg "$(grep '^counters.json ' "$ROOT/tests/cli/golden/$c/rc.txt" | awk '{print $2}')" counters --json --replay "$caps/$c.cap"
	vg 0 capture info --json "$caps/$c.cap"
	vg 0 capture export "$caps/$c.cap" -o "$TMP/x.pcap"
done
base=$ROOT/fixtures/baselines/moved.json
vg 1 health --baseline "$base" --replay "$caps/moved.cap"
vg 1 diff "$base" live --replay "$caps/moved.cap"
"$bin" topology --format netfile --replay "$caps/net.2sw2path4hca.cap" -o "$TMP/n.net"
vg 0 diff "$ROOT/fixtures/baselines/net.2sw2path4hca.json" "$TMP/n.net"
printf 'SymbolErrorCounter=9999\n' >"$TMP/thr"
vg 1 health --thresholds "$TMP/thr" --replay "$caps/counters.cap"
vg 3 topology --replay "$ROOT/ibscan"
vg 2 topology --bogus
vg 0 local --sysfs "$ROOT/fixtures/sysfs/roce" --json
echo "valgrind: no errors, no leaks"
t_done
