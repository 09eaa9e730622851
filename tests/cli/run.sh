#!/bin/bash
# CLI tier: usage errors, exit codes, bad input and golden files on replayed
# captures; no simulator needed. The unit and CLI tiers also run under
# AddressSanitizer + UBSan (IBSCAN points at the sanitized build).
# Usage: tests/cli/run.sh [--regenerate]   (regenerate: rewrite golden files)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
export ROOT=$root IBSCAN=${IBSCAN:-$root/ibscan}
export REGENERATE=0
[ "${1:-}" = "--regenerate" ] && REGENERATE=1
pass=0 fail=0
for t in "$root"/tests/cli/t_*.sh; do
	name=$(basename "$t" .sh)
	if out=$(bash "$t" 2>&1); then
		pass=$((pass + 1))
		printf 'ok   %s\n' "$name"
	else
		fail=$((fail + 1))
		printf 'FAIL %s\n%s\n' "$name" "$(echo "$out" | tail -40 | sed 's/^/    /')"
	fi
done
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
