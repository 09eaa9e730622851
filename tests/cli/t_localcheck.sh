#!/bin/bash
# `ibscan local --check` and `--nccl-env` on the GPU-server sysfs trees (fixtures/sysfs/gpu-*): the
# NCCL settings against what show_gids and ibdev2netdev say of the same tree (tests/cli/sysfs_oracle.py,
# which reads sysfs as those scripts do, not through ibscan), the plugin exit codes, JSON and prom,
# the profile's errors, and output ready to source.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
fx=fixtures/sysfs
oracle() { python3 tests/cli/sysfs_oracle.py "$@"; }

# ---- --nccl-env equals what the oracle derives, on every layout ----
# tree, then the rail devices (none: every device with an Active port, as ibscan without a profile).
check_env() {
	local tree=$1 want
	shift
	want=$(oracle "$fx/$tree" nccl "$@")
	case $want in
	REFUSE*)
		run 1 local --nccl-env --sysfs "$fx/$tree" ${profile:+--profile "$profile"}
		[ ! -s "$TMP/out" ] || fail "$tree: --nccl-env printed something although it refuses"
		[ "$(wc -l <"$TMP/err")" -le 2 ] || fail "$tree: the refusal is more than one line and its hint"
		err_has "ibscan: error: ${want#REFUSE } port 1 has"
		;;
	*)
		run 0 local --nccl-env --sysfs "$fx/$tree" ${profile:+--profile "$profile"}
		diff -u <(echo "$want") <(grep -v '^#' "$TMP/out") >"$TMP/diff" || { cat "$TMP/diff"; fail "$tree: --nccl-env differs from show_gids/ibdev2netdev"; }
		;;
	esac
}
profile=
for tree in gpu-h100 gpu-gidmix gpu-container gpu-linklocal gpu-rocep gpu-ionic gpu-bond gpu-degraded roce ib-ipoib; do
	check_env "$tree"
done
# The H100's profile leaves the storage devices out of every variable.
profile=examples/gpu-h100-8rail.profile
check_env gpu-h100 mlx5_0 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_8 mlx5_9
grep -q 'mlx5_1:\|mlx5_2:' "$TMP/out" && fail "storage devices in the NCCL variables"
profile=

# What each layout is there to show, stated outright (and checked against the oracle's own view).
oracle "$fx/gpu-gidmix" show_gids | awk -F'\t' '$1=="mlx5_2" && $6=="v2" && $5!="" {print $3}' | grep -qx 5 ||
	fail "gpu-gidmix: show_gids does not put mlx5_2's v2 IPv4 GID at 5"
run 1 local --nccl-env --sysfs "$fx/gpu-gidmix"
err_has "ibscan: error: mlx5_2 port 1 has its RoCE v2 IPv4 GID at index 5, the other rails at 3: no single NCCL_IB_GID_INDEX"
run 0 local --nccl-env --sysfs "$fx/gpu-container"
out_has "NCCL_IB_GID_INDEX=7"
[ "$(oracle "$fx/gpu-container" show_gids | cut -f3 | sort -u | tr '\n' ' ')" = "4 5 6 7 " ] ||
	fail "gpu-container: the GID table is not only 4-7"
run 1 local --nccl-env --sysfs "$fx/gpu-linklocal"
err_has "mlx5_0 port 1 has no RoCE v2 GID with an IPv4 address"
run 0 local --nccl-env --sysfs "$fx/gpu-bond"
out_has "NCCL_SOCKET_IFNAME==bond0"
[ "$(oracle "$fx/gpu-bond" ibdev2netdev)" = "mlx5_bond_0 port 1 ==> bond0 (Up)" ] || fail "gpu-bond: ibdev2netdev"
run 0 local --nccl-env --sysfs "$fx/gpu-rocep"
out_has "NCCL_IB_HCA==rocep65s0f0:1,rocep65s0f1:1"
run 0 local --nccl-env --sysfs "$fx/gpu-ionic"
out_has "NCCL_IB_HCA==rocep9s0:1,rocep10s0:1" # natural order, as ls -v: 9 before 10
# A profile's gid-index that the rails do not have refuses too; one they have is used.
printf 'gid-index 2\n' >"$TMP/p2"
run 1 local --nccl-env --sysfs "$fx/gpu-h100" --profile "$TMP/p2"
err_has "at index 3, the profile says 2"
printf 'gid-index 3\nsocket-ifname =eno1\n' >"$TMP/p3"
run 0 local --nccl-env --sysfs "$fx/gpu-h100" --profile "$TMP/p3"
out_has "NCCL_SOCKET_IFNAME==eno1"

# Ready to source: `set -a; . FILE` exports exactly the values; -o writes the same file.
run 0 local --nccl-env --sysfs "$fx/gpu-h100" --profile examples/gpu-h100-8rail.profile -o "$TMP/nccl.conf"
[ ! -s "$TMP/out" ] || fail "-o also wrote stdout"
got=$(env -i bash -c 'set -a; . "$1"; set +a; printf "%s|%s|%s|%s" "$NCCL_IB_HCA" "$NCCL_IB_GID_INDEX" "$NCCL_SOCKET_IFNAME" "$UCX_NET_DEVICES"' _ "$TMP/nccl.conf")
[ "$got" = "=mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1|3|=ens100np0,ens112np0,ens116np0,ens120np0,ens124np0,ens128np0,ens132np0,ens136np0|mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1" ] ||
	fail "sourced: $got"
# /etc/nccl.conf is NAME=value lines (and comments): nothing else.
grep -vE '^(#.*|[A-Z_]+=[^ ]*)$' "$TMP/nccl.conf" && fail "a line nccl.conf would not take"

# ---- --check: verdicts and exit codes ----
run 0 local --check --sysfs "$fx/gpu-h100" --profile examples/gpu-h100-8rail.profile
[ "$(head -1 "$TMP/out")" = "IBSCAN LOCAL OK - 8 rail ports Active, Ethernet, RoCE v2 GID index 3, at least 400 Gb/s | rails=8 rails_active=8 critical=0 warning=0 gid_index=3" ] ||
	fail "h100 status line: $(head -1 "$TMP/out")"
run 1 local --check --sysfs "$fx/gpu-h100"
out_has "WARNING  port.rate       mlx5_1 port 1 runs at 200 Gb/s, below 400 (the fastest rail's)"
run 2 local --check --sysfs "$fx/gpu-gidmix"
out_has "CRITICAL gid.index       mlx5_2 port 1 has its RoCE v2 IPv4 GID at index 5, the other rails at 3"
out_has "WARNING  pcie.degraded   mlx5_1: PCIe link x8 at 32 GT/s, the device can x16 at 32 GT/s"
run 2 local --check --sysfs "$fx/gpu-linklocal"
out_has "gid.missing"
run 0 local --check --sysfs "$fx/gpu-container"
run 0 local --check --sysfs "$fx/gpu-bond"
run 0 local --check --sysfs "$fx/gpu-rocep"
run 0 local --check --sysfs "$fx/gpu-ionic"
printf 'rails mlx5_[0-3]\nports 4\n' >"$TMP/deg"
run 2 local --check --sysfs "$fx/gpu-degraded" --profile "$TMP/deg"
for want in "port.state      mlx5_2 port 1 is DOWN (Polling), not ACTIVE (LinkUp)" "rail.count      3 of 4 rail ports Active" \
	"port.rate       mlx5_3 port 1 runs at 100 Gb/s" "pcie.degraded   mlx5_1: PCIe link x16 at 16 GT/s" \
	"numa.unknown    mlx5_0" "firmware        mlx5_3 runs firmware 28.38.1002" "vf.guid         mlx5_4 is a VF with node GUID 0000:0000:0000:0000" \
	"vf.guid         mlx5_4 port 1 is a VF port with port GUID 0"; do
	out_has "$want"
done
# The sriov hypervisor's VF mlx5_2 has a zero node GUID (network-operator #1825): CRITICAL.
run 2 local --check --sysfs "$fx/sriov"
out_has "CRITICAL vf.guid         mlx5_2 is a VF with node GUID"
run 2 local --check --sysfs "$fx/noactive"
out_has "no rail: no device has an Active port"

# JSON and prom say the same verdict.
run 2 local --check --sysfs "$fx/gpu-degraded" --profile "$TMP/deg" --json
python3 - "$TMP/out" <<'PY' || fail "--check --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "ibscan.localcheck/1" and d["status"] == "CRITICAL" and d["exit_code"] == 2, d
assert d["counts"] == {"critical": 4, "warning": 4}, d["counts"]
checks = sorted(f["check"] for f in d["findings"])
assert checks == sorted(["port.state", "rail.count", "port.rate", "pcie.degraded", "numa.unknown", "firmware",
                         "vf.guid", "vf.guid"]), checks
r = {x["device"]: x for x in d["rails"]}
assert not r["mlx5_2"]["active"] and r["mlx5_3"]["rate_gbps"] == 100 and r["mlx5_1"]["numa_node"] == 0, r
assert d["gid_index"] is None and d["link_layer"] == "InfiniBand" and d["ports_wanted"] == 4, d
PY
run 0 local --check --sysfs "$fx/gpu-h100" --profile examples/gpu-h100-8rail.profile --format prom
python3 - "$TMP/out" <<'PY' || fail "--check --format prom"
import re, sys
m = {}
for l in open(sys.argv[1]):
    if l.startswith("#"):
        assert re.match(r"# (HELP|TYPE) ibscan_local_\w+ ", l), l
        continue
    k, v = l.rsplit(" ", 1)
    assert re.match(r'^ibscan_local_\w+(\{(\w+="[^"]*",?)+\})?$', k), k
    m[k] = float(v)
assert m["ibscan_local_up"] == 1 and m["ibscan_local_status"] == 0 and m["ibscan_local_gid_index"] == 3, m
assert m['ibscan_local_rails{state="active"}'] == 8, m
assert m['ibscan_local_rail_rate_gbps{device="mlx5_9",port="1"}'] == 400, m
assert not any('device="mlx5_1"' in k for k in m), "a storage device among the rails"
PY

# ---- UNKNOWN: a bad profile, no device, a usage error (plugin exit 3, the verdict still written) ----
printf 'rails mlx5_0\nrail mlx5_1\n' >"$TMP/bad"
run 3 local --check --sysfs "$fx/gpu-h100" --profile "$TMP/bad"
err_has "ibscan: error: $TMP/bad:2: unknown key 'rail'"
out_has "IBSCAN LOCAL UNKNOWN - $TMP/bad:2: unknown key 'rail'"
run 3 local --check --sysfs "$fx/gpu-h100" --profile "$TMP/bad" --format prom -o "$TMP/local.prom"
grep -qx "ibscan_local_up 0" "$TMP/local.prom" || fail "prom UNKNOWN lacks ibscan_local_up 0"
grep -qx "ibscan_local_status 3" "$TMP/local.prom" || fail "prom UNKNOWN lacks status 3"
run 3 local --check --sysfs "$fx/empty" --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["status"]=="UNKNOWN" and d["exit_code"]==3 and "no RDMA device" in d["reason"], d' "$TMP/out" || fail "UNKNOWN JSON"
run 3 local --check --sysfs "$fx/gpu-h100" --profile "$TMP/nonexistent"
err_has "$TMP/nonexistent"
run 3 local --nccl-env --sysfs "$fx/gpu-h100" --profile "$TMP/bad"
[ ! -s "$TMP/out" ] || fail "--nccl-env printed something with a bad profile"
head -c 70000 /dev/zero | tr '\0' '#' >"$TMP/huge"
run 3 local --check --sysfs "$fx/gpu-h100" --profile "$TMP/huge"
run 3 local --check --bogus
run 3 local --check --nccl-env
err_has "--check and --nccl-env are two runs"
run 2 local --nccl-env --format json
err_has "--nccl-env writes NAME=value lines: no --format"
run 2 local --profile "$TMP/p3"
err_has "--profile goes with --check or --nccl-env"
run 2 local --format prom
err_has "--format prom goes with --check"
t_done
