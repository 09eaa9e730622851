#!/bin/bash
# The one-shot check for the first machine with an HCA: runs the reference tools and ibscan side by side, one verdict line per check.
#
# Usage: tools/hwcheck.sh [--peer HOST] [--ibscan PATH] [-C CA] [-P PORT] [--sysfs DIR]
#
# Run as root on a host with an active InfiniBand or RoCE port. The probe
# checks (ib_send_lat/ib_write_bw vs ibscan ping) run against --peer HOST,
# reached with ssh as root and holding the same checkout (or ibscan and
# perftest on its PATH); without --peer they run over this HCA's loopback.
# Every check prints one line, "PASS name: detail", "FAIL name: detail" or
# "SKIP name: why"; the last line counts them. Exit 0: every check that ran
# passed; 1: a check failed; 2: this host cannot run the check (no RDMA
# device, not root, a tool missing), said on stderr within seconds.
#
# Read-only towards the fabric: no SMP Set is sent and no counter is reset
# (no perfquery -r/-R, no ibscan counters --reset-counters, no ibportstate;
# tests/cli/t_hwcheck.sh checks the script for them).
set -u -o pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
ibscan=$root/ibscan
peer=
ca=
port=
sysfs=/sys
lat_tol_us=0.3 # ibscan's median latency within this of ib_send_lat's t_typical
bw_tol_pct=5   # ibscan's bandwidth within this percentage of ib_write_bw's average

die() {
	echo "hwcheck: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--peer) peer=${2:?--peer needs a host}; shift 2 ;;
	--ibscan) ibscan=${2:?--ibscan needs a path}; shift 2 ;;
	-C | --ca) ca=${2:?-C needs a device}; shift 2 ;;
	-P | --port) port=${2:?-P needs a port}; shift 2 ;;
	--sysfs) sysfs=${2:?--sysfs needs a directory}; shift 2 ;;
	-h | --help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) die "unknown argument '$1' (--help lists them)" ;;
	esac
done

# The device and port to check: the first active one, as ibscan picks it.
find_port() {
	local d p st
	for d in "$sysfs"/class/infiniband/*; do
		[ -d "$d" ] || continue
		[ -z "$ca" ] || [ "$(basename "$d")" = "$ca" ] || continue
		for p in "$d"/ports/*; do
			[ -d "$p" ] || continue
			[ -z "$port" ] || [ "$(basename "$p")" = "$port" ] || continue
			st=$(cat "$p/state" 2>/dev/null) || continue
			case $st in *ACTIVE*) echo "$(basename "$d") $(basename "$p")"; return 0 ;; esac
		done
	done
	return 1
}

found=$(find_port) ||
	die "no RDMA device with an active port under $sysfs/class/infiniband${ca:+ (device $ca)}${port:+ (port $port)}: this host cannot run the check (it needs an HCA with its link up, and on InfiniBand a subnet manager)"
read -r ca port <<<"$found"
link_layer=$(cat "$sysfs/class/infiniband/$ca/ports/$port/link_layer" 2>/dev/null)
[ "$(id -u)" -eq 0 ] || die "run as root: the reference tools need the umad and uverbs devices"
[ -x "$ibscan" ] || die "no ibscan at $ibscan (make, or --ibscan PATH)"
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"

tmp=$(mktemp -d) || die "cannot create a temporary directory"
listeners=()
cleanup() {
	local pid
	for pid in "${listeners[@]}"; do kill "$pid" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

pass=0 fail=0 skip=0
verdict() { # verdict PASS|FAIL|SKIP NAME DETAIL
	printf '%s %s: %s\n' "$1" "$2" "$3"
	case $1 in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
}
need() { # need TOOL CHECK: true when TOOL is on PATH, else a SKIP verdict
	command -v "$1" >/dev/null && return 0
	verdict SKIP "$2" "$1 is not installed"
	return 1
}
ibs() { "$ibscan" "$@" -C "$ca" -P "$port"; }
# A counter from perfquery's "Name:.....value" output.
pq_field() { sed -n "s/^$1:\.*\([0-9]*\)$/\1/p" | head -1; }

echo "hwcheck: $ca port $port ($link_layer), $("$ibscan" --version 2>&1 | head -1)"

if [ "$link_layer" = InfiniBand ]; then
	# VL15Dropped on the local port before the walks: SMPs the port had to drop.
	vl15_before=
	if need perfquery vl15; then vl15_before=$(perfquery -C "$ca" -P "$port" 2>/dev/null | pq_field VL15Dropped); fi

	# ibnetdiscover vs ibscan topology: the same nodes, ports and links; no MAD unanswered.
	if need ibnetdiscover topology && need python3 topology; then
		if ! ibnetdiscover -C "$ca" -P "$port" >"$tmp/ibnd" 2>"$tmp/ibnd.err"; then
			verdict FAIL topology "ibnetdiscover failed: $(head -1 "$tmp/ibnd.err")"
		elif ! ibs topology --json -o "$tmp/topo.json" --record "$tmp/topo.cap" 2>"$tmp/topo.err"; then
			verdict FAIL topology "ibscan topology failed: $(head -1 "$tmp/topo.err")"
		else
			python3 "$root/tests/sim/ibnd2norm.py" "$tmp/ibnd" -o "$tmp/ibnd.norm"
			python3 "$root/tests/sim/ibscan2norm.py" "$tmp/topo.json" -o "$tmp/topo.norm"
			noans=$("$ibscan" capture info --json "$tmp/topo.cap" | jq '.totals.no_answer')
			nodes=$(grep -c '^node' "$tmp/topo.norm") links=$(grep -c '^link' "$tmp/topo.norm")
			if ! bash "$root/tests/sim/compare.sh" "$tmp/topo.norm" "$tmp/ibnd.norm" >"$tmp/cmp" 2>&1; then
				verdict FAIL topology "ibscan and ibnetdiscover differ: $(tr '\n' ' ' <"$tmp/cmp" | cut -c1-300)"
			elif [ "$noans" != 0 ]; then
				verdict FAIL topology "$nodes nodes, $links links as ibnetdiscover, but $noans MADs unanswered at the default window"
			else
				verdict PASS topology "$nodes nodes, $links links, as ibnetdiscover; 0 MADs unanswered"
			fi
		fi
	fi

	if [ -n "$vl15_before" ]; then
		vl15_after=$(perfquery -C "$ca" -P "$port" 2>/dev/null | pq_field VL15Dropped)
		if [ "$vl15_after" = "$vl15_before" ]; then
			verdict PASS vl15 "VL15Dropped on the local port stayed at $vl15_after through both walks"
		else
			verdict FAIL vl15 "VL15Dropped on the local port went from $vl15_before to $vl15_after during the walks"
		fi
	fi

	# perfquery vs ibscan counters: error counters (they do not move on a healthy link) of the local port and its peer.
	if need perfquery counters && [ -s "$tmp/topo.json" ] && ibs counters --json -o "$tmp/ctr.json" 2>"$tmp/ctr.err"; then
		lguid=$(jq -r '.local.node_guid' "$tmp/topo.json")
		llid=$(jq -r '.local.lid' "$tmp/topo.json")
		bad='' n=0
		# The local port, then the port at the other end of its cable (by LID: a switch's is its port 0's).
		while read -r guid pnum lid; do
			[ -n "$guid" ] || continue
			perfquery -C "$ca" -P "$port" "$lid" "$pnum" >"$tmp/pq" 2>/dev/null || { bad="$bad perfquery $lid/$pnum failed;"; continue; }
			for c in SymbolErrorCounter LinkErrorRecoveryCounter LinkDownedCounter PortRcvErrors PortXmitDiscards; do
				want=$(pq_field "$c" <"$tmp/pq")
				got=$(jq -r --arg g "$guid" --argjson p "$pnum" --arg c "$c" \
					'.ports_counters[] | select(.guid == $g and .port == $p) | .counters[$c]' "$tmp/ctr.json" | head -1)
				[ -z "$want" ] || [ "$want" = "$got" ] || bad="$bad $guid/$pnum $c perfquery $want ibscan $got;"
			done
			n=$((n + 1))
		done < <(jq -r --arg g "$lguid" --argjson p "$port" --argjson l "$llid" '
			. as $t | ($g + " " + ($p | tostring) + " " + ($l | tostring)),
			($t.links[] | select((.a.guid == $g and .a.port == $p) or (.b.guid == $g and .b.port == $p))
			 | (if .a.guid == $g then .b else .a end) as $o
			 | $t.nodes[] | select(.guid == $o.guid)
			 | (.guid + " " + ($o.port | tostring) + " " + ((.lid // .ports[0].lid // 0) | tostring)))' \
			"$tmp/topo.json" 2>/dev/null | head -3)
		if [ "$n" -eq 0 ]; then
			verdict FAIL counters "no port to compare (the topology JSON has no local port?)"
		elif [ -n "$bad" ]; then
			verdict FAIL counters "$bad"
		else
			verdict PASS counters "$n ports: 5 error counters each equal to perfquery's"
		fi
	elif ! [ -s "$tmp/topo.json" ]; then
		verdict SKIP counters "no topology to find the local port's peer in (see the topology check)"
	elif command -v perfquery >/dev/null; then
		verdict FAIL counters "ibscan counters failed: $(head -1 "$tmp/ctr.err" 2>/dev/null)"
	fi

	# saquery vs ibscan path: the SA's PathRecord from this port to the SM's.
	if need saquery path; then
		slid=$(cat "$sysfs/class/infiniband/$ca/ports/$port/lid")
		smlid=$(cat "$sysfs/class/infiniband/$ca/ports/$port/sm_lid")
		if ! saquery -C "$ca" -P "$port" -p --src-to-dst "$((slid)):$((smlid))" >"$tmp/sa" 2>"$tmp/sa.err"; then
			verdict FAIL path "saquery failed: $(head -1 "$tmp/sa.err")"
		elif ! ibs path "$((slid))" "$((smlid))" --json -o "$tmp/path.json" 2>"$tmp/path.err"; then
			verdict FAIL path "ibscan path failed: $(head -1 "$tmp/path.err")"
		else
			bad=
			for f in slid dlid sl; do
				want=$(sed -n "s/^[[:space:]]*$f\.*\(0x[0-9a-fA-F]*\)$/\1/p" "$tmp/sa" | head -1)
				got=$(jq -r ".$f" "$tmp/path.json")
				[ -n "$want" ] && [ "$((want))" = "$got" ] || bad="$bad $f saquery $want ibscan $got;"
			done
			want=$(sed -n 's/^[[:space:]]*mtu\.*\(0x[0-9a-fA-F]*\)$/\1/p' "$tmp/sa" | head -1)
			got=$(jq -r '.mtu_code' "$tmp/path.json")
			[ -n "$want" ] && [ "$((want & 0x3f))" = "$got" ] || bad="$bad mtu saquery $want ibscan $got;"
			if [ -n "$bad" ]; then verdict FAIL path "$bad"; else verdict PASS path "LID $((slid)) to $((smlid)): slid, dlid, sl, mtu as saquery"; fi
		fi
	fi

	# ibroute vs ibscan routes: every switch's LID -> port entries.
	if need ibroute routes; then
		if ! ibs routes --dump --json -o "$tmp/routes.json" 2>"$tmp/routes.err"; then
			verdict FAIL routes "ibscan routes failed: $(head -1 "$tmp/routes.err")"
		else
			bad='' n=0
			while read -r swlid; do
				ibroute -C "$ca" -P "$port" "$swlid" 2>/dev/null |
					sed -n 's/^\(0x[0-9a-fA-F]*\) \([0-9]*\) .*/\1 \2/p' |
					while read -r l p; do echo "$((l)) $((10#$p))"; done | sort >"$tmp/ibr"
				jq -r --argjson s "$swlid" '.switches[] | select(.lid == $s) | .routes[] | "\(.lid) \(.port)"' \
					"$tmp/routes.json" | sort >"$tmp/ibs"
				[ -s "$tmp/ibr" ] && cmp -s "$tmp/ibr" "$tmp/ibs" || bad="$bad switch LID $swlid: $(diff "$tmp/ibr" "$tmp/ibs" | grep -c '^[<>]') entries differ;"
				n=$((n + 1))
			done < <(jq -r '.switches[].lid' "$tmp/routes.json" | head -8)
			if [ "$n" -eq 0 ]; then verdict SKIP routes "no switch (back-to-back cable)"
			elif [ -n "$bad" ]; then verdict FAIL routes "$bad"
			else verdict PASS routes "$n switches: every LFT entry as ibroute"; fi
		fi
	fi

	# The umad permission error, as an unprivileged user.
	if need setpriv umad-permission; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$ibscan" sm -C "$ca" -P "$port" >/dev/null 2>"$tmp/perm.err"
		rc=$?
		if [ "$rc" -eq 3 ] && grep -q "permission denied" "$tmp/perm.err" && grep -q "udev rule" "$tmp/perm.err"; then
			verdict PASS umad-permission "as nobody: exit 3, $(head -1 "$tmp/perm.err")"
		elif [ -r /dev/infiniband/umad0 ] && [ -w /dev/infiniband/umad0 ]; then
			verdict SKIP umad-permission "the umad devices are open to every user here (exit $rc)"
		else
			verdict FAIL umad-permission "as nobody: exit $rc, $(head -1 "$tmp/perm.err")"
		fi
	fi
fi

# show_gids (sysfs) vs ibscan local: every non-zero GID with its type and interface.
if ! "$ibscan" local --sysfs "$sysfs" --json -o "$tmp/local.json" 2>"$tmp/local.err"; then
	verdict FAIL local "ibscan local failed: $(head -1 "$tmp/local.err")"
else
	pdir=$sysfs/class/infiniband/$ca/ports/$port
	bad='' n=0
	for g in "$pdir"/gids/*; do
		i=$(basename "$g")
		gid=$(cat "$g" 2>/dev/null) || continue
		[ "$gid" = 0000:0000:0000:0000:0000:0000:0000:0000 ] && continue
		type=$(cat "$pdir/gid_attrs/types/$i" 2>/dev/null) || type=
		ndev=$(cat "$pdir/gid_attrs/ndevs/$i" 2>/dev/null) || ndev=
		got=$(jq -r --arg d "$ca" --argjson p "$port" --argjson i "$i" \
			'.devices[] | select(.name == $d) | .ports[] | select(.port == $p) | .gids[] | select(.index == $i)
			 | "\(.gid) \(.type // "") \(.netdev // "")"' "$tmp/local.json")
		[ "$got" = "$gid $type $ndev" ] || bad="$bad GID $i sysfs '$gid $type $ndev' ibscan '$got';"
		n=$((n + 1))
	done
	if command -v show_gids >/dev/null; then
		sg=$(show_gids "$ca" "$port" 2>/dev/null | awk -v d="$ca" '$1 == d && $4 != "" { n++ } END { print n + 0 }')
		[ "$sg" -eq "$n" ] || bad="$bad show_gids lists $sg GIDs, sysfs $n;"
	fi
	if [ -n "$bad" ]; then verdict FAIL local "$bad"; else verdict PASS local "$n GIDs of $ca port $port, their types and interfaces as sysfs${sg:+ and show_gids}"; fi
fi

# The probe: ib_send_lat / ib_write_bw vs ibscan ping, against --peer or this HCA's loopback.
on_peer() { # on_peer CMD...: run CMD on the peer (in the background, its pid kept for the cleanup)
	if [ -n "$peer" ]; then ssh -o BatchMode=yes "root@$peer" "$*" & else "$@" & fi
	listeners+=($!)
	probed=1
	sleep 2
}
target=${peer:-127.0.0.1}
rdma_count() { rdma res show "$1" 2>/dev/null | grep -c "dev $ca "; }
qp_before='' mr_before='' probed=0
if command -v rdma >/dev/null; then qp_before=$(rdma_count qp); mr_before=$(rdma_count mr); fi
# side_by_side CHECK WHAT TOOL SIZE ITERS COLUMN JQ AWK_DIFF TOL UNIT -- IBSCAN_PING_ARGS...:
# the perftest TOOL's figure (column COLUMN of its SIZE row) vs ibscan ping's (JQ), their
# difference (AWK_DIFF of a, ibscan's, and b, perftest's) within TOL UNIT.
side_by_side() {
	local check=$1 what=$2 tool=$3 size=$4 iters=$5 col=$6 jqf=$7 diff=$8 tol=$9 unit=${10} ref got
	local -a pt=(-d "$ca" -i "$port" -s "$size" -n "$iters")
	shift 11
	need "$tool" "$check" || return 0
	case $tool in *_bw) pt+=(--report_gbits) ;; esac
	on_peer "$tool" "${pt[@]}"
	"$tool" "${pt[@]}" "$target" >"$tmp/$check.ref" 2>&1
	ref=$(awk -v s="$size" -v c="$col" '$1 == s && NF >= c { print $c }' "$tmp/$check.ref" | tail -1)
	on_peer "$ibscan" ping --listen -C "$ca" -P "$port"
	"$ibscan" ping "$target" -C "$ca" -P "$port" --iters "$iters" --size "$size" "$@" --json \
		-o "$tmp/$check.json" 2>"$tmp/$check.err"
	got=$(jq -r "$jqf" "$tmp/$check.json" 2>/dev/null)
	if [ -z "$ref" ] || [ -z "$got" ] || [ "$got" = null ]; then
		verdict FAIL "$check" "no figure: $tool '$ref', ibscan '$got' $(head -1 "$tmp/$check.err")"
	elif awk -v a="$got" -v b="$ref" -v t="$tol" "BEGIN { d = $diff; exit !(d <= t && -d <= t) }"; then
		verdict PASS "$check" "$what: ibscan $got, $tool $ref (within $tol $unit)"
	else
		verdict FAIL "$check" "$what: ibscan $got, $tool $ref (more than $tol $unit apart)"
	fi
}
# ib_send_lat's t_typical (column 5) is its median; ib_write_bw's column 4 its average Gb/s.
side_by_side ping-latency "64 B send, median us" ib_send_lat 64 10000 5 .latency_us.median "a - b" "$lat_tol_us" us -- --op send
side_by_side ping-bandwidth "64 KiB RDMA write, Gb/s" ib_write_bw 65536 5000 4 .gbit_per_s "(a - b) / b * 100" "$bw_tol_pct" % -- \
	--op write --bw
if [ "$probed" = 0 ]; then
	verdict SKIP teardown "no probe ran"
elif [ -n "$qp_before" ]; then
	sleep 1
	qp_after=$(rdma_count qp) mr_after=$(rdma_count mr)
	if [ "$qp_after" -le "$qp_before" ] && [ "$mr_after" -le "$mr_before" ]; then
		verdict PASS teardown "rdma res show: $qp_after QPs, $mr_after MRs on $ca after the probes ($qp_before, $mr_before before)"
	else
		verdict FAIL teardown "rdma res show: $qp_after QPs, $mr_after MRs on $ca after the probes, $qp_before, $mr_before before"
	fi
else
	verdict SKIP teardown "the rdma tool (iproute2) is not installed"
fi

echo "hwcheck: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
