# shellcheck shell=bash
# Helpers for simulator tests on top of simlib.sh: assertions and ibscan runs.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
IBSCAN=${IBSCAN:-$ROOT/ibscan}
. "$ROOT/tests/sim/simlib.sh"
FABRICS=$ROOT/fixtures/fabrics
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ibscan-t.XXXXXX")
_cleanup_tmp() { rm -rf "$TMP"; }
trap _cleanup_tmp EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
ok() { echo "ok: $*"; }

# expect_rc WANT CMD...: run CMD, fail unless it exits WANT; output in $TMP/out, $TMP/err.
expect_rc() {
	local want=$1 rc=0
	shift
	"$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "--- stdout:" >&2; head -40 "$TMP/out" >&2
		echo "--- stderr:" >&2; head -40 "$TMP/err" >&2
		fail "'$*' exited $rc, want $want"
	fi
}

# ibscan under the simulator.
ibs() { sim_run "$IBSCAN" "$@"; }

# compare_with_ibnetdiscover NAME: ibscan's JSON and ibnetdiscover's text, normalized, must be equal.
compare_with_ibnetdiscover() {
	local name=$1
	ibs topology --json -o "$TMP/$name.json" || fail "$name: ibscan topology exited $?"
	sim_run ibnetdiscover >"$TMP/$name.ibnd" 2>"$TMP/$name.ibnd.err" || fail "$name: ibnetdiscover exited $?"
	python3 "$ROOT/tests/sim/ibscan2norm.py" "$TMP/$name.json" -o "$TMP/$name.a"
	python3 "$ROOT/tests/sim/ibnd2norm.py" "$TMP/$name.ibnd" -o "$TMP/$name.b"
	[ -s "$TMP/$name.a" ] || fail "$name: empty normalized ibscan output"
	bash "$ROOT/tests/sim/compare.sh" "$TMP/$name.a" "$TMP/$name.b" || fail "$name: ibscan and ibnetdiscover differ"
	ok "$name: $(grep -c '^node' "$TMP/$name.a") nodes, $(grep -c '^port' "$TMP/$name.a") ports, $(grep -c '^link' "$TMP/$name.a") links equal to ibnetdiscover"
}

# mid_walk CAPTURE N: the capture being recorded holds at least N exchanges.
mid_walk() { [ -f "$1" ] && [ "$(grep -c '^x ' "$1")" -ge "$2" ]; }
