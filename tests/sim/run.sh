#!/bin/bash
# Simulator tier: run every tests/sim/t_*.sh, and test_simlib.sh and
# test_norm.sh (the checks of the simulator library and of the normalizers
# the others rely on), two at a time: each starts its own ibsim + opensm
# with a unique IBSIM_SOCKNAME. Print one summary line, fail if any test
# failed. Every tool the tier needs is checked first, all at once
# (tools/deps/need.sh): a missing simulator is a failure, never a skip. A test
# passes only when it exits 0, reaches its end (t_done) and nothing broke
# on the way (tests/runner.sh).
# Usage: tests/sim/run.sh [TEST...]   (names like t_compare_ibnd, or paths)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if ! NEED_WHO=sim tools/deps/need.sh sim; then
	echo "sim: 0 passed, 1 failed"
	exit 1
fi
if [ $# -gt 0 ]; then
	tests=()
	for t in "$@"; do
		case $t in */*) tests+=("$t") ;; *) tests+=("tests/sim/${t%.sh}.sh") ;; esac
	done
else
	tests=(tests/sim/t_*.sh tests/sim/test_*.sh)
fi
logdir=$(mktemp -d "${TMPDIR:-/tmp}/ibscan-sim-logs.XXXXXX")
export IBSCAN="$root/ibscan" ROOT="$root"
run_one() {
	set -u
	. "$ROOT/tests/runner.sh"
	local t=$1 name log start rc=0 why
	name=$(basename "$t" .sh)
	log="$logdir/$name.log"
	start=$(date +%s%N)
	TEST_NAME=$name timeout -k 10 600 bash "$t" >"$log" 2>&1 || rc=$?
	if why=$(t_verdict "$name" "$rc" "$log"); then
		printf 'ok   %-28s %6.1fs\n' "$name" "$((($(date +%s%N) - start) / 1000000))e-3"
	else
		printf 'FAIL %-28s %s (log follows)\n' "$name" "$why"
		sed 's/^/    /' "$log" | tail -60
		return 1
	fi
}
export -f run_one
export logdir
printf '%s\n' "${tests[@]}" | xargs -P "${SIM_JOBS:-2}" -I{} bash -c 'run_one "$1"' _ {} >"$logdir/summary" 2>&1
cat "$logdir/summary"
pass=$(grep -c '^ok ' "$logdir/summary")
fail=$(grep -c '^FAIL ' "$logdir/summary")
echo "sim: $pass passed, $fail failed"
rm -rf "$logdir"
[ "$fail" -eq 0 ] && [ "$pass" -eq "${#tests[@]}" ]
