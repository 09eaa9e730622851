#!/bin/bash
# make fuzz: build every libFuzzer target in tests/fuzz (make's build/fuzz:
# clang, with ASan + UBSan) and run each for FUZZ_SECONDS (default 60), two at a time, from its
# seed corpus. Crashes found before are kept in tests/fuzz/regress/TARGET/
# and replayed first: each is a regression test. A new crash fails the run
# and is copied there (review it, fix the bug, commit the file).
# FUZZ_TARGETS="mad capture" builds and runs only those targets.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${FUZZ_SECONDS:-60}
out=$root/build/fuzz
mkdir -p "$out"
# Every tool first, all at once: clang and libFuzzer's runtime (libclang-rt-14-dev).
NEED_WHO=fuzz "$root/tools/deps/need.sh" fuzz || { echo "fuzz: 0 passed, 1 failed"; exit 1; }
# The targets are built by the Makefile (build/fuzz: clang, libFuzzer, ASan and UBSan, from
# the same sources and flags as the other builds, the library compiled once).
targets=()
for t in "$root"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$t" .c)
	name=${name#fuzz_}
	[ -z "${FUZZ_TARGETS:-}" ] || [[ " $FUZZ_TARGETS " == *" $name "* ]] || continue
	targets+=("$name")
done
make -C "$root" --no-print-directory -j2 "${targets[@]/#/build/fuzz/fuzz_}" >"$out/build.log" 2>&1 ||
	{ tail -20 "$out/build.log" >&2; echo "fuzz: the targets did not build (log $out/build.log)" >&2; echo "fuzz: 0 passed, 1 failed"; exit 1; }
run_target() {
	set -euo pipefail
	local name=$1 corpus=$out/corpus-$1 regress=$root/tests/fuzz/regress/$1 art=$out/crash-$1
	mkdir -p "$corpus" "$regress" "$art"
	cp -n "$root"/tests/fuzz/seeds/"$name"/* "$corpus"/ 2>/dev/null || true
	# Replay the known crashes first.
	if ls "$regress"/* >/dev/null 2>&1; then
		"$out/fuzz_$name" "$regress"/* >"$out/$name.regress.log" 2>&1 || { echo "fuzz: $name: a regression input crashes again" >&2; tail -30 "$out/$name.regress.log" >&2; return 1; }
	fi
	if ! "$out/fuzz_$name" -max_total_time="$secs" -print_final_stats=1 -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
		-artifact_prefix="$art/" "$corpus" >"$out/$name.log" 2>&1; then
		echo "fuzz: $name: crash; input saved in $regress" >&2
		cp "$art"/* "$regress"/ 2>/dev/null || true
		tail -40 "$out/$name.log" >&2
		return 1
	fi
	# A run that went to its end: libFuzzer's closing "Done N runs" line, and its final stats.
	grep -qE '^Done [0-9]+ runs in ' "$out/$name.log" && grep -q 'stat::number_of_executed_units: [1-9]' "$out/$name.log" ||
		{ echo "fuzz: $name: the run stopped before its end (no 'Done N runs' line)" >&2; tail -20 "$out/$name.log" >&2; return 1; }
	if grep -qE "$T_BROKEN" "$out/$name.log" "$out/$name.regress.log" 2>/dev/null; then
		echo "fuzz: $name: something broke on the way: $(grep -hE "$T_BROKEN" "$out/$name.log" | head -2)" >&2
		return 1
	fi
	echo "fuzz: $name: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/$name.log" | awk '{print $2}') runs, $(grep -Eo 'cov: [0-9]+' "$out/$name.log" | tail -1) in ${secs}s, no crash"
}
. "$root/tests/runner.sh"
export -f run_target
export out root secs T_BROKEN
rc=0
printf '%s\n' "${targets[@]}" | xargs -P 2 -I{} bash -c 'run_target {}' >"$out/summary" 2>&1 || rc=$?
cat "$out/summary"
pass=$(grep -c ', no crash$' "$out/summary")
echo "fuzz: $pass passed, $((${#targets[@]} - pass)) failed"
[ $rc -eq 0 ] && [ "$pass" -eq ${#targets[@]} ]
