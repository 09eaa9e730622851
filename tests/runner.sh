# shellcheck shell=bash
# What every tier's runner asks of a test before it counts as passed
# (tests/cli/run.sh, tests/sim/run.sh, tests/run-unit.sh, tests/browser/run.sh,
# tools/fuzz/fuzz.sh): it exited 0, it ran to its end (the line its runner
# requires: "done: NAME" from t_done, cmocka's summary, libFuzzer's "Done"),
# and nothing on the way went wrong where a status cannot show it (a command
# not found, an unset variable, a helper that crashed, inside an `if`, a
# `|| true` or a pipeline).
#
# t_verdict NAME RC LOG [REQUIRED_LINE_REGEX]: prints why the test fails, or
# nothing; exits 0 only when it passed.
T_BROKEN='(: command not found$|: unbound variable$|^Traceback \(most recent call last\):|: line [0-9]+: +[0-9]+ (Segmentation fault|Bus error|Illegal instruction|Aborted)|^bash: .*: syntax error|: bad substitution$)'
t_verdict() {
	local name=$1 rc=$2 log=$3 want=${4:-"^done: $1\$"} bad
	if [ "$rc" != 0 ]; then
		echo "exited $rc"
		return 1
	fi
	bad=$(grep -E -m 3 -- "$T_BROKEN" "$log" || true)
	if [ -n "$bad" ]; then
		echo "something broke on the way (exit 0 is not believed):"
		printf '%s\n' "$bad" | sed 's/^/  /'
		return 1
	fi
	if ! grep -qE -- "$want" "$log"; then
		echo "stopped before its end: no line matching '$want' (exit 0 is not believed)"
		return 1
	fi
}
