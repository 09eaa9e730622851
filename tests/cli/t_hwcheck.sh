#!/bin/bash
# tools/hwcheck.sh without RDMA hardware: its refusals, its GID check on a fixture machine, read-only towards the fabric, shellcheck-clean.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
hw=tools/hwcheck.sh

# hwcheck WANT_RC ARGS...: stdout in $TMP/out, stderr in $TMP/err, within 10 s.
hwcheck() {
	local want=$1 rc=0 t0=$SECONDS
	shift
	timeout 60 bash "$hw" --ibscan "$IBSCAN" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = "$want" ] || { cat "$TMP/out" "$TMP/err" >&2; fail "hwcheck $* exited $rc, want $want"; }
	[ $((SECONDS - t0)) -le 10 ] || fail "hwcheck $* took $((SECONDS - t0)) s"
}

# This machine has no RDMA: exit 2 within seconds, saying so (as root or not).
if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
	hwcheck 2
	err_has "hwcheck: no RDMA device with an active port under /sys/class/infiniband: this host cannot run the check"
	[ ! -s "$TMP/out" ] || fail "hwcheck printed verdicts with no device"
fi
hwcheck 2 --sysfs fixtures/sysfs/empty
err_has "no RDMA device with an active port under fixtures/sysfs/empty/class/infiniband"
hwcheck 2 --sysfs fixtures/sysfs/noactive
err_has "no RDMA device with an active port"
hwcheck 2 --sysfs fixtures/sysfs/roce -C mlx5_9
err_has "(device mlx5_9)"
hwcheck 2 --frobnicate
err_has "hwcheck: unknown argument '--frobnicate'"
hwcheck 0 --help
out_has "Usage: tools/hwcheck.sh"

# An active RoCE port (the fixture machine): as another user, refused; as root, the GID table
# checked against sysfs read by the script itself; a wrong ibscan is caught.
if [ "$(id -u)" -ne 0 ]; then
	hwcheck 2 --sysfs fixtures/sysfs/roce
	err_has "hwcheck: run as root"
else
	hwcheck 0 --sysfs fixtures/sysfs/roce
	out_has "hwcheck: mlx5_0 port 1 (Ethernet)"
	out_has "PASS local: 6 GIDs of mlx5_0 port 1, their types and interfaces as sysfs"
	out_has "SKIP teardown: no probe ran"
	! grep -q '^FAIL' "$TMP/out" || fail "a check failed on the fixture"
	tail -1 "$TMP/out" | grep -q '^hwcheck: [0-9]* passed, 0 failed, [0-9]* skipped$' || fail "no count line"
	# An ibscan that reports GID 3 as RoCE v1: the local check fails, the run exits 1.
	cat >"$TMP/ibscan" <<SH
#!/bin/bash
"$IBSCAN" "\$@" || exit
[ "\$1" = local ] || exit 0
while [ \$# -gt 1 ] && [ "\$1" != -o ]; do shift; done
sed -i 's/"RoCE v2"/"IB\/RoCE v1"/' "\$2"
SH
	chmod +x "$TMP/ibscan"
	rc=0
	bash "$hw" --ibscan "$TMP/ibscan" --sysfs fixtures/sysfs/roce >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = 1 ] || fail "a wrong GID type: exit $rc, want 1"
	out_has "FAIL local: "
	out_has "sysfs '0000:0000:0000:0000:0000:ffff:c0a8:0a05 RoCE v2 ens1f0' ibscan '0000:0000:0000:0000:0000:ffff:c0a8:0a05 IB/RoCE v1 ens1f0'"
	out_has "hwcheck: 0 passed, 1 failed"

	# The probe checks' arithmetic, with stand-ins for perftest (its output format) and for
	# ibscan ping (a JSON result): 0.15 us apart passes, 7.6 % apart fails; teardown is checked.
	mkdir "$TMP/bin"
	cat >"$TMP/bin/ib_send_lat" <<'SH'
#!/bin/bash
[ $# -gt 8 ] || exit 0 # the server side
echo ' #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]'
echo ' 64      10000          1.02           3.45         1.10          1.12         0.05'
SH
	cat >"$TMP/bin/ib_write_bw" <<'SH'
#!/bin/bash
[ $# -gt 9 ] || exit 0
echo ' #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]'
echo ' 65536      5000             97.50              97.45                0.185870'
SH
	cat >"$TMP/ibscan" <<SH
#!/bin/bash
[ "\$1" = ping ] || exec "$IBSCAN" "\$@"
[ "\$2" = --listen ] && exit 0
while [ \$# -gt 1 ] && [ "\$1" != -o ]; do shift; done
echo '{"schema": "ibscan.ping/1", "latency_us": {"median": 1.25}, "gbit_per_s": 90.0}' >"\$2"
SH
	chmod +x "$TMP/bin"/* "$TMP/ibscan"
	rc=0
	PATH=$TMP/bin:$PATH bash "$hw" --ibscan "$TMP/ibscan" --sysfs fixtures/sysfs/roce >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = 1 ] || { cat "$TMP/out" "$TMP/err" >&2; fail "bandwidth 7.6 % off: exit $rc, want 1"; }
	out_has "PASS ping-latency: 64 B send, median us: ibscan 1.25, ib_send_lat 1.10 (within 0.3 us)"
	out_has "FAIL ping-bandwidth: 64 KiB RDMA write, Gb/s: ibscan 90, ib_write_bw 97.45 (more than 5 % apart)"
	if command -v rdma >/dev/null; then
		out_has "PASS teardown: rdma res show: "
	fi
fi

# Read-only towards the fabric: no counter reset, no SMP Set, no port state change.
! grep -nE -- 'perfquery[^|;]* -[a-zA-Z]*[rR]\b|--reset|reset-counters|ibportstate|ibsetstate|smpquery|ibclearcounters|ibclearerrors|opensm' "$hw" |
	grep -v '^[0-9]*:#' || fail "hwcheck.sh runs a command that could change the fabric"

if command -v shellcheck >/dev/null; then
	shellcheck "$hw" || fail "shellcheck finds fault with $hw"
fi
