#!/bin/bash
# shellcheck disable=SC2016 # the guests' scripts expand in the guests
# ibscan ping between the two guests on real soft-RoCE, in every mode:
# send/recv, RDMA write, RDMA read, atomic fetch-and-add; latency and
# bandwidth; 2 bytes, past the path MTU (4 KiB on a 1024-byte MTU) and
# 1 MiB; addressed by the IPv4 and the IPv6 (RoCE v2) GID of the setup
# connection's address, both to the same default (dual-stack) listener;
# --tclass given to one side only, used by both. Alongside, in the same run, ibv_rc_pingpong,
# ib_send_lat and ib_write_bw between the same two devices. Under
# emulation a round trip takes 0.3-20 ms and jitters tenfold from one run
# to the next, so no absolute figure is asserted: exit codes, decoded
# fields (op, size, iterations, bytes, GIDs both sides chose, MTU) and
# relations (min <= median <= p99 <= max; bytes = iterations x size;
# Gb/s = bytes x 8 / elapsed; ibscan's median latency and perftest's
# t_typical within a factor of 20 of each other, the jitter of one run).
set -eu
. "$ROOT/tests/done.sh"
. "$ROOT/tests/rdma/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gidA4=0000:0000:0000:0000:0000:ffff:0a1d:0001 gidB4=0000:0000:0000:0000:0000:ffff:0a1d:0002
gidA6=fd29:0000:0000:0000:0000:0000:0000:0001 gidB6=fd29:0000:0000:0000:0000:0000:0000:0002

# probe NAME "LISTENER ARGS" "CLIENT ARGS": one probe, its JSON in $tmp/NAME.json
probe() {
	local name=$1 largs=$2 cargs=$3 rc=0
	WAITPORT=18515 vm_bg B /tmp/l.log ibscan ping --listen --wait 60 "$largs"
	vm A 90 "ibscan ping $cargs --json" >"$tmp/$name.json" || rc=$?
	[ "$rc" = 0 ] || { echo "probe $name: exit $rc"; cat "$tmp/$name.json"; vm B 5 'cat /tmp/l.log'; return 1; }
	# The listener served it and is gone, with status 0.
	vm B 20 'p=$(cat /tmp/l.log.pid); for _ in $(seq 100); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
		! kill -0 $p 2>/dev/null && grep -q "^served " /tmp/l.log'
}
# check NAME OP SIZE ITERS BW: the decoded fields and the relations
check() {
	local f=$tmp/$1.json
	jq -e --arg op "$2" --argjson size "$3" --argjson it "$4" --argjson bw "$5" '
		.schema == "ibscan.ping/1" and .role == "client" and .op == $op and .size == $size
		and .iterations == $it and .bandwidth == $bw and .bytes == $it * $size
		and .device == "rxe0" and .port == 1 and .addressing == "GID" and .path_mtu == 1024
		and .local.gid_type == "RoCE v2" and .remote.gid_type == "RoCE v2"
		and .local.link_layer == "Ethernet" and .local.qpn > 0 and .remote.qpn > 0
		and .elapsed_s > 0 and .messages_per_s > 0
		and ((.gbit_per_s - .bytes * 8 / .elapsed_s / 1e9) | fabs) <= 0.01 * .gbit_per_s + 1e-9
		and (if $bw then true else
			.latency_us.min > 0 and .latency_us.min <= .latency_us.median
			and .latency_us.median <= .latency_us.p99 and .latency_us.p99 <= .latency_us.max end)' "$f" >/dev/null ||
		{ echo "check $1 failed:"; cat "$f"; return 1; }
}
gids() { # gids NAME LOCAL REMOTE: the GIDs both sides used
	jq -e --arg l "$2" --arg r "$3" '.local.gid == $l and .remote.gid == $r' "$tmp/$1.json" >/dev/null ||
		{ echo "$1: GIDs $(jq -c '[.local.gid, .remote.gid]' "$tmp/$1.json"), not [$2, $3]"; return 1; }
}

for op in send write read; do
	probe "lat-$op" "" "10.29.0.2 --op $op --iters 200"
	check "lat-$op" $op 64 200 false
	gids "lat-$op" $gidA4 $gidB4
	probe "bw-$op" "" "10.29.0.2 --op $op --bw --iters 100"
	check "bw-$op" $op 65536 100 true
done
probe lat-atomic "" "10.29.0.2 --op atomic --iters 200"
check lat-atomic atomic 8 200 false
# Atomics are never sent inline: what ibscan reports is what it asked for.
jq -e '.method.inline_bytes == 0' "$tmp/lat-atomic.json" >/dev/null ||
	{ echo "atomic: inline_bytes $(jq .method.inline_bytes "$tmp/lat-atomic.json"), never inline"; exit 1; }
# 2 bytes, past the path MTU (4 KiB in 4 packets), 1 MiB.
probe lat-2 "" "10.29.0.2 --size 2 --iters 100"
check lat-2 send 2 100 false
probe lat-4k "" "10.29.0.2 --op write --size 4K --iters 100"
check lat-4k write 4096 100 false
probe bw-1m "" "10.29.0.2 --op write --bw --size 1M --iters 10"
check bw-1m write 1048576 10 true
# IPv6: the setup connection's address picks the IPv6 RoCE v2 GID, both sides.
# The same default listener as the IPv4 probes above (no --bind): it hears
# both families, and says so.
probe lat-v6 "" "fd29::2 --iters 100"
check lat-v6 send 64 100 false
gids lat-v6 $gidA6 $gidB6
vm B 5 'grep -qF "listening on :: (every IPv4 and IPv6 address) port 18515" /tmp/l.log' ||
	{ echo "the default listener does not say it hears both families:"; vm B 5 'cat /tmp/l.log'; exit 1; }
# --tclass travels in the hello: a listener given none answers in the client's
# class (its own result says so), and one given a class gives it to a client
# given none (rxe puts it in the IP header's TOS).
probe tclass "" "10.29.0.2 --tclass 104 --iters 50"
check tclass send 64 50 false
jq -e '.traffic_class == 104' "$tmp/tclass.json" >/dev/null &&
	vm B 5 'grep -q ", traffic class 104," /tmp/l.log' ||
	{ echo "--tclass 104 on the client only:"; cat "$tmp/tclass.json"; vm B 5 'cat /tmp/l.log'; exit 1; }
probe tclass-l "--tclass 96" "10.29.0.2 --iters 50"
jq -e '.traffic_class == 96' "$tmp/tclass-l.json" >/dev/null ||
	{ echo "--tclass 96 on the listener only:"; cat "$tmp/tclass-l.json"; exit 1; }
# Given an IPv4 address, the listener hears only it: an IPv6 client is refused.
WAITPORT=18515 vm_bg B /tmp/l4.log ibscan ping --listen --wait 20 --bind 10.29.0.2
vm A 30 'ibscan ping fd29::2 --iters 10 2>&1; echo "exit $?"' >"$tmp/v4only" || true
grep -q "^exit 3$" "$tmp/v4only" && grep -qF "an IPv4 --bind, or on a host without IPv6, hears IPv4 only" "$tmp/v4only" ||
	{ echo "an IPv6 client of an IPv4-only listener:"; cat "$tmp/v4only"; exit 1; }
vm B 10 'kill $(cat /tmp/l4.log.pid) 2>/dev/null; true'

# The reference tools, same devices, same run: each exits 0 with its figures.
vm_bg B /tmp/pp.log ibv_rc_pingpong -d rxe0 -g 1 -n 200 -s 64
sleep 1
vm A 60 'ibv_rc_pingpong -d rxe0 -g 1 -n 200 -s 64 10.29.0.2' >"$tmp/pp"
grep -E '^200 iters in [0-9.]+ seconds = [0-9.]+ usec/iter$' "$tmp/pp"
grep -F 'GID ::ffff:10.29.0.2' "$tmp/pp"
WAITPORT=18516 vm_bg B /tmp/pt.log ib_send_lat -d rxe0 -x 1 -n 200 -s 64 -p 18516
vm A 60 'ib_send_lat -d rxe0 -x 1 -n 200 -s 64 -p 18516 10.29.0.2' >"$tmp/sl"
typ=$(awk '$1 == 64 && $2 == 200 { print $5 }' "$tmp/sl")
[ -n "$typ" ] || { cat "$tmp/sl"; exit 1; }
probe lat-ref "" "10.29.0.2 --iters 200"
med=$(jq .latency_us.median "$tmp/lat-ref.json")
echo "send latency: ibscan median $med us, ib_send_lat t_typical $typ us"
awk -v a="$med" -v b="$typ" 'BEGIN { exit !(a < b * 20 && b < a * 20) }'
WAITPORT=18516 vm_bg B /tmp/pt.log ib_write_bw -d rxe0 -x 1 -n 100 -s 65536 -p 18516
vm A 90 'ib_write_bw -d rxe0 -x 1 -n 100 -s 65536 -p 18516 10.29.0.2' >"$tmp/wb"
avg=$(awk '$1 == 65536 && $2 == 100 { print $4 }' "$tmp/wb")
[ -n "$avg" ] || { cat "$tmp/wb"; exit 1; }
gb=$(jq .gbit_per_s "$tmp/bw-write.json")
echo "write bandwidth: ibscan $gb Gb/s, ib_write_bw $avg MB/s"
awk -v a="$gb" -v b="$avg" 'BEGIN { b = b * 8 / 1000; exit !(a < b * 20 && b < a * 20) }'
# Nothing left behind in either guest (within 10 s: the servers end as they exit): no QP
# but the GSI QP, no MR.
for g in A B; do
	vm $g 15 'for _ in $(seq 100); do
			! rdma res show qp | grep -v "type GSI" | grep -q . && ! rdma res show mr | grep -q . && exit 0
			sleep 0.1
		done; rdma res show qp; rdma res show mr; exit 1'
done
t_done
