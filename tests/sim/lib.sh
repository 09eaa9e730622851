# shellcheck shell=bash
# Helpers for simulator tests on top of simlib.sh: assertions and ibscan runs.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../done.sh"
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

# _tree PID: PID and its descendants, one a line (builtins only: on a loaded machine each
# process spawned costs more than a walk's millisecond).
_tree() {
	local todo=("$1") p kids
	while ((${#todo[@]})); do
		p=${todo[0]}
		todo=("${todo[@]:1}")
		echo "$p"
		kids=()
		read -r -a kids 2>/dev/null <"/proc/$p/task/$p/children" || true
		todo+=("${kids[@]}")
	done
}

# recording PID: the capture ibscan PID is recording, as a path (/proc/P/fd/N) to read while
# the run lasts: until it ends the capture is a temporary file with no name
# (docs/capture-format.md). PID (a background `ibs`: a shell) or one of its descendants is
# ibscan: RECORDING_PID then names it, for `kill -STOP` to hold the run where it is (a walk
# of the simulator can end a few milliseconds on). Not in $(...) when RECORDING_PID matters.
recording() {
	local p f first
	RECORDING_PID=
	for p in $(_tree "$1"); do
		for f in /proc/"$p"/fd/*; do
			[[ -f $f ]] || continue # a regular file: never a FIFO, whose read would block
			first=
			read -r first 2>/dev/null <"$f" || true
			[[ $first == 'ibscan-capture '* ]] || continue
			RECORDING=$f RECORDING_PID=$p
			echo "$f"
			return 0
		done
	done
	return 1
}

# mid_walk PID N: the capture ibscan PID is recording holds at least N exchanges
# (MID_WALK_PID: that ibscan).
mid_walk() {
	MID_WALK_PID=
	recording "$1" >/dev/null && [ "$(grep -c '^x ' "$RECORDING")" -ge "$2" ] && MID_WALK_PID=$RECORDING_PID
}
# The padding each side of an edge's xlabel in DOT (two no-break spaces: output/draw.c XPAD).
NBSP2=$'\xc2\xa0\xc2\xa0'
