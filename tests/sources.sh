# shellcheck shell=bash
# The source table shared by tests/cli/t_sources.sh (captures, caches, files)
# and tests/sim/t_sources.sh (the live fabric): every command against every
# source either does its job or refuses in one line. The caller sets
# RUN=(how to run ibscan), SRC[name]="options that pick the source", TMP,
# and fail().

# check_table: rows "source|command|exit|how|pattern" on stdin; every row
# runs, then the table fails if any row did.
#   how out:  stdout matches pattern (ERE), stderr is empty
#   how part: stdout has the (partial) result, stderr is one error line matching pattern
#   how err:  stderr is one error line matching pattern (plus a usage hint for exit 2)
check_table() {
	local src args want how pat n=0 bad=0
	while IFS='|' read -r src args want how pat; do
		[ -n "$src" ] || continue
		n=$((n + 1))
		_table_row "$src" "$args" "$want" "$how" "$pat" || bad=$((bad + 1))
	done
	[ "$bad" = 0 ] || fail "$bad of $n command and source pairs neither did their job nor refused in one line"
	echo "ok: $n command and source pairs done or refused in one line"
}

_table_row() {
	local src=$1 args=$2 want=$3 how=$4 pat=$5 rc=0 errs what
	# shellcheck disable=SC2086
	"${RUN[@]}" $args ${SRC[$src]} >"$TMP/out" 2>"$TMP/err" || rc=$?
	what="ibscan $args [$src]"
	[ "$rc" = "$want" ] || { _table_wrong "$what" "exit $rc, want $want"; return 1; }
	case $how in
	out)
		[ -s "$TMP/err" ] && { _table_wrong "$what" "succeeded but wrote to stderr"; return 1; }
		grep -Eq -- "$pat" "$TMP/out" || { _table_wrong "$what" "stdout lacks /$pat/"; return 1; }
		;;
	part | err)
		[ "$how" = err ] || [ -s "$TMP/out" ] || { _table_wrong "$what" "a partial result, but no output"; return 1; }
		errs=$(grep -c '^ibscan: error: ' "$TMP/err" || true)
		[ "$errs" = 1 ] || { _table_wrong "$what" "$errs error lines, want exactly 1"; return 1; }
		if grep -v '^ibscan: error: ' "$TMP/err" | grep -qv '^ibscan: hint: '; then
			_table_wrong "$what" "stderr holds more than the error line"
			return 1
		fi
		grep -Eq -- "$pat" "$TMP/err" || { _table_wrong "$what" "the error does not say /$pat/"; return 1; }
		;;
	*)
		_table_wrong "$what" "bad row: how '$how'"
		return 1
		;;
	esac
}

_table_wrong() {
	echo "FAIL: $1: $2" >&2
	{ echo "--- stdout:"; head -5 "$TMP/out"; echo "--- stderr:"; head -5 "$TMP/err"; } | sed 's/^/    /' >&2
}

# check_every_command FILE: the table in FILE has a row for every command of `ibscan --help`.
check_every_command() {
	local cmd
	for cmd in $("$IBSCAN" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p'); do
		[ "$cmd" = help ] && continue
		grep -Eq "^[a-z-]+\|$cmd( |\|)" "$1" || fail "no row for '$cmd' in the table of $1"
	done
}
