#!/bin/bash
# make bench: ibscan against the reference tools on the same simulated fat
# trees, side by side in one run. For each size: generate the fabric, start
# ibsim + opensm, wait for the subnet, then alternate runs of
#   ibscan topology        vs  ibnetdiscover (defaults) and ibnetdiscover -o 64
#   ibscan health          vs  ibqueryerrors
# (15 runs each up to the large size, 7 at xlarge, 5 at huge; BENCH_RUNS
# overrides), count MADs (tools/madcount.c, an LD_PRELOAD
# counter of umad_send), measure wall time and max RSS (/usr/bin/time), and
# replay the capture of the walk, from its text and through its index
# (`capture index`). Also the simulator's raw MAD rate (tools/rawrate.c:
# NodeInfo to the local node, a window of 32).
# Prints one table and writes it to build/bench/results.md.
# BENCH_SIZES picks sizes: small medium large xlarge huge (default all).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/sim/simlib.sh"
out=$root/build/bench
mkdir -p "$out"
# Runs per tool: the simulator's timing varies by a third from run to run,
# so the cheap sizes get more (BENCH_RUNS sets one number for all).
runs_for() {
	if [ -n "${BENCH_RUNS:-}" ]; then
		echo "$BENCH_RUNS"
		return
	fi
	case $1 in
	small | medium | large) echo 15 ;;
	xlarge) echo 7 ;;
	*) echo 5 ;;
	esac
}
sizes=${BENCH_SIZES:-small medium large xlarge huge}
madcount=$root/build/rel/madcount.so
ibscan=$root/ibscan

gen() { # SIZE -> fabric file
	local f=$out/$1.net
	case $1 in
	small) cp "$root/fixtures/fabrics/fattree2-small" "$f" ;;
	medium) python3 "$root/tools/genfabric.py" --levels 2 --radix 36 -o "$f" 2>/dev/null ;;
	large) python3 "$root/tools/genfabric.py" --levels 3 --radix 36 --hosts 2304 -o "$f" 2>/dev/null ;;
	xlarge) python3 "$root/tools/genfabric.py" --levels 3 --radix 36 --hosts 7776 -o "$f" 2>/dev/null ;;
	huge) python3 "$root/tools/genfabric.py" --levels 3 --radix 48 --hosts 24000 -o "$f" 2>/dev/null ;;
	esac
	echo "$f"
}

# measure NAME CMD...: one run under the MAD counter; appends "name secs rss_kb mads" to $out/runs.
# Output goes to stdout, redirected to /dev/null by the shell: never `-o /dev/null`,
# which an ibscan older than its sort -o semantics replaced with a regular file as root.
measure() {
	local name=$1
	shift
	(cd "$SIM_DIR" && LD_PRELOAD="$madcount:$SIM_SHIM" /usr/bin/time -f "time %e %M" "$@" >/dev/null 2>"$out/err")
	local t rss mads
	read -r t rss <<<"$(grep '^time ' "$out/err" | tail -1 | cut -d' ' -f2-)"
	mads=$(grep '^madcount: ' "$out/err" | tail -1 | cut -d' ' -f2)
	if grep -q "Segmentation fault\|Command terminated by signal" "$out/err"; then
		echo "$name crashed" >>"$out/crashes"
	fi
	echo "$name ${t:-nan} ${rss:-0} ${mads:-0}" >>"$out/runs"
}

stats() { # NAME FIELD(2 time,3 rss,4 mads) min|median|max
	awk -v n="$1" -v f="$2" -v w="$3" '$1==n {v[++c]=$f} END {
		if (!c) { print "-"; exit }
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		if (w == "min") print v[1]; else if (w == "max") print v[c]; else print v[int((c + 1) / 2)] }' "$out/runs"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a != "-") printf "%.2f", a / b; else print "-" }'; }
# pairs A B: the ratio A/B of each round (the i-th run of each), as "min-max (median)".
pairs() {
	paste -d' ' <(awk -v n="$1" '$1==n {print $2}' "$out/runs") <(awk -v n="$2" '$1==n {print $2}' "$out/runs") |
		awk '$2 > 0 {print $1 / $2}' | sort -n |
		awk '{v[NR]=$1} END { if (NR) printf "%.2f-%.2f (median %.2f)", v[1], v[NR], v[int((NR+1)/2)]; else print "-" }'
}

: >"$out/results.md"
: >"$out/crashes"
{
	echo "# ibscan bench, $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -r)"
	echo
	echo "| fabric | nodes | links | SM up s | tool | MADs | wall min s | wall median s | max RSS MB |"
	echo "|---|---|---|---|---|---|---|---|---|"
} >>"$out/results.md"
for size in $sizes; do
	f=$(gen "$size")
	: >"$out/runs"
	nodes=$(grep -m1 '^# nodes' "$f" | awk '{print $3}' | tr -d :)
	links=$(grep -m1 '^# links' "$f" | awk '{print $3}' | tr -d :)
	runs=$(runs_for "$size")
	sim_start "$f" || { echo "bench: $size: the simulator did not come up" >&2; continue; }
	echo "bench: $size: $nodes nodes, subnet up in ${SIM_UP_SECONDS}s" >&2
	for i in $(seq "$runs"); do
		measure ibscan "$ibscan" topology
		measure ibnetdiscover ibnetdiscover
		measure "ibnetdiscover-o64" ibnetdiscover -o 64
	done
	for i in $(seq "$runs"); do
		measure "ibscan-health" "$ibscan" health
		measure ibqueryerrors ibqueryerrors
	done
	rm -f "$out/$size.cap.idx"
	(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM "$ibscan" topology --record "$out/$size.cap" -o "$out/$size.live.txt" 2>/dev/null)
	# Replay from the text, then through the index `capture index` writes.
	replay() {
		/usr/bin/time -f "time %e %M" "$ibscan" topology --replay "$out/$size.cap" >/dev/null 2>"$out/err"
		read -r t rss <<<"$(grep '^time ' "$out/err" | cut -d' ' -f2-)"
		echo "$1 $t $rss 0" >>"$out/runs"
	}
	for i in $(seq "$runs"); do replay ibscan-replay; done
	"$ibscan" capture index "$out/$size.cap"
	for i in $(seq "$runs"); do replay ibscan-replay-idx; done
	if [ "$size" = large ]; then
		(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM "$root/build/rel/rawrate" 100000 32) >"$out/rawrate" 2>/dev/null || true
		for w in 1 4 16 32 64 128; do
			for i in $(seq "$runs"); do
				measure "ibscan-w$w" "$ibscan" topology --window "$w"
			done
		done
	fi
	sim_stop
	for tool in ibscan ibnetdiscover ibnetdiscover-o64 ibscan-health ibqueryerrors ibscan-replay ibscan-replay-idx; do
		echo "| $size | $nodes | $links | $SIM_UP_SECONDS | $tool | $(stats $tool 4 median) | $(stats $tool 2 min) | $(stats $tool 2 median) | $(awk -v k="$(stats $tool 3 max)" 'BEGIN{if (k=="-") print "-"; else printf "%.1f", k/1024}') |" >>"$out/results.md"
	done
	{
		echo "| $size | | | | ratios | MADs $(ratio "$(stats ibscan 4 median)" "$(stats ibnetdiscover 4 median)") | vs default $(ratio "$(stats ibscan 2 median)" "$(stats ibnetdiscover 2 median)") | vs -o 64 $(ratio "$(stats ibscan 2 median)" "$(stats ibnetdiscover-o64 2 median)") | RSS $(ratio "$(stats ibscan 3 max)" "$(stats ibnetdiscover 3 max)") |"
		echo "| $size | | | | ibscan/-o 64 per round | | | $(pairs ibscan ibnetdiscover-o64) | |"
		echo "| $size | | | | health/ibqueryerrors | | | $(ratio "$(stats ibscan-health 2 median)" "$(stats ibqueryerrors 2 median)") | |"
		echo "| $size | | | | replay/live (text, index) | | | $(ratio "$(stats ibscan-replay 2 median)" "$(stats ibscan 2 median)"), $(ratio "$(stats ibscan-replay-idx 2 median)" "$(stats ibscan 2 median)") | |"
	} >>"$out/results.md"
	if [ "$size" = large ]; then
		cp "$out/runs" "$out/runs-large"
	fi
done
{
	echo
	if [ -s "$out/rawrate" ]; then
		echo "Simulator raw rate (large fabric): $(cat "$out/rawrate")"
		echo
		echo "| window | MADs | wall median s | MADs/s |"
		echo "|---|---|---|---|"
		for w in 1 4 16 32 64 128; do
			m=$(awk -v n="ibscan-w$w" '$1==n {print $4; exit}' "$out/runs-large")
			t=$(awk -v n="ibscan-w$w" '$1==n {print $2}' "$out/runs-large" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
			echo "| $w | $m | $t | $(awk -v m="$m" -v t="$t" 'BEGIN{ if (t > 0) printf "%.0f", m / t }') |"
		done
	fi
	if [ -s "$out/crashes" ]; then
		echo
		echo "Crashes: $(sort "$out/crashes" | uniq -c | tr '\n' ';')"
	fi
} >>"$out/results.md"
cat "$out/results.md"
