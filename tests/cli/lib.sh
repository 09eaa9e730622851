# shellcheck shell=bash
# Helpers for CLI tests: run ibscan, assert exit codes and messages.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../done.sh"
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
IBSCAN=${IBSCAN:-$ROOT/ibscan}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ibscan-cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# No simulator here: make sure the shim is not preloaded by the caller.
unset LD_PRELOAD IBSIM_SOCKNAME SIM_HOST
# The sanitized build: leaks inside libibnetdisc are its own (lsan.supp says which).
export LSAN_OPTIONS=suppressions=$ROOT/tests/cli/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# run WANT_RC ARGS...: run ibscan; stdout in $TMP/out, stderr in $TMP/err.
run() {
	local want=$1 rc=0
	shift
	"$IBSCAN" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "--- stdout:" >&2; head -20 "$TMP/out" >&2
		echo "--- stderr:" >&2; head -20 "$TMP/err" >&2
		fail "ibscan $* exited $rc, want $want"
	fi
}

# err_has TEXT: stderr contains TEXT.
err_has() { grep -qF -- "$1" "$TMP/err" || { cat "$TMP/err" >&2; fail "stderr lacks: $1"; }; }
out_has() { grep -qF -- "$1" "$TMP/out" || { head -20 "$TMP/out" >&2; fail "stdout lacks: $1"; }; }
# The padding each side of an edge's xlabel in DOT (two no-break spaces: output/draw.c XPAD).
NBSP2=$'\xc2\xa0\xc2\xa0'
# for_others FILE: a copy of FILE that other users can read and run, under $TMP/others, and
# its path: a checkout may sit where only its owner can enter (/root on a fresh machine is 700).
for_others() {
	mkdir -p "$TMP/others"
	chmod go+x "$TMP"
	chmod 755 "$TMP/others"
	cp "$1" "$TMP/others/"
	chmod a+rX "$TMP/others/${1##*/}"
	echo "$TMP/others/${1##*/}"
}
