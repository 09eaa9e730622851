#!/bin/bash
# shellcheck disable=SC2016 # the guests' scripts expand in the guests
# `ibscan ping --tclass` on the wire: tcpdump in guest B captures every RoCE
# v2 packet (UDP 4791) on rxe0's netdev while a probe runs, and each one, in
# both directions (A's requests, B's responses and acknowledgements), carries
# in the IPv4 header's TOS byte (the IPv6 header's traffic class) exactly the
# class asked for: 104 (DSCP 26) on the client only, 184 (DSCP 46) on the
# client only, 96 (DSCP 24) on the listener only, 106 (DSCP 26 with ECN
# ECT(0): the whole byte, ECN bits too, as rxe copies the GRH traffic class),
# none (0); and over IPv6, 104. rxe takes the class from the QP's address
# vector (ibv_modify_qp's ah_attr.grh.traffic_class), so what is asserted is
# what the kernel puts in the packets, not what ibscan reports.
set -eu
. "$ROOT/tests/done.sh"
. "$ROOT/tests/rdma/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# wire NAME FAMILY TCLASS "LISTENER ARGS" "CLIENT ARGS": a probe of 50 send/recv round trips
# captured in guest B; every packet in each direction carries TCLASS.
wire() {
	local name=$1 fam=$2 tc=$3 largs=$4 cargs=$5 a=10.29.0.1 b=10.29.0.2 field='ip[1]' rc=0 out
	if [ "$fam" = 6 ]; then a=fd29::1 b=fd29::2 field='((ip6[0:2] >> 4) & 0xff)'; fi
	vm_bg B /tmp/td.log tcpdump -i eth0 -n --immediate-mode -U -w "/tmp/$name.pcap" udp port 4791
	vm B 15 'for _ in $(seq 100); do grep -q "listening on eth0" /tmp/td.log && exit 0; sleep 0.1; done
		cat /tmp/td.log; exit 1' || { echo "$name: tcpdump does not capture"; return 1; }
	WAITPORT=18515 vm_bg B /tmp/l.log ibscan ping --listen --wait 60 "$largs"
	vm A 60 "ibscan ping $b $cargs --iters 50 --json" >"$tmp/$name.json" || rc=$?
	[ "$rc" = 0 ] || { echo "$name: ibscan ping exit $rc"; cat "$tmp/$name.json"; vm B 5 'cat /tmp/l.log'; return 1; }
	jq -e --argjson tc "$tc" '.traffic_class == $tc' "$tmp/$name.json" >/dev/null ||
		{ echo "$name: ibscan reports traffic class $(jq .traffic_class "$tmp/$name.json"), not $tc"; return 1; }
	# Per direction: packets in all, and those whose class is not TCLASS (tcpdump's own
	# filter reads the header byte); the classes seen, for the log.
	out=$(vm B 30 'kill -TERM $(cat /tmp/td.log.pid); for _ in $(seq 50); do [ -s /tmp/td.log.rc ] && break; sleep 0.1; done
		for d in "'"$a $b"'" "'"$b $a"'"; do
			set -- $d
			all=$(tcpdump -r /tmp/'"$name"'.pcap -n "src host $1 and dst host $2" 2>/dev/null | wc -l)
			off=$(tcpdump -r /tmp/'"$name"'.pcap -n "src host $1 and dst host $2 and '"$field"' != '"$tc"'" 2>/dev/null | wc -l)
			echo "$1 $2 $all $off"
		done
		tcpdump -r /tmp/'"$name"'.pcap -n -v 2>/dev/null | grep -oE "(tos|class) 0x[0-9a-f]+" | sort | uniq -c | tr -s " \n" " "')
	echo "$name: --tclass $tc wanted; $out"
	# Both directions, 50 round trips each way at least, none in another class.
	awk -v n="$name" 'NF == 4 { d++; if ($3 < 50 || $4 != 0) { print n ": " $1 " -> " $2 ": " $3 " packets, " $4 " in another class"; bad = 1 } }
		END { exit bad || d != 2 }' <<<"$out"
}

wire tc104 4 104 "" "--tclass 104"
wire tc184 4 184 "" "--tclass 184"
wire tc96-listener 4 96 "--tclass 96" ""
wire tc106-ecn 4 106 "" "--tclass 106"
wire tc0 4 0 "" ""
wire tc104-v6 6 104 "" "--tclass 104"
t_done
