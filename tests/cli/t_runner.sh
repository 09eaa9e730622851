#!/bin/bash
# Every tier's runner passes only a test that ran to its end (issue 22): the
# planted tests in tests/planted/ each exit 0, yet each stops early, runs a
# tool that is not there, reads an unset variable or has a helper crash; the
# CLI and simulator runners fail each one, named, and pass the control. A
# unit binary that exits 0 without cmocka's summary fails. With bc or
# xmllint gone from PATH, the simulator and CLI tiers fail before running
# anything, naming the tool and its package; so do the fuzz tier without
# clang and the browser tier without node. (The runners' output is kept in
# files here: what they quote of the planted tests would look like this
# test breaking.)
. "$(dirname "$0")/lib.sh"
planted=$ROOT/tests/planted
bad=(p_early_exit p_no_tool p_unset p_helper_crash)
declare -A why=([p_early_exit]="stopped before its end" [p_no_tool]="something broke on the way"
	[p_unset]="something broke on the way" [p_helper_crash]="something broke on the way")

# judged TIER OUT: every planted bad test FAILs naming its reason, the control passes, the tier fails.
judged() {
	local tier=$1 out=$2 t
	for t in "${bad[@]}"; do
		grep -qE "^FAIL $t\b.*${why[$t]}" "$out" || { sed 's/^/  | /' "$out" | grep -E '^  \| (ok|FAIL)' >&2; fail "$tier: $t was not failed for '${why[$t]}'"; }
	done
	grep -qE '^ok +p_passes\b' "$out" || fail "$tier: the control test did not pass"
	grep -qE "^$tier: 1 passed, ${#bad[@]} failed$" "$out" || fail "$tier: summary is '$(tail -1 "$out")'"
}
rc=0
bash "$ROOT/tests/cli/run.sh" "$planted"/p_*.sh >"$TMP/cli.out" 2>&1 || rc=$?
[ $rc != 0 ] || fail "cli: the runner passed the planted tests"
judged cli "$TMP/cli.out"
echo "ok: cli runner fails the planted tests, each for its reason"
rc=0
bash "$ROOT/tests/sim/run.sh" "$planted"/p_*.sh >"$TMP/sim.out" 2>&1 || rc=$?
[ $rc != 0 ] || fail "sim: the runner passed the planted tests"
judged sim "$TMP/sim.out"
echo "ok: sim runner fails the planted tests, each for its reason"

# Unit binaries: exit 0 with no cmocka summary fails; the summary of a whole run passes.
printf '#!/bin/sh\necho "[==========] tests: Running 3 test(s)."\nexit 0\n' >"$TMP/test_early"
printf '#!/bin/sh\necho "[==========] tests: 3 test(s) run."\necho "[  PASSED  ] 3 test(s)."\n' >"$TMP/test_whole"
chmod +x "$TMP/test_early" "$TMP/test_whole"
rc=0
bash "$ROOT/tests/run-unit.sh" "$TMP/test_early" "$TMP/test_whole" >"$TMP/unit.out" 2>&1 || rc=$?
[ $rc != 0 ] && grep -q "FAILED: $TMP/test_early: stopped before its end" "$TMP/unit.out" &&
	grep -q '^ok   test_whole$' "$TMP/unit.out" && grep -q '^unit: 1 passed, 1 failed$' "$TMP/unit.out" ||
	fail "unit: an early exit was not failed: $(cat "$TMP/unit.out")"
echo "ok: unit runner fails a binary that exits 0 before cmocka's summary"

# PATH without some tools: every command on PATH linked into one directory, but those.
without() {
	local d=$TMP/path-$1 dir f
	mkdir -p "$d"
	for dir in ${PATH//:/ } /usr/sbin /sbin; do
		for f in "$dir"/*; do
			[ -x "$f" ] && [ ! -e "$d/${f##*/}" ] && ln -s "$f" "$d/${f##*/}"
		done
	done
	for f in "$@"; do rm -f "$d/$f"; done
	rm -f "$d/$1"
	echo "$d"
}
# missing_named TIER OUT TOOL PACKAGE...: the tier failed before any test, naming each tool and package.
missing_named() {
	local tier=$1 out=$2
	shift 2
	while [ $# -gt 0 ]; do
		grep -qxF "  $1 (package $2)" "$out" || fail "$tier without $1: not named: $(cat "$out")"
		shift 2
	done
	grep -qF "$tier: install them with 'make deps'" "$out" || fail "$tier: no fix said: $(cat "$out")"
	! grep -qE '^(ok|FAIL) ' "$out" || fail "$tier: tests ran without their tools: $(cat "$out")"
}
p=$(without bc bc xmllint)
rc=0
PATH=$p bash "$ROOT/tests/sim/run.sh" t_draw >"$TMP/nobc.out" 2>&1 || rc=$?
[ $rc != 0 ] || fail "sim: passed without bc and xmllint"
missing_named sim "$TMP/nobc.out" bc bc xmllint libxml2-utils
echo "ok: sim tier without bc and xmllint fails at once, naming both: $(grep -c '(package' "$TMP/nobc.out") named"
rc=0
PATH=$p bash "$ROOT/tests/cli/run.sh" "$planted/p_passes.sh" >"$TMP/noxml.out" 2>&1 || rc=$?
[ $rc != 0 ] || fail "cli: passed without xmllint"
missing_named cli "$TMP/noxml.out" xmllint libxml2-utils
echo "ok: cli tier without xmllint fails at once, naming it"
p=$(without clang clang node)
rc=0
PATH=$p bash "$ROOT/tools/fuzz/fuzz.sh" >"$TMP/noclang.out" 2>&1 || rc=$?
[ $rc != 0 ] || fail "fuzz: passed without clang"
missing_named fuzz "$TMP/noclang.out" clang clang
rc=0
PATH=$p BROWSER_LARGE=0 bash "$ROOT/tests/browser/run.sh" >"$TMP/nonode.out" 2>&1 || rc=$?
[ $rc != 0 ] || fail "browser: passed without node"
missing_named browser "$TMP/nonode.out" node nodejs
echo "ok: fuzz tier without clang and browser tier without node fail at once, naming them"
# The packagers' target runs every tier and installs nothing (make check installs first).
make -n -C "$ROOT" test >"$TMP/test.n" 2>&1 || fail "make -n test: $(tail -3 "$TMP/test.n")"
! grep -q 'deps\.sh\|apt-get\|npm ' "$TMP/test.n" || fail "make test installs: $(grep 'deps\.sh\|apt-get\|npm ' "$TMP/test.n" | head -1)"
for t in tests/run-unit.sh tests/cli/run.sh tests/sim/run.sh tests/browser/run.sh tools/fuzz/fuzz.sh tests/rdma/run.sh; do
	grep -qF "$t" "$TMP/test.n" || fail "make test does not run $t"
done
make -n -C "$ROOT" check >"$TMP/check.n" 2>&1 || fail "make -n check: $(tail -3 "$TMP/check.n")"
# tools/deps/deps.sh before anything is built or run. Read without pipes: `grep | head -1` under
# pipefail failed now and then (grep killed by SIGPIPE once head had its line).
first_deps=$(awk '$0 == "tools/deps/deps.sh" { print NR; exit }' "$TMP/check.n")
first_work=$(awk '/^(cc|gcc|clang|ar|cp|mkdir|tests\/|tools\/need\.sh|NEED_WHO=|IBSCAN=)/ { print NR; exit }' "$TMP/check.n")
[ -n "$first_deps" ] && { [ -z "$first_work" ] || [ "$first_deps" -lt "$first_work" ]; } ||
	fail "make check does not install first: $(grep -v '^make' "$TMP/check.n" | sed -n 1,3p | tr '\n' '|')"
# And make test builds every build before the first tier runs (a compile error fails at once).
[ "$(grep -n 'fuzz-targets\|tests/run-unit.sh' "$TMP/test.n" | head -1 | cut -d: -f2-)" = "$(grep 'fuzz-targets' "$TMP/test.n" | head -1)" ] ||
	fail "make test runs a tier before building the fuzz targets"
echo "ok: make test runs every tier and installs nothing; make check installs first"
t_done
