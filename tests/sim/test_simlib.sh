#!/usr/bin/env bash
# shellcheck disable=SC2016 # the bash -c '...' scripts take their values as "$1"...
# test_simlib.sh: simulator checks of the bundled fabrics and of simlib.sh.
# Needs ibsim-utils, libumad2sim0, opensm and infiniband-diags; fails (never
# skips) without them.  For every fixtures/fabrics/* file: ibsim loads it,
# opensm reaches SUBNET UP, ibnetdiscover sees every node and link, and its
# normalized output equals the expected one.  Then console commands, stopping
# opensm, killing ibsim, and cleanup (also on a failing test and on SIGTERM).
# Usage: tests/sim/test_simlib.sh   (ends with "N passed, N failed")
set -u -o pipefail
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../done.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
fabrics=$root/fixtures/fabrics
samples=$here/samples
# shellcheck source=tests/sim/simlib.sh
. "$here/simlib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibscan-simtest.XXXXXX")
trap 'sim_stop; rm -rf "$tmp"' EXIT

pass=0 fail=0
ok() { pass=$((pass + 1)); printf 'ok   %s\n' "$1"; }
not_ok() { fail=$((fail + 1)); printf 'FAIL %s\n' "$1"; }
expect() { # expect NAME CMD...
	local name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then ok "$name"; else not_ok "$name"; sed 's/^/     /' "$tmp/out" | tail -n 30; fi
}
count() { grep -c "^$1 " "$2"; }
gone() { # gone PID...: none of them is alive
	local p
	for p in "$@"; do
		[[ -n $p ]] || continue
		kill -0 "$p" 2>/dev/null && return 1
	done
	return 0
}
fails() { ! "$@"; }
# Capture client output before grepping it: `client | grep -q` can kill the
# client with SIGPIPE, and ibsim keeps the slot of a client killed by a signal.
from_node() { grep -q "Initiated from node $1" <<<"$(sim_run ibnetdiscover)"; }
perf_is() { grep -q "SymbolErrorCounter:\.*$3\$" <<<"$(sim_run perfquery "$1" "$2")"; }
nodedesc_is() { grep -q "$2" <<<"$(sim_run smpquery nodedesc "$1")"; }
clients_are() { [[ $(sim_attached | grep -c "^Client") == "$1" ]]; }
discover() { # discover NAME: ibnetdiscover -> $tmp/NAME.ibnd, $tmp/NAME.norm
	sim_run ibnetdiscover >"$tmp/$1.ibnd" 2>"$tmp/$1.err" &&
		"$here/ibnd2norm.py" -q "$tmp/$1.ibnd" -o "$tmp/$1.norm"
}

# --- every bundled fabric ---------------------------------------------------
for f in "$fabrics"/*; do
	name=$(basename "$f")
	[[ $name == *.md ]] && continue
	if ! sim_start "$f"; then
		not_ok "$name: sim_start"
		continue
	fi
	ok "$name: SUBNET UP in ${SIM_UP_SECONDS}s, sminfo MASTER"
	pids=("$SIM_IBSIM_PID" "$SIM_OSM_PID" "$SIM_FIFO_PID")
	dir=$SIM_DIR
	if discover "$name"; then
		ok "$name: ibnetdiscover"
		want_nodes=$(sed -n 's/^# nodes \([0-9]*\):.*/\1/p' "$f")
		want_links=$(sed -n 's/^# links \([0-9]*\):.*/\1/p' "$f")
		if [[ $name == net.2sw2path4hca ]]; then
			want_nodes=6 want_links=6
		fi
		expect "$name: $want_nodes nodes, $want_links links" \
			test "$(count node "$tmp/$name.norm") $(count link "$tmp/$name.norm")" = "$want_nodes $want_links"
		if [[ -r $samples/$name.norm ]]; then
			expected=$samples/$name.norm
		else
			"$here/ibnd2norm.py" -q "$f" -o "$tmp/$name.expected"
			expected=$tmp/$name.expected
		fi
		# A generated fabric file that leaves the LIDs to opensm (lid 0 on its ports, as
		# tools/fixtures/genbigswitch.py writes) is compared without the CA ports' LIDs.
		if grep -q '	# ".*" lid 0 ' "$f"; then
			awk '$1 == "port" { $5 = "-" } { print }' "$expected" >"$tmp/$name.exp-nolid"
			awk '$1 == "port" { $5 = "-" } { print }' "$tmp/$name.norm" >"$tmp/$name.norm-nolid"
			expected=$tmp/$name.exp-nolid
			cp "$tmp/$name.norm-nolid" "$tmp/$name.norm"
		fi
		expect "$name: topology equals $(basename "$expected")" \
			"$here/compare.sh" "$expected" "$tmp/$name.norm"
		expect "$name: no shim warning on the client's stderr" test ! -s "$tmp/$name.err"
	else
		not_ok "$name: ibnetdiscover"
		cat "$tmp/$name.err"
	fi
	sim_stop
	expect "$name: sim_stop killed ibsim, opensm, FIFO holder" gone "${pids[@]}"
	expect "$name: sim_stop removed the temp dir" test ! -e "$dir"
done

# --- console: Unlink / ReLink / errors on the degraded fabric ---------------
if sim_start "$fabrics/degraded" H-node0008; then
	expect "SIM_HOST=H-node0008: ibnetdiscover starts from that HCA" from_node 0002c90300f00020
	n=$(sim_subnet_up_count)
	expect "console: Unlink" sim_console 'Unlink "S-leaf01"[3]'
	expect "console: Dump succeeds" sim_ibsim_dump S-leaf01
	expect "console: Dump of all nodes succeeds" sim_ibsim_dump
	expect "console: port is Down/Polling at once" test "$(sim_port_state S-leaf01 3)" = "Down/Polling"
	discover unlinked
	expect "console: ibnetdiscover sees 13 nodes, 15 links after Unlink" \
		test "$(count node "$tmp/unlinked.norm") $(count link "$tmp/unlinked.norm")" = "13 15"
	expect "console: opensm sweeps again after Unlink" sim_wait_subnet_up $((n + 1)) 30
	expect "console: ReLink" sim_console 'ReLink "S-leaf01"[3]'
	expect "console: opensm sweeps again after ReLink" sim_wait_subnet_up $((n + 2)) 30
	expect "console: port Active again" test "$(sim_port_state S-leaf01 3)" = "Active/LinkUp"
	discover relinked
	expect "console: topology back to the original" "$here/compare.sh" "$samples/degraded.norm" "$tmp/relinked.norm"
	expect "console: unknown node is an error" fails sim_console 'Unlink "S-nosuch"[1]'
	expect "console: unknown command is an error" fails sim_console Frobnicate
	expect "console: PerformanceSet" sim_console 'PerformanceSet "S-leaf01"[1] PortCounters.SymbolErrorCounter=5000'
	expect "console: perfquery sees the counter" perf_is 1 1 5000
	expect "console: only opensm stays attached" clients_are 1
	osm=$SIM_OSM_PID
	sim_stop_opensm
	expect "sim_stop_opensm: opensm gone" gone "$osm"
	expect "sim_stop_opensm: SMPs still answered" nodedesc_is 1 leaf01
	ib=$SIM_IBSIM_PID
	sim_kill_ibsim
	expect "sim_kill_ibsim: ibsim gone" gone "$ib"
	expect "sim_kill_ibsim: console reports it" fails sim_console Dump
	pids=("$SIM_FIFO_PID") dir=$SIM_DIR
	sim_stop
	expect "sim_stop after kill: everything gone" gone "${pids[@]}"
	expect "sim_stop after kill: temp dir removed" test ! -e "$dir"
else
	not_ok "degraded: sim_start for console tests"
fi

# --- cleanup when a test script fails or is killed --------------------------
cat >"$tmp/child.sh" <<'EOF'
set -euo pipefail
. "$1"
sim_start "$2"
echo "$SIM_DIR $SIM_IBSIM_PID $SIM_OSM_PID $SIM_FIFO_PID" >"$3"
if [[ $4 == fail ]]; then false; fi
sleep 600 &
echo "ready $!" >>"$3"
wait $!
EOF
bash "$tmp/child.sh" "$here/simlib.sh" "$fabrics/degraded" "$tmp/child1" fail
rc=$?
read -r d a b c <"$tmp/child1"
expect "failing test (set -e): exit status kept" test "$rc" = 1
expect "failing test (set -e): processes gone" gone "$a" "$b" "$c"
expect "failing test (set -e): temp dir removed" test ! -e "$d"

bash "$tmp/child.sh" "$here/simlib.sh" "$fabrics/degraded" "$tmp/child2" wait &
child=$!
sim_poll 60 grep -qs ready "$tmp/child2"
read -r d a b c <"$tmp/child2"
sleeper=$(sed -n 's/^ready //p' "$tmp/child2")
kill -TERM "$child"
wait "$child"
rc=$?
expect "SIGTERM: exit status 143" test "$rc" = 143
expect "SIGTERM: processes gone" gone "$a" "$b" "$c"
expect "SIGTERM: temp dir removed" test ! -e "$d"
kill "$sleeper" 2>/dev/null || true

# --- two simulators at once ---------------------------------------------------
for i in 1 2; do
	bash -c '. "$1"; sim_start "$2" && sim_run ibnetdiscover >"$3" 2>/dev/null' _ \
		"$here/simlib.sh" "$fabrics/fattree2-small" "$tmp/par$i.ibnd" &
done
wait
expect "parallel simulators: both discovered 111 nodes" bash -c '
	for i in 1 2; do [[ $("$1/ibnd2norm.py" -q "$2/par$i.ibnd" | grep -c "^node ") == 111 ]] || exit 1; done' _ "$here" "$tmp"

# --- missing fabric file fails loudly ------------------------------------------
expect "sim_start: unreadable fabric fails with a message" \
	bash -c '. "$1"; ! sim_start /nonexistent/fabric 2>"$2/err" && grep -q "cannot read" "$2/err"' _ "$here/simlib.sh" "$tmp"

printf '%d passed, %d failed\n' "$pass" "$fail"
((fail == 0)) || exit 1
t_done
