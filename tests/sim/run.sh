#!/bin/bash
# Simulator tier: run every tests/sim/t_*.sh, and test_simlib.sh and
# test_norm.sh (the checks of the simulator library and of the normalizers
# the others rely on), two at a time: each starts its own ibsim + opensm
# with a unique IBSIM_SOCKNAME. Print one summary line, fail if any test
# failed. A missing simulator is a failure, never a skip.
# Usage: tests/sim/run.sh [TEST...]   (names like t_compare_ibnd)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
for tool in ibsim opensm ibnetdiscover; do
	if ! command -v $tool >/dev/null; then
		echo "sim: $tool is missing: run 'make deps' (the simulator tier never skips)" >&2
		echo "sim: 0 passed, 1 failed"
		exit 1
	fi
done
if [ $# -gt 0 ]; then
	tests=()
	for t in "$@"; do tests+=("tests/sim/${t%.sh}.sh"); done
else
	tests=(tests/sim/t_*.sh tests/sim/test_*.sh)
fi
logdir=$(mktemp -d "${TMPDIR:-/tmp}/ibscan-sim-logs.XXXXXX")
export IBSCAN="$root/ibscan" ROOT="$root"
run_one() {
	local t=$1 name log start
	name=$(basename "$t" .sh)
	log="$logdir/$name.log"
	start=$(date +%s.%N)
	if timeout -k 10 600 bash "$t" >"$log" 2>&1; then
		printf 'ok   %-28s %6.1fs\n' "$name" "$(echo "$(date +%s.%N) - $start" | bc)"
	else
		printf 'FAIL %-28s (log follows)\n' "$name"
		sed 's/^/    /' "$log" | tail -60
		return 1
	fi
}
export -f run_one
export logdir
printf '%s\n' "${tests[@]}" | xargs -P "${SIM_JOBS:-2}" -I{} bash -c 'run_one {}' >"$logdir/summary" 2>&1
cat "$logdir/summary"
pass=$(grep -c '^ok ' "$logdir/summary")
fail=$(grep -c '^FAIL ' "$logdir/summary")
echo "sim: $pass passed, $fail failed"
rm -rf "$logdir"
[ "$fail" -eq 0 ] && [ "$pass" -eq "${#tests[@]}" ]
