#!/bin/bash
# shellcheck disable=SC2016 # the guests' scripts expand in the guests
# ibscan local (text and --json) on a real soft-RoCE device, field by field
# against ibv_devinfo -v, rdma link show -j and the GID table in sysfs as
# show_gids reads it (GID, type, netdev, the IPv4 address of each), then
# again after an IPv4 address, an IPv6 address and a VLAN with its own
# address are added (the kernel adds their GIDs), and after they are removed
# (their GIDs go): ibscan follows the table as it changes under it.
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

for g in A B; do cmp_now $g base-$g; done
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
v2gids "$tmp/added" | grep -qx '0000:0000:0000:0000:0000:ffff:0a1d:0701 eth0'
v2gids "$tmp/added" | grep -qx 'fd77:0000:0000:0000:0000:0000:0000:0001 eth0'
v2gids "$tmp/added" | grep -qx '0000:0000:0000:0000:0000:ffff:0a1d:6401 eth0.100'
v2gids "$tmp/added" | grep -qx 'fd78:0000:0000:0000:0000:0000:0000:0001 eth0.100'
[ "$(jq -r '.devices[0].ports[0].gids[] | select(.netdev == "eth0.100" and .ipv4 != null) | .ipv4' "$tmp/added/local.json")" = 10.29.100.1 ]
grep -E '^ +[0-9]+ +0000:0000:0000:0000:0000:ffff:0a1d:6401 +RoCE v2 +eth0\.100 +10\.29\.100\.1' "$tmp/added/local.txt"

vm A 20 'ip link del eth0.100; ip addr del 10.29.7.1/24 dev eth0; ip addr del fd77::1/64 dev eth0'
wait_gids A "$n0"
cmp_now A removed
diff <(v2gids "$tmp/base-A") <(v2gids "$tmp/removed")
t_done
