#!/bin/bash
# Run every unit test binary given; fail if any fails. Prints one summary line.
# A binary passes only when it exits 0 and cmocka printed its summary of a
# whole run ("[  PASSED  ] N test(s).", and no FAILED line): one that exits
# early, even with status 0, fails (tests/runner.sh).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/runner.sh"
if ! NEED_WHO=unit "$root/tools/deps/need.sh" unit; then
	echo "unit: 0 passed, 1 failed"
	exit 1
fi
pass=0 fail=0
log=$(mktemp "${TMPDIR:-/tmp}/ibscan-unit-log.XXXXXX")
for t in "$@"; do
	name=$(basename "$t")
	rc=0
	"$t" >"$log" 2>&1 || rc=$?
	if why=$(t_verdict "$name" "$rc" "$log" '^\[  PASSED  \] [0-9]+ test\(s\)\.$') &&
		why="a test failed" && ! grep -q '^\[  FAILED  \]' "$log"; then
		pass=$((pass + 1))
		printf 'ok   %s\n' "$name"
	else
		fail=$((fail + 1))
		cat "$log" >&2
		echo "FAILED: $t: $why" >&2
	fi
done
rm -f "$log"
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -eq $# ]
