#!/bin/bash
# make bench: ibscan against the reference tools on the same simulated fat
# trees, side by side in one run. For each size: generate the fabric, start
# ibsim + opensm, wait for the subnet, then alternate runs of
#   ibscan topology        vs  ibnetdiscover (defaults) and ibnetdiscover -o 64
#   ibscan health          vs  ibqueryerrors (defaults) and ibqueryerrors -o 64
# (15 runs each up to the large size, 7 at xlarge, 5 at huge; BENCH_RUNS
# overrides), count MADs (tools/bench/madcount.c, an LD_PRELOAD
# counter of umad_send), measure wall time and max RSS (/usr/bin/time), and
# replay the capture of the walk, from its text and through its index
# (`capture index`). Also the simulator's raw MAD rate (tools/bench/rawrate.c:
# NodeInfo to the local node, a window of 32).
# Every measured run is checked (check_output): a run that exits non-zero or
# answers wrong is an error, listed, not a figure. The bench fails when an
# ibscan run errs, or a tool is left with no good run (a reference tool that
# crashes now and then under the simulator is listed, and its other runs
# count). The
# topology runs (ibscan writes the ibnetdiscover format) must normalize to
# what an unmeasured ibnetdiscover run found first, with every node of the
# fabric file; the health runs must find the fabric clean (all nodes and
# links, no finding); a replay must print what the recorded live run did.
# Prints one table and writes it to build/bench/results.md.
# Then the lossy row (bench_lossy): clean and lossy walks of a 264-node tree.
# Then the routes row (bench_routes, issue 27): on the large tree, every
# forwarding table read by `ibscan routes --dump` against dump_lfts in the
# same run, at zero latency and under the fabric model; `routes --check`
# recorded live and replayed from its capture (CPU, RSS) at 702, 2,900 and
# 26,584 nodes (BENCH_ROUTES_SIZES); and the route check's analysis alone
# on trees built in memory up to 26,784 nodes (tools/bench/routebench.c:
# CPU per pair and per destination, RSS).
# Then the exporter row (bench_exporter, issue 30): its sweeps and scrapes on
# the large tree beside ibqueryerrors and the other exporters' commands
# (ibnetdiscover, perfquery), and a 1,000-sweep soak on the small fabric.
# BENCH_SIZES picks sizes: small medium large xlarge huge lossy routes exporter (default all).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
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
sizes=${BENCH_SIZES:-small medium large xlarge huge lossy routes exporter}
madcount=$root/build/rel/madcount.so
ibscan=$root/ibscan

gen() { # SIZE -> fabric file
	local f=$out/$1.net
	case $1 in
	small) cp "$root/fixtures/fabrics/fattree2-small" "$f" ;;
	medium) python3 "$root/tools/fixtures/genfabric.py" --levels 2 --radix 36 -o "$f" 2>/dev/null ;;
	large) python3 "$root/tools/fixtures/genfabric.py" --levels 3 --radix 36 --hosts 2304 -o "$f" 2>/dev/null ;;
	xlarge) python3 "$root/tools/fixtures/genfabric.py" --levels 3 --radix 36 --hosts 7776 -o "$f" 2>/dev/null ;;
	huge) python3 "$root/tools/fixtures/genfabric.py" --levels 3 --radix 48 --hosts 24000 -o "$f" 2>/dev/null ;;
	esac
	echo "$f"
}

# reference: what the tools must find on this fabric, from one unmeasured
# ibnetdiscover run; an error (and no bench of this size) unless it holds
# every node of the fabric file.
reference() {
	(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM ibnetdiscover >"$out/ref.ibnd" 2>/dev/null) &&
		python3 "$root/tests/sim/ibnd2norm.py" -q "$out/ref.ibnd" -o "$out/ref.norm" &&
		[ "$(grep -c '^node ' "$out/ref.norm")" = "$nodes" ] && return 0
	echo "$size reference: ibnetdiscover did not find the $nodes nodes of the fabric" >>"$out/errors"
	return 1
}

# check_output NAME: is $out/run.out the right answer for this size? Says why not.
check_output() {
	case $1 in
	ibscan | ibscan-w* | ibscan-c* | ibscan-fixed | ibnetdiscover*)
		python3 "$root/tests/sim/ibnd2norm.py" -q "$out/run.out" -o "$out/run.norm" 2>/dev/null &&
			cmp -s "$out/run.norm" "$out/ref.norm" && return 0
		echo "topology differs from the reference (ibnetdiscover, $nodes nodes)" ;;
	ibscan-health)
		head -1 "$out/run.out" | grep -q "^IBSCAN OK - $nodes nodes, $links links, no findings |" && return 0
		echo "not 'IBSCAN OK - $nodes nodes, $links links, no findings': $(head -1 "$out/run.out" | cut -c1-100)" ;;
	ibqueryerrors*)
		grep -qx "## Summary: $nodes nodes checked, 0 bad nodes found" "$out/run.out" && return 0
		echo "not '$nodes nodes checked, 0 bad nodes found': $(grep '^## Summary' "$out/run.out")" ;;
	ibscan-dot)
		grep -q '^}' "$out/run.out" && return 0
		echo "--format dot wrote no whole graph" ;;
	dot-layout | ibscan-svg)
		local g
		g=$(xmllint --xpath 'count(//*[local-name()="g" and @class="node"])' "$out/run.out" 2>/dev/null) &&
			[ "${g:-0}" -gt 0 ] && echo "$g" >"$out/$1.nodes" && return 0
		echo "no valid SVG with nodes" ;;
	ibscan-replay*)
		cmp -s "$out/run.out" "$out/$size.live.txt" && return 0
		echo "the replay does not print what the recorded walk did" ;;
	*)
		return 0 ;;
	esac
	return 1
}

# record NAME RC: one measured run's outcome. A run that failed or answered
# wrong goes to $out/errors; a good one's "name secs rss_kb mads" to $out/runs.
record() {
	local name=$1 rc=$2 t rss mads why
	read -r t rss <<<"$(grep '^time ' "$out/err" | tail -1 | cut -d' ' -f2-)"
	mads=$(grep '^madcount: ' "$out/err" | tail -1 | cut -d' ' -f2)
	if [ "$rc" -ne 0 ]; then
		why="exit $rc: $(grep -v '^time \|^madcount: \|^Command exited' "$out/err" | head -1)"
	elif why=$(check_output "$name"); then
		echo "$name ${t:-nan} ${rss:-0} ${mads:-0}" >>"$out/runs"
		return 0
	fi
	echo "$size $name: $why" >>"$out/errors"
}

# measure NAME CMD...: one run on the simulator, under the MAD counter.
measure() {
	local name=$1 rc=0
	shift
	(cd "$SIM_DIR" && LD_PRELOAD="$madcount:$SIM_SHIM" /usr/bin/time -f "time %e %M" "$@" >"$out/run.out" 2>"$out/err") || rc=$?
	record "$name" "$rc"
}

# measure_draw: the drawing of this size's capture (issue 17): --format dot,
# dot's own layout of it (-Tsvg), and --format svg (libgvc in ibscan).
# check_output counts the nodes in each (xmllint for the SVGs).
measure_draw() {
	local rc=0
	/usr/bin/time -f "time %e %M" "$ibscan" topology --replay "$out/$size.cap" --format dot >"$out/$size.dot" 2>"$out/err" || rc=$?
	cp "$out/$size.dot" "$out/run.out"
	record ibscan-dot "$rc"
	rc=0
	/usr/bin/time -f "time %e %M" dot -Tsvg "$out/$size.dot" >"$out/run.out" 2>"$out/err" || rc=$?
	record dot-layout "$rc"
	rc=0
	/usr/bin/time -f "time %e %M" "$ibscan" topology --replay "$out/$size.cap" --format svg >"$out/run.out" 2>"$out/err" || rc=$?
	record ibscan-svg "$rc"
}

# measure_replay NAME: ibscan topology --replay of this size's capture (no simulator).
measure_replay() {
	local rc=0
	/usr/bin/time -f "time %e %M" "$ibscan" topology --replay "$out/$size.cap" --format netfile >"$out/run.out" 2>"$out/err" || rc=$?
	record "$1" "$rc"
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

# bench_lossy: the 264-node 3-level tree of tests/sim/t_fault_matrix.sh (2
# cables per switch pair), clean and with 10% of the MADs dropped at 12 of
# its 48 switches (ibsim's Error on every fourth switch in file order,
# S-leaf01, where the tools attach, among them). Each round runs ibscan
# topology and ibnetdiscover, both with their defaults, on the clean fabric
# and then on the lossy one. Per run: wall time, MADs, exit code, the nodes
# found, and whether the topology equals ibnetdiscover's clean view
# (tests/sim's normalizers). Writes its table to $out/lossy.md; an ibscan
# run that is not complete (or an ibnetdiscover run on the clean fabric) is
# also an error, which fails the bench.
bench_lossy() {
	local f=$out/lossy.net n=${BENCH_RUNS:-15} i s cond tool t rss mads rc nodes eq sw
	python3 "$root/tools/fixtures/genfabric.py" --levels 3 --radix 24 --parallel 2 --hosts 216 --cores 12 -o "$f" 2>/dev/null
	sim_start "$f" || { echo "bench: lossy: the simulator did not come up" >&2; return; }
	mapfile -t sw < <(grep -o '^Switch[[:space:]]*[0-9]* "[^"]*"' "$f" | sed 's/.*"\(.*\)"/\1/' | awk 'NR % 4 == 1')
	(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM ibnetdiscover) >"$out/lossy.ibnd" 2>/dev/null
	python3 "$root/tests/sim/ibnd2norm.py" "$out/lossy.ibnd" -o "$out/lossy.ref"
	: >"$out/runs"
	for i in $(seq "$n"); do
		for cond in clean lossy; do
			for s in "${sw[@]}"; do sim_console "Error \"$s\" $([ $cond = clean ] && echo 0 || echo 10)" >/dev/null; done
			for tool in ibscan ibnetdiscover; do
				rc=0
				rm -f "$out/lossy.norm"
				if [ $tool = ibscan ]; then
					(cd "$SIM_DIR" && LD_PRELOAD="$madcount:$SIM_SHIM" /usr/bin/time -f "time %e %M" \
						"$ibscan" topology --json >"$out/lossy.out" 2>"$out/err") || rc=$?
					python3 "$root/tests/sim/ibscan2norm.py" "$out/lossy.out" -o "$out/lossy.norm" 2>/dev/null
				else
					(cd "$SIM_DIR" && LD_PRELOAD="$madcount:$SIM_SHIM" /usr/bin/time -f "time %e %M" \
						ibnetdiscover >"$out/lossy.out" 2>"$out/err") || rc=$?
					python3 "$root/tests/sim/ibnd2norm.py" "$out/lossy.out" -o "$out/lossy.norm" 2>/dev/null
				fi
				read -r t rss <<<"$(grep '^time ' "$out/err" | tail -1 | cut -d' ' -f2-)"
				mads=$(grep '^madcount: ' "$out/err" | tail -1 | cut -d' ' -f2)
				nodes=$(cat "$out/lossy.norm" 2>/dev/null | grep -c '^node ')
				eq=0
				bash "$root/tests/sim/compare.sh" "$out/lossy.norm" "$out/lossy.ref" >/dev/null 2>&1 && eq=1
				echo "$tool-$cond ${t:-nan} ${rss:-0} ${mads:-0} $rc $nodes $eq" >>"$out/runs"
				# ibscan must find it all, lossy or not; ibnetdiscover only on the clean fabric.
				if [ "$rc" != 0 ] || [ $eq != 1 ]; then
					[ $tool = ibscan ] || [ $cond = clean ] &&
						echo "lossy $tool-$cond: exit $rc, $nodes nodes, not the clean topology" >>"$out/errors"
				fi
			done
		done
	done
	for s in "${sw[@]}"; do sim_console "Error \"$s\" 0" >/dev/null; done
	sim_stop
	{
		echo
		echo "Lossy fabric: 264 nodes, 504 links, 10% of the MADs dropped at 12 of the 48 switches; $n rounds"
		echo
		echo "| tool | fabric | runs | exit 0 | equal to ibnetdiscover's clean view | nodes found min-max | MADs median | wall min s | wall median s |"
		echo "|---|---|---|---|---|---|---|---|---|"
		for tool in ibscan ibnetdiscover; do
			for cond in clean lossy; do
				awk -v k="$tool-$cond" -v tool=$tool -v cond=$cond '$1 == k {
					c++; ok += $5 == 0; eq += $7; if (!c0 || $6 < lo) lo = $6; if ($6 > hi) hi = $6; c0 = 1 }
					END { printf "| %s | %s | %d | %d | %d | %d-%d ", tool, cond == "clean" ? "clean" : "10% at a quarter", c, ok, eq, lo, hi }' "$out/runs"
				echo "| $(stats "$tool-$cond" 4 median) | $(stats "$tool-$cond" 2 min) | $(stats "$tool-$cond" 2 median) |"
			done
		done
		echo "| ibscan | lossy/clean | | | | | | | $(ratio "$(stats ibscan-lossy 2 median)" "$(stats ibscan-clean 2 median)"), per round $(pairs ibscan-lossy ibscan-clean) |"
	} >"$out/lossy.md"
}

# ---- The modelled fabric (issue 15) ----
# bench_model: on the running simulator of this size (large and huge; after
# the zero-latency rows, same run, same fabric), each tool under the fabric
# model (tools/bench/fabricmodel.c, its default figures, docs/performance.md "A
# fabric model"), run from the first host of the file (as on a cluster: its
# leaf serves every directed-route SMP the tool sends): ibnetdiscover, -o 64,
# ibscan topology, ibqueryerrors -o 64, ibscan health. Per run: wall time,
# and from the layer's report MADs sent, dropped, the most MADs one switch had
# in service and waiting at once (and where), and the most requests in flight
# through one switch. A run that exits non-zero or answers wrong
# (check_output) is listed as an error and its time left out, but does not
# fail the bench. Then, per round, ibscan with --max-smps-per-switch 2 and 8
# (the default is 4), and ibscan with 1% of the MADs lost
# (FABRICMODEL_LOSS=1: no answer, the kernel's timeout), with its adaptive
# timeouts and with --fixed-timeout. At large, also the
# layer's own cost: ibscan and ibnetdiscover -o 64 without the layer and with
# it at zero latency and no queue limit, alternately. BENCH_MODEL_RUNS sets
# the rounds (default 3 at large, 1 at huge); BENCH_MODEL_ONLY=1 runs only
# these rows (at large and huge; BENCH_MODEL_SIZES changes which). Writes
# $out/model.md.
fabricmodel=$root/build/rel/fabricmodel.so
model_sizes=${BENCH_MODEL_SIZES:-large huge}

# measure_model NAME MODE CMD...: one run from $mhost; MODE on (the model's
# defaults, or FABRICMODEL_* from the environment), zero (no latency, no
# limit) or off (no layer).
measure_model() {
	local name=$1 mode=$2 rc=0 t rep why ok=1 pre="$fabricmodel:$SIM_SHIM" mdir=$out/model
	shift 2
	[ "$mode" = off ] && pre=$SIM_SHIM
	: >"$mdir/report"
	(
		cd "$SIM_DIR" || exit 1
		export SIM_HOST=$mhost FABRICMODEL_TOPO=$f FABRICMODEL_REPORT=$mdir/report FABRICMODEL_LABEL=$size
		[ "$mode" = zero ] && export FABRICMODEL_HOP_US=0 FABRICMODEL_SWITCH_US=0 FABRICMODEL_CA_US=0 FABRICMODEL_QUEUE=none
		[ "$mode" = loss ] && export FABRICMODEL_LOSS=1
		LD_PRELOAD=$pre exec timeout 3600 /usr/bin/time -f "time %e %M" "$@" >"$out/run.out" 2>"$out/err"
	) || rc=$?
	t=$(grep '^time ' "$out/err" | tail -1 | cut -d' ' -f2)
	rep=$(cat "$mdir/report")
	[ "$mode" = on ] && grep -o 'hop_us=[^ ]* switch_us=[^ ]* ca_us=[^ ]* queue=[^ ]*' <<<"$rep" >"$mdir/params"
	if [ "$rc" -ne 0 ]; then
		why="exit $rc: $(grep -v '^time \|^Command exited' "$out/err" | head -1)"
	elif why=$(check_output "$name"); then
		why=
	fi
	# A LID the layer could not place was not modelled: the figures would not stand.
	grep -q ' unresolved=[1-9]' <<<"$rep" && why="${why:+$why; }$(grep -o 'unresolved=[0-9]*' <<<"$rep") LIDs the model could not place"
	if [ -n "$why" ]; then
		ok=0
		echo "$size modelled $name ($mode): $why" >>"$out/errors"
	fi
	[ "$mode" = off ] && rep="sent=- dropped=- max=- max_at=- out_max=- timed_out=- late_us_mean=-"
	# all/runs: every run; good/runs: the right ones (their times count).
	awk -v n="$name-$mode" -v t="${t:-nan}" -v ok=$ok '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print n, t, v["sent"], v["dropped"], v["max"], v["out_max"], v["timed_out"], ok, v["max_at"], v["late_us_mean"] }' <<<"$rep" |
		tee -a "$mdir/all/runs" | awk '$8 == 1' >>"$mdir/good/runs"
}

bench_model() {
	local n=${BENCH_MODEL_RUNS:-} i tool mdir=$out/model row
	[ -n "$n" ] || { [ "$size" = large ] && n=3 || n=1; }
	mhost=$(grep -m1 -o '^\(Hca\|Ca\)[[:space:]]*[0-9]* "[^"]*"' "$f" | sed 's/.*"\(.*\)"/\1/')
	rm -rf "$mdir"
	mkdir -p "$mdir/all" "$mdir/good"
	: >"$mdir/all/runs"
	: >"$mdir/good/runs"
	for i in $(seq "$n"); do
		measure_model ibnetdiscover on ibnetdiscover
		measure_model ibnetdiscover-o64 on ibnetdiscover -o 64
		measure_model ibscan on "$ibscan" topology --format netfile
		measure_model ibqueryerrors-o64 on ibqueryerrors -o 64
		measure_model ibscan-health on "$ibscan" health
		measure_model ibscan-c2 on "$ibscan" topology --format netfile --max-smps-per-switch 2
		measure_model ibscan-c8 on "$ibscan" topology --format netfile --max-smps-per-switch 8
		measure_model ibscan loss "$ibscan" topology --format netfile
		measure_model ibscan-fixed loss "$ibscan" topology --format netfile --fixed-timeout
	done
	if [ "$size" = large ]; then
		for i in $(seq "${BENCH_RUNS:-7}"); do
			for tool in off zero; do
				measure_model ibscan $tool "$ibscan" topology --format netfile
				measure_model ibnetdiscover-o64 $tool ibnetdiscover -o 64
			done
		done
	fi
	{
		echo
		echo "| $size | $nodes nodes, tools on $mhost, $(cat "$mdir/params" 2>/dev/null), $n rounds | | | | | | | | | |"
		for row in ibnetdiscover-on ibnetdiscover-o64-on ibscan-on ibqueryerrors-o64-on ibscan-health-on ibscan-c2-on ibscan-c8-on ibscan-loss ibscan-fixed-loss; do
			echo "| $size | $row | $(awk -v k=$row '$1 == k {c++; ok += $8} END {printf "%d/%d", ok, c}' "$mdir/all/runs") |" \
				"$(out=$mdir/good stats $row 2 min) | $(out=$mdir/good stats $row 2 median) |" \
				"$(out=$mdir/all stats $row 3 median) | $(out=$mdir/all stats $row 4 median) | $(out=$mdir/all stats $row 4 max) |" \
				"$(out=$mdir/all stats $row 5 max) $(awk -v k=$row '$1 == k && $5 > m {m = $5; w = $9} END {print w}' "$mdir/all/runs") |" \
				"$(out=$mdir/all stats $row 6 max) | $(out=$mdir/all stats $row 7 median) | $(out=$mdir/all stats $row 10 max) |"
		done
		echo "| $size | ibscan / ibnetdiscover | | | $(ratio "$(out=$mdir/good stats ibscan-on 2 median)" "$(out=$mdir/good stats ibnetdiscover-on 2 median)") | | | | | | |"
		echo "| $size | ibscan / ibnetdiscover -o 64 | | | $(ratio "$(out=$mdir/good stats ibscan-on 2 median)" "$(out=$mdir/good stats ibnetdiscover-o64-on 2 median)") | | | | | | |"
		echo "| $size | health / ibqueryerrors -o 64 | | | $(ratio "$(out=$mdir/good stats ibscan-health-on 2 median)" "$(out=$mdir/good stats ibqueryerrors-o64-on 2 median)") | | | | | | |"
		# Per round (the i-th run of each): a target that held in every round, or only in the median.
		echo "| $size | per round: ibscan / ibnetdiscover; / -o 64; health / ibqueryerrors -o 64 | | | $(out=$mdir/good pairs ibscan-on ibnetdiscover-on); $(out=$mdir/good pairs ibscan-on ibnetdiscover-o64-on); $(out=$mdir/good pairs ibscan-health-on ibqueryerrors-o64-on) | | | | | | |"
		echo "| $size | 1% lost: adaptive / fixed timeouts | | | $(ratio "$(out=$mdir/good stats ibscan-loss 2 median)" "$(out=$mdir/good stats ibscan-fixed-loss 2 median)"), per round $(out=$mdir/good pairs ibscan-loss ibscan-fixed-loss) | | | | | | |"
		if [ "$size" = large ]; then
			for tool in ibscan ibnetdiscover-o64; do
				echo "| $size | $tool: layer at zero / no layer | | | $(ratio "$(out=$mdir/good stats $tool-zero 2 median)" "$(out=$mdir/good stats $tool-off 2 median)") ($(out=$mdir/good stats $tool-zero 2 median) s / $(out=$mdir/good stats $tool-off 2 median) s), per round $(out=$mdir/good pairs $tool-zero $tool-off) | | | | | | |"
			done
		fi
	} >>"$out/model.md"
}

# The modelled rows alone (BENCH_MODEL_ONLY=1): the simulator and the reference, then bench_model.
bench_model_only() {
	f=$(gen "$size")
	nodes=$(grep -m1 '^# nodes' "$f" | awk '{print $3}' | tr -d :)
	links=$(grep -m1 '^# links' "$f" | awk '{print $3}' | tr -d :)
	sim_start "$f" || { echo "$size: the simulator did not come up" >>"$out/errors"; return; }
	echo "bench: $size: $nodes nodes, subnet up in ${SIM_UP_SECONDS}s (modelled rows only)" >&2
	reference && bench_model
	sim_stop
}

: >"$out/results.md"
: >"$out/errors"
: >"$out/lossy.md"
: >"$out/routes.md"
: >"$out/model.md"
{
	echo "# ibscan bench, $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -r)"
	echo
	echo "| fabric | nodes | links | SM up s | tool | MADs | wall min s | wall median s | max RSS MB |"
	echo "|---|---|---|---|---|---|---|---|---|"
} >>"$out/results.md"
# bench_routes: issue 27's targets, each as the issue states it. On the
# large tree (2,900 nodes), every forwarding table read by `ibscan routes
# --dump` and by dump_lfts, alternately, at zero latency (BENCH_RUNS,
# default 5) and under the fabric model (tools/bench/fabricmodel.c, its
# defaults, from the first host, as the modelled rows; BENCH_ROUTES_MODEL_RUNS,
# default 3); a run that does not print every switch's table, or that the
# model could not place or dropped, is an error. Then, at each of
# BENCH_ROUTES_SIZES (default medium large huge: 702, 2,900 and 26,584
# nodes), `routes --check --record` live (its wall time), and `routes
# --check --replay` of that capture (3 runs; CPU user+sys and max RSS), from
# the text and through its index. Then tools/bench/routebench.c (the
# analysis alone, per pair and per destination) at 10, 21 and 42 pods.
# The huge subnet takes about 4 minutes to come up. Into $out/routes.md.
routes_sizes=${BENCH_ROUTES_SIZES:-medium large huge}

# routes_read NAME MODE(zero|model) CMD...: one read of every table on the
# running simulator of $f ($sw switches); "NAME-MODE wall rss" to routes.runs.
routes_read() {
	local name=$1 mode=$2 rc=0 n pre=$SIM_SHIM rep why=
	shift 2
	[ "$mode" = model ] && pre="$fabricmodel:$SIM_SHIM"
	: >"$out/routes.report"
	(
		cd "$SIM_DIR" || exit 1
		[ "$mode" = model ] && export SIM_HOST=$mhost FABRICMODEL_TOPO=$f FABRICMODEL_REPORT=$out/routes.report FABRICMODEL_LABEL=routes
		LD_PRELOAD=$pre exec timeout 1200 /usr/bin/time -f "time %e %M" "$@" >"$out/run.out" 2>"$out/err"
	) || rc=$?
	case $name in
	ibscan) n=$(grep -c '^switch ' "$out/run.out") ;;
	*) n=$(grep -c '^Unicast lids' "$out/run.out") ;;
	esac
	[ "$rc" = 0 ] || why="exit $rc"
	[ "$n" = "$sw" ] || why="${why:+$why, }$n of $sw switches"
	rep=$(cat "$out/routes.report")
	grep -q ' unresolved=[1-9]' <<<"$rep" && why="${why:+$why, }$(grep -o 'unresolved=[0-9]*' <<<"$rep") LIDs the model could not place"
	grep -q ' dropped=[1-9]' <<<"$rep" && echo "$name-$mode $(grep -o 'dropped=[0-9]*' <<<"$rep") (not an error: counted)" >>"$out/routes.notes"
	[ "$mode" = model ] && grep -o 'hop_us=[^ ]* switch_us=[^ ]* ca_us=[^ ]* queue=[^ ]*' <<<"$rep" >"$out/routes.params"
	[ "$mode" = model ] && grep -o ' late_us_mean=[^ ]*' <<<"$rep" | tr -d ' ' >>"$out/routes.late"
	if [ -n "$why" ]; then
		echo "routes $name ($mode): $why" >>"$out/errors"
		return
	fi
	echo "$name-$mode $(grep '^time ' "$out/err" | tail -1 | cut -d' ' -f2-)" >>"$out/routes.runs"
}

# median FILE KEY FIELD: the median of FIELD over FILE's lines whose first word is KEY.
median() {
	awk -v k="$2" -v c="$3" '$1 == k {print $c}' "$1" | sort -g | awk '{v[NR]=$1} END { if (NR) print v[int((NR+1)/2)]; else print "-" }'
}
# per_round A B: the ratio A/B of each round of routes.runs, as "min-max".
per_round() {
	paste -d' ' <(awk -v n="$1" '$1==n {print $2}' "$out/routes.runs") <(awk -v n="$2" '$1==n {print $2}' "$out/routes.runs") |
		awk '$2 > 0 {print $1 / $2}' | sort -g | awk '{v[NR]=$1} END { if (NR) printf "%.2f-%.2f", v[1], v[NR]; else print "-" }'
}

bench_routes() {
	local f i rc t n sw s nodes cap mr=${BENCH_ROUTES_MODEL_RUNS:-3} live
	: >"$out/routes.runs"
	: >"$out/routes.check"
	: >"$out/routes.notes"
	: >"$out/routes.late"
	: >"$out/routes.params"
	: >"$out/routes.sizes"
	for s in $routes_sizes; do
		f=$(gen "$s")
		sw=$(grep -c '^Switch' "$f")
		nodes=$(grep -m1 '^# nodes' "$f" | awk '{print $3}' | tr -d :)
		mhost=$(grep -m1 -o '^\(Hca\|Ca\)[[:space:]]*[0-9]* "[^"]*"' "$f" | sed 's/.*"\(.*\)"/\1/')
		sim_start "$f" || { echo "routes $s: the simulator did not come up" >>"$out/errors"; continue; }
		echo "bench: routes $s: $nodes nodes, subnet up in ${SIM_UP_SECONDS}s" >&2
		if [ "$s" = large ]; then
			for i in $(seq "${BENCH_RUNS:-5}"); do
				routes_read ibscan zero "$ibscan" routes --dump
				routes_read dump_lfts zero dump_lfts
			done
			for i in $(seq "$mr"); do
				routes_read ibscan model "$ibscan" routes --dump
				routes_read dump_lfts model dump_lfts
			done
		fi
		cap=$out/routes-$s.cap
		rm -f "$cap" "$cap.idx"
		rc=0
		(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM /usr/bin/time -f "time %e %U %S %M" "$ibscan" routes --check --record "$cap" >"$out/run.out" 2>"$out/err") || rc=$?
		live=$(grep '^time ' "$out/err" | tail -1 | cut -d' ' -f2)
		sim_stop
		[ "$rc" -le 2 ] || { echo "routes $s: routes --check --record exited $rc" >>"$out/errors"; continue; }
		for t in text idx; do
			[ $t = idx ] && "$ibscan" capture index "$cap"
			for i in 1 2 3; do
				rc=0
				/usr/bin/time -f "time %e %U %S %M" "$ibscan" routes --check --replay "$cap" >"$out/run.out" 2>"$out/err" || rc=$?
				if [ "$rc" -le 2 ]; then
					echo "$s-$t $(grep '^time ' "$out/err" | tail -1 | cut -d' ' -f2- | awk '{print $1, $2 + $3, $4}')" >>"$out/routes.check"
				else
					echo "routes $s: routes --check --replay ($t) exited $rc" >>"$out/errors"
				fi
			done
		done
		echo "$s $nodes $sw ${live:--} $(du -m "$cap" | cut -f1) $(head -1 "$out/run.out" | cut -d'|' -f1)" >>"$out/routes.sizes"
	done
	{
		echo
		echo "Routes (issue 27). Every forwarding table of the large tree, alternately; under the model from $mhost, $(cat "$out/routes.params"); answers late, mean us per run: $(cut -d= -f2 "$out/routes.late" | tr '\n' ' ')"
		echo
		echo "| tool | latency | right runs | wall median s | max RSS MB |"
		echo "|---|---|---|---|---|"
		for t in zero model; do
			for n in ibscan dump_lfts; do
				echo "| $n$([ $n = ibscan ] && echo ' routes --dump') | $([ $t = zero ] && echo 'zero (simulator)' || echo 'fabric model') | $(grep -c "^$n-$t " "$out/routes.runs") | $(median "$out/routes.runs" $n-$t 2) | $(awk -v r="$(median "$out/routes.runs" $n-$t 3)" 'BEGIN { if (r == "-") print "-"; else printf "%.1f", r / 1024 }') |"
			done
			echo "| dump_lfts / ibscan | $t | | $(awk -v a="$(median "$out/routes.runs" dump_lfts-$t 2)" -v b="$(median "$out/routes.runs" ibscan-$t 2)" 'BEGIN { if (b + 0 > 0) printf "%.1fx", a / b; else print "-" }') (per round $(per_round dump_lfts-$t ibscan-$t)) | |"
		done
		[ -s "$out/routes.notes" ] && sed 's/^/    /' "$out/routes.notes"
		echo
		echo "routes --check: recorded live, then replayed from the capture (3 runs each, medians; CPU is user + sys):"
		echo
		echo "| fabric | nodes | switches | live record wall s | capture MB | replay (text) wall s | CPU s | max RSS MB | replay (index) wall s | CPU s | max RSS MB | verdict |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
		while read -r s nodes sw live mb rest; do
			echo "| $s | $nodes | $sw | $live | $mb | $(median "$out/routes.check" $s-text 2) | $(median "$out/routes.check" $s-text 3) | $(awk -v r="$(median "$out/routes.check" $s-text 4)" 'BEGIN { printf "%.1f", r / 1024 }') | $(median "$out/routes.check" $s-idx 2) | $(median "$out/routes.check" $s-idx 3) | $(awk -v r="$(median "$out/routes.check" $s-idx 4)" 'BEGIN { printf "%.1f", r / 1024 }') | $rest |"
		done <"$out/routes.sizes"
		echo
		echo "The analysis alone (tools/bench/routebench.c, a tree built in memory, d-mod-k tables):"
		echo
		for n in 10 21 42; do
			"$root/build/rel/routebench" $n 2>&1 || echo "routes: routebench $n failed" >>"$out/errors"
		done
	} >"$out/routes.md"
}

# ---- The exporter (issue 30) ----
# bench_exporter: on the large tree, `ibscan exporter --walk-every 5` for
# 2 x 5 sweeps (a full walk and counters read, then four counters-only
# sweeps) while /metrics is scraped after each sweep served, beside the reference
# for one sweep's reads: ibqueryerrors and ibqueryerrors -o 64 (every port's
# PortCounters), alternately. Per sweep: its duration as the exporter's own
# ibscan_sweep_duration_seconds says, and whether it walked; per
# scrape: curl's time and the page's size, plain and gzip; the exporter's RSS and peak RSS
# at the end (/proc). Then others_pattern on the same simulator and
# exporter_soak on the small fabric. Writes $out/exporter.md.
bench_exporter() {
	local f n=10 i pid port log=$out/exporter.err prom=$out/exporter.prom want t full ts last st sz rss hwm tool rc r load
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	f=$(gen large)
	sim_start "$f" || { echo "bench: exporter: the simulator did not come up" >>"$out/errors"; return; }
	: >"$out/exp-runs"
	: >"$log"
	(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM exec "$ibscan" exporter --listen 127.0.0.1:0 --interval 1 \
		--walk-every 5 2>>"$log") &
	pid=$!
	for i in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.1; done
	port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$log")
	if [ -z "$port" ]; then
		echo "exporter ibscan: did not start: $(head -1 "$log")" >>"$out/errors"
		kill "$pid" 2>/dev/null
		sim_stop
		return
	fi
	last=
	for want in $(seq "$n"); do
		# Wait (at most 120 s) for the next sweep served (its end time changes), then scrape once.
		for i in $(seq 1200); do
			curl -s -o "$prom" "http://127.0.0.1:$port/metrics" || true
			ts=$(awk '/^ibscan_sweep_timestamp_seconds /{print $2}' "$prom" 2>/dev/null)
			[ -n "$ts" ] && [ "$ts" != "$last" ] && break
			sleep 0.1
		done
		[ -n "$ts" ] && [ "$ts" != "$last" ] || { echo "exporter ibscan: sweep $want did not end in 120 s" >>"$out/errors"; break; }
		last=$ts
		t=$(awk '/^ibscan_sweep_duration_seconds /{print $2}' "$prom")
		full=$(awk '/^ibscan_sweep_full_walk /{print $2}' "$prom")
		read -r st sz <<<"$(curl -s -o "$prom.scrape" -w '%{time_total} %{size_download}' "http://127.0.0.1:$port/metrics")"
		echo "sweep-$([ "$full" = 1 ] && echo walk || echo counters) $t 0 0" >>"$out/exp-runs"
		echo "scrape $st 0 $sz" >>"$out/exp-runs"
		# As Prometheus scrapes: Accept-Encoding: gzip (the page deflated once per sweep).
		read -r st sz <<<"$(curl -s -H 'Accept-Encoding: gzip' -o "$prom.scrape.gz" -w '%{time_total} %{size_download}' "http://127.0.0.1:$port/metrics")"
		echo "scrape-gzip $st 0 $sz" >>"$out/exp-runs"
	done
	rss=$(awk '/^VmRSS/{print $2}' /proc/$pid/status 2>/dev/null)
	hwm=$(awk '/^VmHWM/{print $2}' /proc/$pid/status 2>/dev/null)
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	for i in $(seq 5); do
		for tool in ibqueryerrors "ibqueryerrors -o 64"; do
			rc=0
			(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM /usr/bin/time -f "time %e %M" $tool >/dev/null 2>"$out/err") || rc=$?
			read -r t r <<<"$(grep '^time ' "$out/err" | tail -1 | cut -d' ' -f2-)"
			if [ "$rc" = 0 ]; then
				echo "${tool// /} ${t:-nan} ${r:-0} 0" >>"$out/exp-runs"
			else
				echo "exporter $tool: exit $rc" >>"$out/errors"
			fi
		done
	done
	others_pattern
	sim_stop
	exporter_soak
	{
		echo
		echo "Exporter (large tree, $(grep -m1 '^# nodes' "$f" | awk '{print $3}' | tr -d :) nodes; load average at the start $load): $n sweeps, --walk-every 5, a scrape after each; RSS at the end ${rss:-?} kB, peak ${hwm:-?} kB"
		echo
		echo "| what | count | min s | median s | max s | size B (median scrape) |"
		echo "|---|---|---|---|---|---|"
		for k in sweep-walk sweep-counters scrape scrape-gzip ibqueryerrors ibqueryerrors-o64 ibnetdiscover perfquery-switches perfquery-port; do
			awk -v k=$k '$1 == k { print $2, $4 }' "$out/exp-runs" | sort -n | awk -v k=$k '{ v[NR] = $1; z[NR] = $2 } END {
				if (!NR) { printf "| %s | 0 | - | - | - | - |\n", k; exit }
				printf "| %s | %d | %.3f | %.3f | %.3f | %s |\n", k, NR, v[1], v[int((NR + 1) / 2)], v[NR], k ~ /^scrape/ ? z[int((NR + 1) / 2)] : "-" }'
		done
		echo "| counters sweep / ibqueryerrors -o 64 | | | $(ratio "$(stats_of sweep-counters)" "$(stats_of ibqueryerrors-o64)") | | |"
		cat "$out/others.md"
		cat "$out/soak.md"
	} >"$out/exporter.md"
}

# others_pattern: on the simulator that is up (the large tree), what
# treydock/infiniband_exporter runs for one collection (collectors/switch.go,
# collectors/perfquery.go): ibnetdiscover once, then for each switch, one
# after another (--perfquery.max-concurrent defaults to 1),
# `perfquery -l -x -G GUID P1,P2,...` over its linked ports (its HCA
# collector is off by default). Then `perfquery -x LID PORT` for a random
# sample of BENCH_PERFQ_SAMPLE (500) of all linked ports, extrapolated to
# all of them (labelled so). guilbaults/infiniband-exporter runs
# ibqueryerrors (the rows above). Rows go to $out/exp-runs; the summary to
# $out/others.md.
others_pattern() {
	local t0 t1 rc=0 sw=0 bad=0 guid ports lid p nports sample=${BENCH_PERFQ_SAMPLE:-500} total
	: >"$out/others.md"
	t0=$(date +%s.%N)
	(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM ibnetdiscover >"$out/others.ibnd" 2>"$out/err") || rc=$?
	t1=$(date +%s.%N)
	[ "$rc" = 0 ] || { echo "exporter ibnetdiscover: exit $rc" >>"$out/errors"; return; }
	echo "ibnetdiscover $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') 0 0" >>"$out/exp-runs"
	# "GUID ports" per switch, and "LID PORT" per linked port (switch or CA).
	awk '/^Switch/ { sw = 1; g = $3; gsub(/"|S-/, "", g); lid = $0; sub(/.* lid /, "", lid); sub(/ .*/, "", lid); if (n) print "S", pg, pl; pg = "0x" g; pl = ""; n = 1; next }
		/^(Ca|Rt)/ { sw = 0; next }
		/^\[/ { p = $1; sub(/^\[/, "", p); sub(/\].*/, "", p)
			if (sw) { pl = pl (pl == "" ? "" : ",") p; print "P", lid, p }
			else { l = $0; sub(/.*# lid /, "", l); sub(/ .*/, "", l); print "P", l, p } }
		END { if (n) print "S", pg, pl }' "$out/others.ibnd" >"$out/others.list"
	t0=$(date +%s.%N)
	while read -r guid ports; do
		sw=$((sw + 1))
		(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM perfquery -l -x -G "$guid" "$ports" >/dev/null 2>&1) || bad=$((bad + 1))
	done < <(awk '$1 == "S" { print $2, $3 }' "$out/others.list")
	t1=$(date +%s.%N)
	[ "$bad" = 0 ] || echo "exporter perfquery -l -x -G: $bad of $sw switches failed" >>"$out/errors"
	echo "perfquery-switches $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') 0 $sw" >>"$out/exp-runs"
	nports=$(grep -c '^P ' "$out/others.list")
	bad=0
	: >"$out/perfq.times"
	while read -r lid p; do
		t0=$(date +%s.%N)
		(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM perfquery -x "$lid" "$p" >/dev/null 2>&1) || bad=$((bad + 1))
		t1=$(date +%s.%N)
		echo "perfquery-port $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') 0 0" >>"$out/exp-runs"
	done < <(awk '$1 == "P" { print $2, $3 }' "$out/others.list" | shuf -n "$sample" --random-source=<(yes))
	[ "$bad" = 0 ] || echo "exporter perfquery -x LID PORT: $bad of $sample ports failed" >>"$out/errors"
	total=$(awk '$1 == "perfquery-port" { s += $2; n++ } END { if (n) printf "%.0f", s / n * '"$nports"' }' "$out/exp-runs")
	{
		echo
		echo "The other exporters' command pattern on the same simulator, same run: ibnetdiscover once; treydock's one \`perfquery -l -x -G GUID ports\` per switch, $sw switches one after another (perfquery-switches: the whole loop, one row); \`perfquery -x LID PORT\` for a random sample of $sample of the $nports linked ports (perfquery-port: one row per port)."
		echo "Per port for all $nports ports, one after another: extrapolated from the sample, ${total:-?} s (not measured in full)."
		echo "One collection as treydock's exporter does it: ibnetdiscover + perfquery-switches = $(awk -v a="$(stats_of ibnetdiscover)" -v b="$(stats_of perfquery-switches)" 'BEGIN { printf "%.1f", a + b }') s, beside one ibscan sweep with a walk: $(awk -v a="$(stats_of sweep-walk)" 'BEGIN { printf "%.1f", a }') s (median)."
	} >"$out/others.md"
}

# exporter_soak: issue 30's soak. On the small fabric, `ibscan exporter
# --interval 0.05 --walk-every 3` for 1,000 sweeps; at sweep 10 and every
# 100 after, VmRSS and the open fds over 20 looks 10 ms apart (three
# sweeps or more, so one with a walk): the highest RSS (where the sweep
# stands moves it by megabytes), the least fd count (a sweep holds the umad
# fds only while it runs). Flat: the median RSS of the samples at sweeps
# 600-1000 within 1,024 kB of the median at 10-300 (a leak of 3 kB a sweep
# shows; one sample's spike does not), the same fd count at every sample;
# else an error. Writes $out/soak.md.
exporter_soak() {
	local f=$root/fixtures/fabrics/fattree2-small pid port log=$out/soak.err i n next=10 rss fds k m bad= t0 t1
	: >"$out/soak.md"
	: >"$out/soak.rows"
	sim_start "$f" || { echo "exporter ibscan soak: the simulator did not come up" >>"$out/errors"; return; }
	: >"$log"
	(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM exec "$ibscan" exporter --listen 127.0.0.1:0 --interval 0.05 \
		--walk-every 3 --deadline 10 2>>"$log") &
	pid=$!
	for i in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.1; done
	port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$log")
	t0=$(date +%s)
	while [ -n "$port" ] && [ "$next" -le 1000 ]; do
		n=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^ibscan_exporter_sweeps_total /{print $2}')
		if [ "${n:-0}" -ge "$next" ] 2>/dev/null; then
			m=99999 rss=0
			for k in $(seq 20); do
				fds=$(ls /proc/$pid/fd | wc -l)
				[ "$fds" -lt "$m" ] && m=$fds
				k=$(awk '/^VmRSS/{print $2}' /proc/$pid/status)
				[ "${k:-0}" -gt "$rss" ] && rss=$k
				sleep 0.01
			done
			echo "$n $rss $m" >>"$out/soak.rows"
			next=$(((next == 10 ? 0 : next) + 100))
		fi
		[ $(($(date +%s) - t0)) -lt 600 ] || break
		sleep 0.05
	done
	t1=$(date +%s)
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	sim_stop
	[ "$(wc -l <"$out/soak.rows")" = 11 ] || bad="only $(wc -l <"$out/soak.rows") of 11 samples in $((t1 - t0)) s (exporter: $(head -1 "$log"))"
	# The medians: of the first four samples (sweeps 10-300) and of the last five (600-1000).
	[ -z "$bad" ] && bad=$(awk -v ma="$(head -4 "$out/soak.rows" | cut -d' ' -f2 | sort -n | awk '{ v[NR] = $1 } END { print (v[2] + v[3]) / 2 }')" \
		-v mb="$(tail -5 "$out/soak.rows" | cut -d' ' -f2 | sort -n | sed -n 3p)" 'NR == 1 { f = $3 }
		$3 != f { printf "%d fds at sweep %d (sweep 10: %d); ", $3, $1, f }
		END { if (mb > ma + 1024) printf "RSS grew: median %d kB at sweeps 600-1000, %d kB at 10-300; ", mb, ma }' "$out/soak.rows")
	[ -z "$bad" ] || echo "exporter ibscan soak: not flat: $bad" >>"$out/errors"
	{
		echo
		echo "Soak (fattree2-small, 111 nodes, live through the simulator): 1,000 sweeps at --interval 0.05 --walk-every 3 in $((t1 - t0)) s; flat = the median RSS at sweeps 600-1000 within 1,024 kB of the median at 10-300, and the same open fd count throughout: $([ -z "$bad" ] && echo flat || echo "NOT flat: $bad")"
		echo
		echo "| sweep | VmRSS kB (highest of 20 looks) | open fds (least of 20) |"
		echo "|---|---|---|"
		awk '{ printf "| %d | %d | %d |\n", $1, $2, $3 }' "$out/soak.rows"
	} >"$out/soak.md"
}

# stats_of NAME: the median wall time of NAME's runs in $out/exp-runs.
stats_of() {
	awk -v k="$1" '$1 == k { print $2 }' "$out/exp-runs" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}

for size in $sizes; do
	if [ "$size" = routes ]; then
		[ "${BENCH_MODEL_ONLY:-0}" = 1 ] || bench_routes
		continue
	fi
	if [ "$size" = lossy ]; then
		[ "${BENCH_MODEL_ONLY:-0}" = 1 ] || bench_lossy
		continue
	fi
	if [ "$size" = exporter ]; then
		[ "${BENCH_MODEL_ONLY:-0}" = 1 ] || bench_exporter
		continue
	fi
	if [ "${BENCH_MODEL_ONLY:-0}" = 1 ]; then
		case " $model_sizes " in *" $size "*) bench_model_only ;; esac
		continue
	fi
	f=$(gen "$size")
	: >"$out/runs"
	nodes=$(grep -m1 '^# nodes' "$f" | awk '{print $3}' | tr -d :)
	links=$(grep -m1 '^# links' "$f" | awk '{print $3}' | tr -d :)
	runs=$(runs_for "$size")
	sim_start "$f" || { echo "$size: the simulator did not come up" >>"$out/errors"; continue; }
	echo "bench: $size: $nodes nodes, subnet up in ${SIM_UP_SECONDS}s" >&2
	reference || { sim_stop; continue; }
	for i in $(seq "$runs"); do
		measure ibscan "$ibscan" topology --format netfile
		measure ibnetdiscover ibnetdiscover
		measure "ibnetdiscover-o64" ibnetdiscover -o 64
	done
	for i in $(seq "$runs"); do
		measure "ibscan-health" "$ibscan" health
		measure ibqueryerrors ibqueryerrors
		measure "ibqueryerrors-o64" ibqueryerrors -o 64
	done
	rm -f "$out/$size.cap.idx"
	# The same output as the live rows (netfile): replay and live compared like for like.
	(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM "$ibscan" topology --format netfile --record "$out/$size.cap" -o "$out/$size.live.txt" 2>/dev/null)
	# Replay from the text, then through the index `capture index` writes.
	for i in $(seq "$runs"); do measure_replay ibscan-replay; done
	"$ibscan" capture index "$out/$size.cap"
	for i in $(seq "$runs"); do measure_replay ibscan-replay-idx; done
	for i in $(seq "$runs"); do measure_draw; done
	if [ "$size" = large ]; then
		(cd "$SIM_DIR" && LD_PRELOAD=$SIM_SHIM "$root/build/rel/rawrate" 100000 32) >"$out/rawrate" 2>/dev/null || true
		for w in 1 4 16 32 64 128; do
			for i in $(seq "$runs"); do
				measure "ibscan-w$w" "$ibscan" topology --window "$w" --format netfile
			done
		done
	fi
	case " $model_sizes " in *" $size "*) bench_model ;; esac
	sim_stop
	for tool in ibscan ibnetdiscover ibnetdiscover-o64 ibscan-health ibqueryerrors ibqueryerrors-o64 ibscan-replay ibscan-replay-idx ibscan-dot dot-layout ibscan-svg; do
		echo "| $size | $nodes | $links | $SIM_UP_SECONDS | $tool | $(stats $tool 4 median) | $(stats $tool 2 min) | $(stats $tool 2 median) | $(awk -v k="$(stats $tool 3 max)" 'BEGIN{if (k=="-") print "-"; else printf "%.1f", k/1024}') |" >>"$out/results.md"
	done
	{
		echo "| $size | | | | ratios | MADs $(ratio "$(stats ibscan 4 median)" "$(stats ibnetdiscover 4 median)") | vs default $(ratio "$(stats ibscan 2 median)" "$(stats ibnetdiscover 2 median)") | vs -o 64 $(ratio "$(stats ibscan 2 median)" "$(stats ibnetdiscover-o64 2 median)") | RSS $(ratio "$(stats ibscan 3 max)" "$(stats ibnetdiscover 3 max)") |"
		echo "| $size | | | | ibscan/-o 64 per round | | | $(pairs ibscan ibnetdiscover-o64) | |"
		echo "| $size | | | | health/ibqueryerrors | | | $(ratio "$(stats ibscan-health 2 median)" "$(stats ibqueryerrors 2 median)") | |"
		echo "| $size | | | | health/ibqueryerrors -o 64 | | | $(ratio "$(stats ibscan-health 2 median)" "$(stats ibqueryerrors-o64 2 median)") | |"
		echo "| $size | | | | health/ibqueryerrors -o 64 per round | | | $(pairs ibscan-health ibqueryerrors-o64) | |"
		echo "| $size | | | | drawing: nodes drawn, dot -Tsvg s (target < 30 s at large) | | | $(cat "$out/ibscan-svg.nodes" 2>/dev/null || echo -) nodes, $(stats dot-layout 2 median) s | |"
		echo "| $size | | | | replay/live (text, index) | | | $(ratio "$(stats ibscan-replay 2 median)" "$(stats ibscan 2 median)"), $(ratio "$(stats ibscan-replay-idx 2 median)" "$(stats ibscan 2 median)") | |"
		# Issue 15's target: replay holds no more than the live walk it recorded (max RSS, medians; max of replay against min of live).
		echo "| $size | | | | replay/live max RSS (text, index; worst run against best) | | | | $(ratio "$(stats ibscan-replay 3 median)" "$(stats ibscan 3 median)"), $(ratio "$(stats ibscan-replay-idx 3 median)" "$(stats ibscan 3 median)") ($(ratio "$(stats ibscan-replay 3 max)" "$(stats ibscan 3 min)"), $(ratio "$(stats ibscan-replay-idx 3 max)" "$(stats ibscan 3 min)")) |"
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
	if [ -s "$out/errors" ]; then
		echo
		echo "Errors: $(wc -l <"$out/errors") runs failed or answered wrong, left out of the figures:"
		echo
		sed 's/^/    /' "$out/errors"
	fi
	cat "$out/lossy.md"
	[ -s "$out/routes.md" ] && cat "$out/routes.md"
	[ -s "$out/exporter.md" ] && cat "$out/exporter.md"
	if [ -s "$out/model.md" ]; then
		echo
		echo "Modelled fabric (tools/bench/fabricmodel.c; docs/performance.md, \"A fabric model\"): wall times of the runs that answered right; MADs, drops and the most at one switch of every run"
		echo
		echo "| fabric | tool | right/runs | wall min s | wall median s | MADs sent | dropped median | dropped max | most at one switch at once (where) | most in flight through one switch | timed out (status 110) | answers late, mean us (worst run) |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
		grep -v '^$' "$out/model.md"
	fi
} >>"$out/results.md"
cat "$out/results.md"
if grep -q '^[a-z]* ibscan\|reference:\|did not come up' "$out/errors" || grep -q '| - | - | - |' "$out/results.md"; then
	echo "bench: ibscan failed or answered wrong, or a tool has no good run (above): these figures do not stand" >&2
	exit 1
fi
