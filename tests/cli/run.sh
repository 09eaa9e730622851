#!/bin/bash
# CLI tier: usage errors, exit codes, bad input and golden files on replayed
# captures; no simulator needed. The unit and CLI tiers also run under
# AddressSanitizer + UBSan (IBSCAN points at the sanitized build).
# Every tool the tier needs is checked first (tools/need.sh); a test passes
# only when it exits 0, reaches its end (t_done) and nothing broke on the
# way (tests/runner.sh).
# Usage: tests/cli/run.sh [--regenerate] [TEST.sh...]   (regenerate: rewrite golden files)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/runner.sh"
export ROOT=$root IBSCAN=${IBSCAN:-$root/ibscan}
export REGENERATE=0
[ "${1:-}" = "--regenerate" ] && { REGENERATE=1; shift; }
if ! NEED_WHO=cli "$root/tools/need.sh" cli; then
	echo "cli: 0 passed, 1 failed"
	exit 1
fi
if [ $# -gt 0 ]; then tests=("$@"); else tests=("$root"/tests/cli/t_*.sh); fi
pass=0 fail=0
log=$(mktemp "${TMPDIR:-/tmp}/ibscan-cli-log.XXXXXX")
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	rc=0
	TEST_NAME=$name bash "$t" >"$log" 2>&1 || rc=$?
	if why=$(t_verdict "$name" "$rc" "$log"); then
		pass=$((pass + 1))
		printf 'ok   %s\n' "$name"
	else
		fail=$((fail + 1))
		printf 'FAIL %s: %s\n%s\n' "$name" "$why" "$(tail -40 "$log" | sed 's/^/    /')"
	fi
done
rm -f "$log"
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -eq "${#tests[@]}" ]
