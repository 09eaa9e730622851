#!/bin/bash
# The one-shot check for the first machine with an HCA: runs the reference tools and ibscan side by side, one verdict line per check.
#
# Usage: tools/hwcheck/hwcheck.sh [--peer HOST [--peer-ca CA] [--peer-port N] [--peer-ibscan PATH]]
#                         [--ibscan PATH] [-C CA] [-P PORT] [--sysfs DIR]
#                         [--perftest-port N] [--ibscan-port N] [--counter-interval S]
#                         [--lat-iters N] [--bw-iters N] [--lat-tol US] [--bw-tol PCT]
#                         [--only CHECK[,CHECK...]]
#
# Run as root on a host with an active InfiniBand or RoCE port. The
# InfiniBand checks run on the InfiniBand port that holds the SMI (-C/-P,
# else the first active one: a RoCE port before it, or the GSI half of a
# planarized SMI/GSI pair, is passed over); without one each says "SKIP
# NAME: no InfiniBand port". The probe checks (perftest vs ibscan ping) run
# on -C/-P or the first active port of any kind, against --peer HOST
# (reached with ssh as root; its device, port and ibscan given by --peer-ca,
# --peer-port and --peer-ibscan, by default the same as here), else over
# this HCA's loopback. perftest and ibscan listen on their own TCP ports
# (--perftest-port, default 18516; --ibscan-port, default 18517); each
# listener is waited for (ss), not slept on, and stopped afterwards, on the
# peer too. The latency probes run --lat-iters round trips (default
# 10000), the bandwidth probe --bw-iters 64 KiB writes (default 5000);
# ibscan's median latency must be within --lat-tol microseconds of
# perftest's (default 0.3), its bandwidth within --bw-tol percent (default
# 5), each as a factor either way: a bandwidth at most 1 + PCT/100 times
# perftest's and at least perftest's divided by that (--bw-tol 200: within
# a factor of 3), a median at most US above perftest's and at least
# perftest's divided by the same factor (1 + US / perftest's median), so
# that a figure too low fails as one too high does, at any tolerance.
# Neither tolerance is tighter than twice perftest's own spread over two
# runs (the bandwidth's in percent of the smaller run). Every check prints
# one line, "PASS name: detail", "FAIL name: detail" or "SKIP name: why";
# the last line counts them. Exit 0: every
# check that ran passed; 1: a check failed; 2: this host cannot run the
# check (no RDMA device, not root, a tool missing), said on stderr within
# seconds. --only runs the checks named and prints nothing for the others
# (what a check needs, such as the walk the counters are read after, still
# runs): the InfiniBand checks vl15 topology walk-time counters
# counters-ext counters-rate path routes sm port-states degraded gids
# umad-permission sigint-walk; the probe checks local local-port
# ping-latency ping-read ping-atomic ping-bandwidth sigint-ping teardown.
#
# Read-only towards the fabric: no SMP Set is sent and no counter is reset
# (no perfquery -r/-R, no ibscan counters --reset-counters, no ibportstate;
# smpquery only reads GUIDInfo; tests/cli/t_hwcheck.sh checks the script).
set -u -o pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
ibscan=$root/ibscan
py=$root/tools/hwcheck/hwcheck.py
peer='' peer_ca='' peer_port='' peer_ibscan=''
ca='' port='' sysfs=/sys
pt_port=18516 ibs_port=18517
interval=2       # ibscan counters --interval for the rate check, seconds
lat_iters=10000  # round trips of each latency probe (ibscan ping and perftest alike)
bw_iters=5000    # 64 KiB RDMA writes of the bandwidth probe
lat_tol_us=0.3   # ibscan's median latency within this above perftest's t_typical, as far below as a factor
bw_tol_pct=5     # ibscan's bandwidth within this percentage of ib_write_bw's average, as a factor either way
rate_tol_pct=10  # ibscan counters --interval's rate within this of perfquery's over the same span
walk_slack=1.5   # ibscan's walk at most this many times ibnetdiscover's, plus 1 s
only=            # --only: the checks to run, space-separated (none: all)
ib_checks=(vl15 topology walk-time counters counters-ext counters-rate path routes sm port-states degraded gids umad-permission sigint-walk)
probe_checks=(local local-port ping-latency ping-read ping-atomic ping-bandwidth sigint-ping teardown)

die() {
	echo "hwcheck: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--peer) peer=${2:?--peer needs a host}; shift 2 ;;
	--peer-ca) peer_ca=${2:?--peer-ca needs a device}; shift 2 ;;
	--peer-port) peer_port=${2:?--peer-port needs a port}; shift 2 ;;
	--peer-ibscan) peer_ibscan=${2:?--peer-ibscan needs a path}; shift 2 ;;
	--ibscan) ibscan=${2:?--ibscan needs a path}; shift 2 ;;
	-C | --ca) ca=${2:?-C needs a device}; shift 2 ;;
	-P | --port) port=${2:?-P needs a port}; shift 2 ;;
	--sysfs) sysfs=${2:?--sysfs needs a directory}; shift 2 ;;
	--perftest-port) pt_port=${2:?--perftest-port needs a number}; shift 2 ;;
	--ibscan-port) ibs_port=${2:?--ibscan-port needs a number}; shift 2 ;;
	--counter-interval) interval=${2:?--counter-interval needs seconds}; shift 2 ;;
	--lat-iters) lat_iters=${2:?--lat-iters needs a number}; shift 2 ;;
	--bw-iters) bw_iters=${2:?--bw-iters needs a number}; shift 2 ;;
	--lat-tol) lat_tol_us=${2:?--lat-tol needs microseconds}; shift 2 ;;
	--bw-tol) bw_tol_pct=${2:?--bw-tol needs a percentage}; shift 2 ;;
	--only) only="$only ${2:?--only needs checks}"; shift 2 ;;
	-h | --help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) die "unknown argument '$1' (--help lists them)" ;;
	esac
done
[[ $lat_iters =~ ^[1-9][0-9]*$ ]] || die "--lat-iters needs a positive number, not '$lat_iters'"
[[ $bw_iters =~ ^[1-9][0-9]*$ ]] || die "--bw-iters needs a positive number, not '$bw_iters'"
[[ $lat_tol_us =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--lat-tol needs microseconds, not '$lat_tol_us'"
[[ $bw_tol_pct =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--bw-tol needs a percentage, not '$bw_tol_pct'"
[ "$pt_port" != "$ibs_port" ] || die "perftest and ibscan need two TCP ports (--perftest-port, --ibscan-port)"
[ -n "$peer" ] || [ -z "$peer_ca$peer_port$peer_ibscan" ] || die "--peer-ca, --peer-port and --peer-ibscan need --peer"
only=" ${only//,/ } "
for c in $only; do
	[[ " ${ib_checks[*]} ${probe_checks[*]} " == *" $c "* ]] || die "--only: no check '$c' (--help lists them)"
done
[ -n "${only// /}" ] || only=
# wants CHECK...: true when one of them is to run (no --only: every one).
wants() {
	local c
	[ -z "$only" ] && return 0
	for c in "$@"; do [[ $only == *" $c "* ]] && return 0; done
	return 1
}

# Active ports, "DEV PORT LINK_LAYER SMI" (SMI: no IsSMDisabled, PortInfo CapabilityMask bit 10).
active_ports() {
	local d p st ll cm
	for d in "$sysfs"/class/infiniband/*; do
		[ -d "$d" ] || continue
		[ -z "$ca" ] || [ "$(basename "$d")" = "$ca" ] || continue
		for p in "$d"/ports/*; do
			[ -d "$p" ] || continue
			[ -z "$port" ] || [ "$(basename "$p")" = "$port" ] || continue
			st=$(cat "$p/state" 2>/dev/null) || continue
			case $st in *ACTIVE*) ;; *) continue ;; esac
			ll=$(cat "$p/link_layer" 2>/dev/null) || ll=InfiniBand
			cm=$(cat "$p/cap_mask" 2>/dev/null) || cm=0
			echo "$(basename "$d") $(basename "$p") $ll $(((cm & 0x400) == 0))"
		done
	done
}

ports=$(active_ports)
[ -n "$ports" ] ||
	die "no RDMA device with an active port under $sysfs/class/infiniband${ca:+ (device $ca)}${port:+ (port $port)}: this host cannot run the check (it needs an HCA with its link up, and on InfiniBand a subnet manager)"
# The probe's port: the first active one. The InfiniBand checks': the first active InfiniBand SMI port.
read -r pca pport link_layer _ <<<"$(head -1 <<<"$ports")"
read -r ica iport _ _ <<<"$(awk '$3 == "InfiniBand" && $4 == 1' <<<"$ports" | head -1)"
ib_why=
if [ -z "$ica" ]; then
	if awk '$3 == "InfiniBand"' <<<"$ports" | grep -q .; then
		ib_why="no InfiniBand port (the active one has IsSMDisabled: the GSI half of a planarized pair; give -C/-P of its SMI half)"
	else
		ib_why="no InfiniBand port"
	fi
fi
[ "$(id -u)" -eq 0 ] || die "run as root: the reference tools need the umad and uverbs devices"
[ -x "$ibscan" ] || die "no ibscan at $ibscan (make, or --ibscan PATH)"
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"
command -v python3 >/dev/null || die "python3 is missing"
peer_ca=${peer_ca:-$pca} peer_port=${peer_port:-$pport} peer_ibscan=${peer_ibscan:-$ibscan}

tmp=$(mktemp -d) || die "cannot create a temporary directory"
local_pids=() peer_pids=()
cleanup() {
	local pid
	for pid in "${local_pids[@]}"; do kill "$pid" 2>/dev/null; done
	# What ssh started on the peer: its own pids, not the local ssh.
	for pid in "${peer_pids[@]}"; do ssh -o BatchMode=yes "root@$peer" "kill $pid" 2>/dev/null; done
	for pid in "${local_pids[@]}"; do wait "$pid" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

pass=0 fail=0 skip=0
verdict() { # verdict PASS|FAIL|SKIP NAME DETAIL (nothing for a check --only leaves out)
	wants "$2" || return 0
	printf '%s %s: %s\n' "$1" "$2" "$3"
	case $1 in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
}
compare() { # compare NAME SUBCOMMAND ARGS...: tools/hwcheck/hwcheck.py's PASS/FAIL line as a verdict
	local name=$1 r
	shift
	r=$(python3 "$py" "$@")
	verdict "${r%% *}" "$name" "${r#* }"
}
need() { # need TOOL CHECK: true when TOOL is on PATH, else a SKIP verdict
	command -v "$1" >/dev/null && return 0
	verdict SKIP "$2" "$1 is not installed"
	return 1
}
ibs() { "$ibscan" "$@" -C "$ica" -P "$iport"; }
pq() { perfquery -C "$ica" -P "$iport" "$@"; }
now() { date +%s.%N; }

ib_on="$ica port $iport"
[ -n "$ica" ] || ib_on="none: $ib_why"
echo "hwcheck: probe on $pca port $pport ($link_layer); InfiniBand checks on $ib_on; $("$ibscan" --version 2>&1 | head -1)"

if [ -z "$ica" ]; then
	for c in "${ib_checks[@]}"; do verdict SKIP "$c" "$ib_why"; done
elif wants "${ib_checks[@]}"; then
	lid=$(($(cat "$sysfs/class/infiniband/$ica/ports/$iport/lid")))
	smlid=$(($(cat "$sysfs/class/infiniband/$ica/ports/$iport/sm_lid")))
	# VL15Dropped on the local port before the walks: SMPs the port had to drop.
	vl15_before=
	if need perfquery vl15; then vl15_before=$(pq 2>/dev/null | sed -n 's/^VL15Dropped:\.*\([0-9]*\)$/\1/p'); fi

	# ibnetdiscover before and after ibscan topology: ibscan must agree with one of them (the fabric may
	# change in between); no MAD unanswered; the walk's time against ibnetdiscover's.
	if need ibnetdiscover topology; then
		t0=$(now)
		ibnetdiscover -C "$ica" -P "$iport" >"$tmp/ibnd1" 2>"$tmp/ibnd.err"
		rc1=$?
		t1=$(now)
		ibs topology --json -o "$tmp/topo.json" --record "$tmp/topo.cap" 2>"$tmp/topo.err"
		rc=$?
		t2=$(now)
		ibnetdiscover -C "$ica" -P "$iport" >"$tmp/ibnd2" 2>>"$tmp/ibnd.err"
		rc2=$?
		if [ "$rc1" != 0 ] || [ "$rc2" != 0 ]; then
			verdict FAIL topology "ibnetdiscover failed: $(head -1 "$tmp/ibnd.err")"
		elif [ "$rc" != 0 ]; then
			verdict FAIL topology "ibscan topology exited $rc: $(head -1 "$tmp/topo.err")"
		else
			python3 "$root/tests/sim/ibscan2norm.py" "$tmp/topo.json" -o "$tmp/topo.norm"
			python3 "$root/tests/sim/ibnd2norm.py" "$tmp/ibnd1" -o "$tmp/ibnd1.norm"
			python3 "$root/tests/sim/ibnd2norm.py" "$tmp/ibnd2" -o "$tmp/ibnd2.norm"
			noans=$("$ibscan" capture info --json "$tmp/topo.cap" | jq '.totals.no_answer')
			nodes=$(grep -c '^node' "$tmp/topo.norm") links=$(grep -c '^link' "$tmp/topo.norm")
			if ! bash "$root/tests/sim/compare.sh" "$tmp/topo.norm" "$tmp/ibnd1.norm" >"$tmp/cmp" 2>&1 &&
				! bash "$root/tests/sim/compare.sh" "$tmp/topo.norm" "$tmp/ibnd2.norm" >>"$tmp/cmp" 2>&1; then
				verdict FAIL topology "ibscan differs from ibnetdiscover before and after it: $(tr '\n' ' ' <"$tmp/cmp" | cut -c1-300)"
			elif [ "$noans" != 0 ]; then
				verdict FAIL topology "$nodes nodes, $links links as ibnetdiscover, but $noans MADs unanswered at the default window"
			else
				verdict PASS topology "$nodes nodes, $links links, as ibnetdiscover (run before and after); 0 MADs unanswered"
			fi
			if awk -v a="$t1" -v b="$t0" -v c="$t2" -v s="$walk_slack" 'BEGIN { exit !(c - a <= (a - b) * s + 1) }'; then
				verdict PASS walk-time "$(awk -v a="$t1" -v b="$t0" -v c="$t2" 'BEGIN { printf "ibscan %.2f s, ibnetdiscover %.2f s", c - a, a - b }')"
			else
				verdict FAIL walk-time "$(awk -v a="$t1" -v b="$t0" -v c="$t2" -v s="$walk_slack" 'BEGIN { printf "ibscan %.2f s, more than %s x ibnetdiscover'"'"'s %.2f s plus 1 s", c - a, s, a - b }')"
			fi
		fi
	else
		verdict SKIP walk-time "ibnetdiscover is not installed"
	fi

	if [ -n "$vl15_before" ]; then
		vl15_after=$(pq 2>/dev/null | sed -n 's/^VL15Dropped:\.*\([0-9]*\)$/\1/p')
		if [ "$vl15_after" = "$vl15_before" ]; then
			verdict PASS vl15 "VL15Dropped on the local port stayed at $vl15_after through the walks"
		else
			verdict FAIL vl15 "VL15Dropped on the local port went from $vl15_before to $vl15_after during the walks"
		fi
	fi

	# Counters: ibscan's reading must lie between two perfquery readings taken just before and after
	# it (a port with live errors or traffic moves between any two moments); data counters too, the
	# extended ones, and an --interval rate against perfquery -x's over the same span.
	lguid=$(jq -r '.local.node_guid // empty' "$tmp/topo.json" 2>/dev/null)
	if ! wants counters counters-ext counters-rate; then
		:
	elif need perfquery counters; then
		if [ -z "$lguid" ]; then
			verdict FAIL counters "no topology to find the local port in (see the topology check)"
		else
			pq "$lid" "$iport" >"$tmp/pq1" 2>&1
			ibs counters --json -o "$tmp/ctr.json" 2>"$tmp/ctr.err"
			pq "$lid" "$iport" >"$tmp/pq2" 2>&1
			compare counters counters "$tmp/pq1" "$tmp/pq2" "$tmp/ctr.json" "$lguid" "$iport"
			pq -x "$lid" "$iport" >"$tmp/pqx1" 2>&1
			ibs counters --json -o "$tmp/ctrx.json" 2>>"$tmp/ctr.err"
			pq -x "$lid" "$iport" >"$tmp/pqx2" 2>&1
			compare counters-ext counters "$tmp/pqx1" "$tmp/pqx2" "$tmp/ctrx.json" "$lguid" "$iport" ext
			t0=$(now)
			pq -x "$lid" "$iport" >"$tmp/pqr1" 2>&1
			ibs counters --interval "$interval" --json -o "$tmp/ctrr.json" 2>>"$tmp/ctr.err"
			pq -x "$lid" "$iport" >"$tmp/pqr2" 2>&1
			compare counters-rate rate "$tmp/pqr1" "$tmp/pqr2" "$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')" \
				"$tmp/ctrr.json" "$lguid" "$iport" "$rate_tol_pct"
		fi
	else
		verdict SKIP counters-ext "perfquery is not installed"
		verdict SKIP counters-rate "perfquery is not installed"
	fi

	# saquery vs ibscan path: the SA's PathRecord from this port to the SM's.
	if wants path && need saquery path; then
		if ! saquery -C "$ica" -P "$iport" -p --src-to-dst "$lid:$smlid" >"$tmp/sa" 2>"$tmp/sa.err"; then
			verdict FAIL path "saquery failed: $(head -1 "$tmp/sa.err")"
		elif ! ibs path "$lid" "$smlid" --json -o "$tmp/path.json" 2>"$tmp/path.err"; then
			verdict FAIL path "ibscan path failed: $(head -1 "$tmp/path.err")"
		else
			compare path path "$tmp/sa" "$tmp/path.json"
		fi
	fi

	# ibroute -n vs ibscan routes: every switch's LID -> port entries (-n: no SMPs to every
	# destination for its name).
	if wants routes && need ibroute routes; then
		if ! ibs routes --dump --json -o "$tmp/routes.json" 2>"$tmp/routes.err"; then
			verdict FAIL routes "ibscan routes failed: $(head -1 "$tmp/routes.err")"
		else
			bad='' n=0
			while read -r swlid; do
				ibroute -n -C "$ica" -P "$iport" "$swlid" >"$tmp/ibr" 2>&1
				r=$(python3 "$py" routes "$tmp/ibr" "$tmp/routes.json" "$swlid")
				[ "${r%% *}" = PASS ] || bad="$bad ${r#* };"
				n=$((n + 1))
			done < <(jq -r '.switches[].lid' "$tmp/routes.json" | head -8)
			if [ "$n" -eq 0 ]; then verdict SKIP routes "no switch (back-to-back cable)"
			elif [ -n "$bad" ]; then verdict FAIL routes "$bad"
			else verdict PASS routes "$n switches: every LFT entry as ibroute -n"; fi
		fi
	fi

	# sminfo vs ibscan sm: the master's LID, GUID, priority and state.
	if wants sm && need sminfo sm; then
		sminfo -C "$ica" -P "$iport" >"$tmp/sminfo" 2>&1
		ibs sm --json -o "$tmp/sm.json" 2>"$tmp/sm.err"
		compare sm sm "$tmp/sminfo" "$tmp/sm.json"
	fi

	# iblinkinfo vs ibscan: every port's state, and the degraded links against its "Could be".
	if ! wants port-states degraded; then
		:
	elif need iblinkinfo port-states; then
		iblinkinfo --line -C "$ica" -P "$iport" >"$tmp/li" 2>&1
		ibs links --json -o "$tmp/links.json" 2>/dev/null
		while read -r r; do
			name=${r#* } name=${name%%:*}
			verdict "${r%% *}" "$name" "${r#*: }"
		done < <(python3 "$py" linkinfo "$tmp/li" "$tmp/topo.json" "$tmp/links.json")
	else
		verdict SKIP degraded "iblinkinfo is not installed"
	fi

	# smpquery GUIDInfo vs ibscan --gids: the local port's GUID table.
	if wants gids && need smpquery gids; then
		smpquery -C "$ica" -P "$iport" GI "$lid" >"$tmp/gi" 2>&1
		ibs topology --gids --json -o "$tmp/gids.json" 2>/dev/null
		gport=$(jq -r '.local.port' "$tmp/gids.json" 2>/dev/null)
		compare gids gids "$tmp/gi" "$tmp/gids.json" "$lguid" "${gport:-$iport}"
	fi

	# The umad permission error, as an ordinary user, on the umad device of the port in use.
	if wants umad-permission && need setpriv umad-permission; then
		umad=
		for u in "$sysfs"/class/infiniband_mad/umad*; do
			[ "$(cat "$u/ibdev" 2>/dev/null)" = "$ica" ] && [ "$(cat "$u/port" 2>/dev/null)" = "$iport" ] &&
				umad=/dev/infiniband/$(basename "$u")
		done
		as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		if [ -z "$umad" ]; then
			verdict FAIL umad-permission "no umad device of $ica port $iport under $sysfs/class/infiniband_mad"
		elif "${as_user[@]}" test -r "$umad" -a -w "$umad"; then
			verdict SKIP umad-permission "$umad is open to every user here"
		else
			"${as_user[@]}" "$ibscan" sm -C "$ica" -P "$iport" >/dev/null 2>"$tmp/perm.err"
			rc=$?
			if [ "$rc" -eq 3 ] && grep -q "permission denied" "$tmp/perm.err" && grep -q "udev rule" "$tmp/perm.err"; then
				verdict PASS umad-permission "as nobody, $umad: exit 3, $(head -1 "$tmp/perm.err")"
			else
				verdict FAIL umad-permission "as nobody, $umad: exit $rc, $(head -1 "$tmp/perm.err")"
			fi
		fi
	fi

	# SIGINT during a walk: exit 130, the capture so far readable.
	# A background job of a script ignores SIGINT unless it says otherwise (bash, "SIGNALS").
	if wants sigint-walk; then
		(trap - INT; exec "$ibscan" topology -C "$ica" -P "$iport" --record "$tmp/int.cap" -o "$tmp/int.txt" 2>"$tmp/int.err") &
		wpid=$!
		# The first exchange recorded (at most 10 s): the walk is under way.
		for _ in $(seq 500); do grep -q '^x ' "$tmp/int.cap" 2>/dev/null && break; sleep 0.02; done
		kill -INT "$wpid" 2>/dev/null
		wait "$wpid"
		rc=$?
		if { [ "$rc" = 130 ] || [ "$rc" = 0 ]; } && "$ibscan" capture info "$tmp/int.cap" >/dev/null 2>"$tmp/int.info"; then
			verdict PASS sigint-walk "exit $rc, the capture of $(grep -c '^x ' "$tmp/int.cap") exchanges readable"
		else
			verdict FAIL sigint-walk "exit $rc, capture: $(head -1 "$tmp/int.info" 2>/dev/null)"
		fi
	fi
fi

# sysfs vs ibscan local: every non-zero GID with its type and interface; ibv_devinfo vs ibscan local:
# the port's state, link layer and LID.
if ! wants local local-port; then
	:
elif ! "$ibscan" local --sysfs "$sysfs" --json -o "$tmp/local.json" 2>"$tmp/local.err"; then
	verdict FAIL local "ibscan local failed: $(head -1 "$tmp/local.err")"
else
	pdir=$sysfs/class/infiniband/$pca/ports/$pport
	bad='' n=0
	# One grep reads the whole table (a fork per entry of 1,024 took 2 minutes); only the
	# non-zero entries' types and interfaces are read one by one.
	while IFS=: read -r i gid; do
		type=$(cat "$pdir/gid_attrs/types/$i" 2>/dev/null) || type=
		ndev=$(cat "$pdir/gid_attrs/ndevs/$i" 2>/dev/null) || ndev=
		got=$(jq -r --arg d "$pca" --argjson p "$pport" --argjson i "$i" \
			'.devices[] | select(.name == $d) | .ports[] | select(.port == $p) | .gids[] | select(.index == $i)
			 | "\(.gid) \(.type // "") \(.netdev // "")"' "$tmp/local.json")
		[ "$got" = "$gid $type $ndev" ] || bad="$bad GID $i sysfs '$gid $type $ndev' ibscan '$got';"
		n=$((n + 1))
	done < <(cd "$pdir/gids" 2>/dev/null && grep -H -v '^0000:0000:0000:0000:0000:0000:0000:0000$' -- * 2>/dev/null | sort -t: -k1,1n)
	if command -v show_gids >/dev/null; then
		sg=$(show_gids "$pca" "$pport" 2>/dev/null | awk -v d="$pca" '$1 == d && $4 != "" { n++ } END { print n + 0 }')
		[ "$sg" -eq "$n" ] || bad="$bad show_gids lists $sg GIDs, sysfs $n;"
	fi
	# Every active port has a GID (InfiniBand: its port GUID's; RoCE: its interface's): none read
	# is a table not compared, never a pass.
	[ "$n" -gt 0 ] || bad="$bad no GID read from $pdir/gids;"
	if [ -n "$bad" ]; then verdict FAIL local "$bad"; else verdict PASS local "$n GIDs of $pca port $pport, their types and interfaces as sysfs${sg:+ and show_gids}"; fi
	if need ibv_devinfo local-port; then
		# rdma-core libibverbs/examples/devinfo.c: "\t\t\tstate:\t\t\t%s (%d)", "\t\t\tport_lid:\t\t%d",
		# "\t\t\tlink_layer:\t\t%s", one block per "\t\tport:\t%d".
		ibv_devinfo -d "$pca" -i "$pport" >"$tmp/devinfo" 2>&1
		want=$(awk '$1 == "state:" { s = $2 } $1 == "port_lid:" { l = $2 } $1 == "link_layer:" { ll = $2 }
			END { print s, l, ll }' "$tmp/devinfo")
		got=$(jq -r --arg d "$pca" --argjson p "$pport" '.devices[] | select(.name == $d) | .ports[] | select(.port == $p)
			| "PORT_\(.state | ascii_upcase) \(.lid) \(.link_layer)"' "$tmp/local.json")
		if [ "$want" = "$got" ]; then verdict PASS local-port "state, LID and link layer as ibv_devinfo: $got"
		else verdict FAIL local-port "ibv_devinfo '$want', ibscan local '$got'"; fi
	fi
fi

# The probe: perftest vs ibscan ping, against --peer or this HCA's loopback.
target=${peer:-127.0.0.1}
on_peer() { # on_peer CMD...: start CMD on the peer (or here), in the background; its pid kept for the cleanup
	if [ -n "$peer" ]; then
		# The peer's shell says its pid, then becomes CMD: that pid is what the cleanup stops.
		ssh -o BatchMode=yes "root@$peer" "echo \$\$; exec $*" >"$tmp/peer.pid" 2>/dev/null &
		local_pids+=($!)
		for _ in $(seq 50); do [ -s "$tmp/peer.pid" ] && break; sleep 0.1; done
		peer_pids+=("$(head -1 "$tmp/peer.pid")")
	else
		"$@" >/dev/null 2>&1 &
		local_pids+=($!)
	fi
}
listening() { # listening TCPPORT: true once something listens there (on the peer, or here)
	local q="ss -Hltn 'sport = :$1' | grep -q ."
	if [ -n "$peer" ]; then ssh -o BatchMode=yes "root@$peer" "$q"; else bash -c "$q"; fi
}
wait_listener() { # wait_listener TCPPORT: up to 10 s
	local _
	for _ in $(seq 100); do listening "$1" && return 0; sleep 0.1; done
	return 1
}
rdma_count() { rdma res show "$1" 2>/dev/null | python3 "$py" rdma-count "$1" "$pca" "$pport"; }
qp_before='' mr_before='' probed=0
if wants teardown && command -v rdma >/dev/null; then qp_before=$(rdma_count qp); mr_before=$(rdma_count mr); fi
gid_index=
# side_by_side CHECK WHAT TOOL SIZE ITERS COLUMN JQ TOL UNIT -- IBSCAN_PING_ARGS...:
# ibscan ping's figure (JQ) vs perftest TOOL's (column COLUMN of its SIZE row): ibscan's within
# TOL UNIT of perftest's as a factor, either way (see within). ibscan runs first: perftest is
# given its GID index (-x), so that on RoCE both measure the same path.
side_by_side() {
	local check=$1 what=$2 tool=$3 size=$4 iters=$5 col=$6 jqf=$7 tol=$8 unit=$9 ref got ref2 spread='' rc=0 band
	shift 10
	wants "$check" || return 0
	need "$tool" "$check" || return 0
	probed=1
	on_peer "$peer_ibscan" ping --listen -C "$peer_ca" -P "$peer_port" --tcp-port "$ibs_port"
	if ! wait_listener "$ibs_port"; then
		verdict FAIL "$check" "ibscan ping --listen on ${peer:-this host} did not listen on TCP port $ibs_port within 10 s"
		return 0
	fi
	"$ibscan" ping "$target" -C "$pca" -P "$pport" --tcp-port "$ibs_port" --iters "$iters" --size "$size" "$@" --json \
		-o "$tmp/$check.json" 2>"$tmp/$check.err" || rc=$?
	got=$(jq -r "$jqf" "$tmp/$check.json" 2>/dev/null)
	# Nothing to compare: perftest is not run for nothing.
	if [ -z "$got" ] || [ "$got" = null ]; then
		verdict FAIL "$check" "no figure from ibscan ping (exit $rc)$(head -1 "$tmp/$check.err" | sed 's/^/: /')"
		return 0
	fi
	gid_index=$(jq -r '.local.gid_index // empty' "$tmp/$check.json" 2>/dev/null)
	local -a pt=(-d "$ca_pt" -i "$pport" -s "$size" -n "$iters" -p "$pt_port")
	local -a ppt=(-d "$peer_ca" -i "$peer_port" -s "$size" -n "$iters" -p "$pt_port")
	case $tool in *_bw) pt+=(--report_gbits) ppt+=(--report_gbits) ;; esac
	if [ "$link_layer" = Ethernet ] && [ -n "$gid_index" ]; then pt+=(-x "$gid_index") ppt+=(-x "$gid_index"); fi
	on_peer "$tool" "${ppt[@]}"
	if ! wait_listener "$pt_port"; then
		verdict FAIL "$check" "$tool on ${peer:-this host} did not listen on TCP port $pt_port within 10 s"
		return 0
	fi
	"$tool" "${pt[@]}" "$target" >"$tmp/$check.ref" 2>&1
	ref=$(awk -v s="$size" -v c="$col" '$1 == s && NF >= c { print $c }' "$tmp/$check.ref" | tail -1)
	# A tolerance is no tighter than the tool's own spread: perftest runs a second time, and
	# twice the two runs' difference widens it, measured as the tolerance is: in microseconds, or
	# for a percentage in percent of the smaller run (a factor, as the relation; two runs of 10
	# and 60 Mb/s widen it to 1000 %). (Both tools measured 10.5 % apart on one soft-RoCE link
	# where perftest alone varied as much; under emulation a round trip varies by milliseconds
	# from run to run.)
	if [[ $ref =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		on_peer "$tool" "${ppt[@]}"
		if wait_listener "$pt_port"; then
			"$tool" "${pt[@]}" "$target" >"$tmp/$check.ref2" 2>&1
			ref2=$(awk -v s="$size" -v c="$col" '$1 == s && NF >= c { print $c }' "$tmp/$check.ref2" | tail -1)
			if [[ $ref2 =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
				spread=$(awk -v a="$ref" -v b="$ref2" -v u="$unit" 'BEGIN { d = a - b; if (d < 0) d = -d
					if (u != "%") { printf "%.2f", 2 * d; exit }
					m = a < b ? a : b; if (m > 0) printf "%.1f", 2 * d / m * 100 }')
				[ -z "$spread" ] || tol=$(awk -v t="$tol" -v s="$spread" 'BEGIN { m = t; if (s + 0 > t + 0) m = s; print m }')
			fi
		fi
	fi
	if [ -z "$ref" ] || [ -z "$got" ] || [ "$got" = null ]; then
		verdict FAIL "$check" "no figure: $tool '$ref', ibscan '$got' $(head -1 "$tmp/$check.err")"
	elif ! [[ $ref =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! [[ $got =~ ^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]] ||
		! awk -v b="$ref" 'BEGIN { exit !(b > 0) }'; then
		# perftest prints inf or nan when its clock saw no time pass, and 0.00 below its last
		# digit: not a figure to compare (no factor of 0 is a bound).
		verdict FAIL "$check" "not a figure: $tool '$ref', ibscan '$got'"
	elif band=$(within "$got" "$ref" "$tol" "$unit"); then
		verdict PASS "$check" "$what: ibscan $got, $tool $ref (within $tol $unit, $band${spread:+, $tool spread $spread $unit over two runs}${gid_index:+, GID index $gid_index})"
	else
		verdict FAIL "$check" "$what: ibscan $got, $tool $ref (not within $tol $unit, $band${spread:+; $tool spread $spread $unit over two runs})"
	fi
}
# within A B TOL UNIT: true when A, ibscan's figure, is within TOL UNIT of B, perftest's, as a
# factor either way: B / F <= A <= B * F, F = 1 + TOL / 100 for a percentage ("%"), else
# 1 + TOL / B (TOL above B, and as far below in a factor: so a figure too low fails as surely
# as one too high, at any tolerance; a difference is bounded below by -B, or -100 %, and let
# every figure too low pass once the tolerance was that wide). Prints the band, "a factor of F
# either way: LO to HI" (four digits, whole numbers from 1000 on: no 2.111e+04).
within() {
	awk -v a="$1" -v b="$2" -v t="$3" -v u="$4" 'function g(x) { return sprintf(x >= 1000 ? "%.0f" : "%.4g", x) }
		BEGIN { f = (u == "%") ? 1 + t / 100 : 1 + t / b
		printf "a factor of %s either way: %s to %s", g(f), g(b / f), g(b * f)
		exit !(a * f >= b && a <= b * f) }'
}
ca_pt=$pca
# perftest's latency tools print t_typical (their median) in column 5; ib_write_bw its average Gb/s in 4.
side_by_side ping-latency "64 B send, median us" ib_send_lat 64 "$lat_iters" 5 .latency_us.median "$lat_tol_us" us -- --op send
side_by_side ping-read "64 B RDMA read, median us" ib_read_lat 64 "$lat_iters" 5 .latency_us.median "$lat_tol_us" us -- --op read
side_by_side ping-atomic "8 B atomic, median us" ib_atomic_lat 8 "$lat_iters" 5 .latency_us.median "$lat_tol_us" us -- --op atomic
side_by_side ping-bandwidth "64 KiB RDMA write, Gb/s" ib_write_bw 65536 "$bw_iters" 4 .gbit_per_s "$bw_tol_pct" % -- --op write --bw

# SIGINT during ping --bw: the client stops, and leaves no QP or MR behind (teardown counts them).
if wants sigint-ping; then
	probed=1
	on_peer "$peer_ibscan" ping --listen -C "$peer_ca" -P "$peer_port" --tcp-port "$ibs_port"
	if wait_listener "$ibs_port"; then
		(trap - INT; exec "$ibscan" ping "$target" -C "$pca" -P "$pport" --tcp-port "$ibs_port" --op write --bw \
			--iters 10000000 >/dev/null 2>"$tmp/int-ping.err") &
		cpid=$!
		# A SIGINT sent before the client's subshell has reset the job's ignored SIGINT is lost (a loaded
		# machine): send it every 0.5 s until the client ends, for at most 10 s, then kill it.
		for _ in $(seq 20); do
			sleep 0.5
			kill -0 "$cpid" 2>/dev/null || break
			kill -INT "$cpid" 2>/dev/null
		done
		kill -0 "$cpid" 2>/dev/null && { sleep 0.5; kill -KILL "$cpid" 2>/dev/null; }
		wait "$cpid"
		rc=$?
		if [ "$rc" = 130 ]; then verdict PASS sigint-ping "ping --bw stopped by SIGINT: exit 130"
		else verdict FAIL sigint-ping "ping --bw after SIGINT: exit $rc, $(head -1 "$tmp/int-ping.err")"; fi
	else
		verdict FAIL sigint-ping "ibscan ping --listen did not listen on TCP port $ibs_port within 10 s"
	fi
fi

if [ "$probed" = 0 ]; then
	verdict SKIP teardown "no probe ran"
elif [ -n "$qp_before" ]; then
	# QPs the kernel has yet to destroy: up to 5 s for them to go (a deadline, not a count of
	# tries: each count starts python, which takes a second or more on a slow host).
	t_end=$((SECONDS + 5))
	while [ "$(rdma_count qp)" -gt "$qp_before" ] && [ "$SECONDS" -lt "$t_end" ]; do sleep 0.1; done
	qp_after=$(rdma_count qp) mr_after=$(rdma_count mr)
	if [ "$qp_after" -le "$qp_before" ] && [ "$mr_after" -le "$mr_before" ]; then
		verdict PASS teardown "rdma res show: $qp_after QPs on $pca/$pport, $mr_after MRs on $pca after the probes ($qp_before, $mr_before before)"
	else
		verdict FAIL teardown "rdma res show: $qp_after QPs on $pca/$pport, $mr_after MRs on $pca after the probes, $qp_before, $mr_before before"
	fi
else
	verdict SKIP teardown "the rdma tool (iproute2) is not installed"
fi

echo "hwcheck: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
