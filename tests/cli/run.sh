#!/bin/bash
# CLI tier: usage errors, exit codes, bad input and golden files on replayed
# captures; no simulator needed. The unit and CLI tiers also run under
# AddressSanitizer + UBSan (IBSCAN points at the sanitized build).
# Every tool the tier needs is checked first (tools/deps/need.sh); a test passes
# only when it exits 0, reaches its end (t_done) and nothing broke on the
# way (tests/runner.sh).
# Usage: tests/cli/run.sh [--regenerate] [TEST.sh...]   (regenerate: rewrite golden files)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/runner.sh"
export ROOT=$root IBSCAN=${IBSCAN:-$root/ibscan}
export REGENERATE=0
[ "${1:-}" = "--regenerate" ] && { REGENERATE=1; shift; }
if ! NEED_WHO=cli "$root/tools/deps/need.sh" cli; then
	echo "cli: 0 passed, 1 failed"
	exit 1
fi
if [ $# -gt 0 ]; then tests=("$@"); else tests=("$root"/tests/cli/t_*.sh); fi
logdir=$(mktemp -d "${TMPDIR:-/tmp}/ibscan-cli-logs.XXXXXX")
# Two at a time (CLI_JOBS): each test works in its own mktemp folder and
# binds only port 0, so they share nothing; a test gets 900 s at most.
run_one() {
	set -u
	. "$ROOT/tests/runner.sh"
	local t=$1 name log start rc=0 why
	name=$(basename "$t" .sh)
	log="$logdir/$name.log"
	start=$(date +%s%N)
	TEST_NAME=$name timeout -k 10 900 bash "$t" >"$log" 2>&1 || rc=$?
	if why=$(t_verdict "$name" "$rc" "$log"); then
		printf 'ok   %-28s %6.1fs\n' "$name" "$((($(date +%s%N) - start) / 1000000))e-3"
	else
		printf 'FAIL %s: %s\n%s\n' "$name" "$why" "$(tail -40 "$log" | sed 's/^/    /')"
	fi
}
export -f run_one
export logdir REGENERATE
printf '%s\n' "${tests[@]}" | xargs -P "${CLI_JOBS:-2}" -I{} bash -c 'run_one "$1"' _ {} >"$logdir/summary" 2>&1
cat "$logdir/summary"
pass=$(grep -c '^ok ' "$logdir/summary")
fail=$(grep -c '^FAIL ' "$logdir/summary")
rm -rf "$logdir"
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -eq "${#tests[@]}" ]
