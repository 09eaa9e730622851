#!/bin/bash
# shellcheck disable=SC2016 # the guests' scripts expand in the guests
# ibscan local (text and --json) on a real soft-RoCE device, field by field
# against ibv_devinfo -v, rdma link show -j and the GID table in sysfs as
# show_gids reads it (GID, type, netdev, the IPv4 address of each), then
# again after an IPv4 address, an IPv6 address and a VLAN with its own
# address are added (the kernel adds their GIDs), and after they are removed
# (their GIDs go): ibscan follows the table as it changes under it. At each
# step, `local --nccl-env` and `local --check` say the GID index the table
# gives, and the two guests' documents make an OK `fleet`.
set -eu
. "$ROOT/tests/done.sh"
. "$ROOT/tests/rdma/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmp_now() { # cmp_now NAME STEP: snapshot and compare
	vm_snap "$1" "$tmp/$2"
	python3 "$ROOT/tests/rdma/cmp_local.py" "$tmp/$2" || { cat "$tmp/$2/local.txt"; exit 1; }
}
# v2gids DIR: the RoCE v2 GIDs ibscan listed, sorted
v2gids() { jq -r '.devices[].ports[].gids[] | select(.type == "RoCE v2") | "\(.gid) \(.netdev)"' "$1/local.json" | sort; }
# wait_gids NAME N: until the guest's rxe0 has N non-zero GIDs (the kernel adds them asynchronously)
wait_gids() {
	vm "$1" 20 'for _ in $(seq 100); do
		n=$(grep -c -v "^0000:0000:0000:0000:0000:0000:0000:0000$" /sys/class/infiniband/rxe0/ports/1/gids/* | grep -c -v ":0$")
		[ "$n" = '"$2"' ] && exit 0; sleep 0.1; done; echo "GIDs: $n, not '"$2"'"; exit 1'
}

# gpu_ready NAME STEP: `local --nccl-env` and `local --check` in the guest against
# its GID table read from sysfs there (the lowest RoCE v2 GID that holds an
# IPv4 address, as NCCL_IB_GID_INDEX must name: docs/checks.md).
gpu_ready() {
	local want
	want=$(vm "$1" 10 'cd /sys/class/infiniband/rxe0/ports/1
		for i in $(ls gids | sort -n); do
			[ "$(cat gid_attrs/types/$i 2>/dev/null)" = "RoCE v2" ] || continue
			case $(cat gids/$i) in 0000:0000:0000:0000:0000:ffff:*) echo "$i"; exit 0 ;; esac
		done; echo none')
	vm "$1" 20 'ibscan local --nccl-env' >"$tmp/$2.nccl" || { cat "$tmp/$2.nccl"; echo "nccl-env failed in $1"; exit 1; }
	grep -qx 'NCCL_IB_HCA==rxe0:1' "$tmp/$2.nccl" && grep -qx "NCCL_IB_GID_INDEX=$want" "$tmp/$2.nccl" &&
		grep -qx 'NCCL_SOCKET_IFNAME==eth0' "$tmp/$2.nccl" && grep -qx 'UCX_NET_DEVICES=rxe0:1' "$tmp/$2.nccl" ||
		{ cat "$tmp/$2.nccl"; echo "$1 ($2): not the environment its GID table (v2 IPv4 at $want) gives"; exit 1; }
	vm "$1" 20 'ibscan local --check --format json' >"$tmp/$2.check.json" ||
		{ cat "$tmp/$2.check.json"; echo "local --check failed in $1"; exit 1; }
	jq -e --argjson i "$want" '.status == "OK" and .exit_code == 0 and .gid_index == $i and (.rails | length) == 1
		and .rails[0].device == "rxe0" and .rails[0].netdev == "eth0" and .rails[0].gid_index == $i
		and .rails[0].link_layer == "Ethernet" and .rails[0].active' "$tmp/$2.check.json" >/dev/null ||
		{ cat "$tmp/$2.check.json"; echo "$1 ($2): local --check does not say what sysfs does"; exit 1; }
}

for g in A B; do cmp_now $g base-$g; gpu_ready $g base-$g; done
# The two guests, as a fleet: the same devices, rails and GID index: OK.
"$IBSCAN" fleet "$tmp/base-A/local.json" "$tmp/base-B/local.json" >"$tmp/fleet.txt" ||
	{ cat "$tmp/fleet.txt"; echo "fleet of the two guests is not OK"; exit 1; }
grep -q '^IBSCAN FLEET OK' "$tmp/fleet.txt" || { cat "$tmp/fleet.txt"; exit 1; }
# Empty firmware is no "firmware ,": rxe has none.
if [ ! -s "$tmp/base-A/fw_ver" ] || [ -z "$(tr -d '\n' <"$tmp/base-A/fw_ver")" ]; then
	grep -q 'firmware ,' "$tmp/base-A/local.txt" && exit 1
	[ "$(jq -r '.devices[0].fw_ver' "$tmp/base-A/local.json")" = null ]
fi
# The probe's default GID: RoCE v2 with the guest's IPv4 address.
[ "$(jq -r '.devices[0].ports[0].gids[] | select(.index == '"$(jq '.devices[0].ports[0].probe_gid_index' "$tmp/base-A/local.json")"') | .ipv4' "$tmp/base-A/local.json")" = 10.29.0.1 ]
n0=$(v2gids "$tmp/base-A" | wc -l)

vm A 20 'ip addr add 10.29.7.1/24 dev eth0
	ip addr add fd77::1/64 dev eth0 nodad
	ip link add link eth0 name eth0.100 type vlan id 100
	ip link set eth0.100 up
	ip addr add 10.29.100.1/24 dev eth0.100
	ip addr add fd78::1/64 dev eth0.100 nodad'
# eth0.100 brings its link-local address too: 5 new GIDs in all.
wait_gids A $((n0 + 5))
cmp_now A added
# Another IPv4 address adds a GID at a higher index: NCCL's index stays the lowest.
gpu_ready A added
v2gids "$tmp/added" | grep -qx '0000:0000:0000:0000:0000:ffff:0a1d:0701 eth0'
v2gids "$tmp/added" | grep -qx 'fd77:0000:0000:0000:0000:0000:0000:0001 eth0'
v2gids "$tmp/added" | grep -qx '0000:0000:0000:0000:0000:ffff:0a1d:6401 eth0.100'
v2gids "$tmp/added" | grep -qx 'fd78:0000:0000:0000:0000:0000:0000:0001 eth0.100'
[ "$(jq -r '.devices[0].ports[0].gids[] | select(.netdev == "eth0.100" and .ipv4 != null) | .ipv4' "$tmp/added/local.json")" = 10.29.100.1 ]
grep -E '^ +[0-9]+ +0000:0000:0000:0000:0000:ffff:0a1d:6401 +RoCE v2 +eth0\.100 +10\.29\.100\.1' "$tmp/added/local.txt"

vm A 20 'ip link del eth0.100; ip addr del 10.29.7.1/24 dev eth0; ip addr del fd77::1/64 dev eth0'
wait_gids A "$n0"
cmp_now A removed
gpu_ready A removed
diff <(v2gids "$tmp/base-A") <(v2gids "$tmp/removed")
t_done
