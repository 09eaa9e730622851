#!/bin/bash
# tools/hwcheck/hwcheck.sh without RDMA hardware: its refusals; every check, PASS against a right ibscan and
# FAIL against one wrong in what it compares, on fixture machines (InfiniBand only, RoCE first, a
# planarized pair, RoCE only) with stand-ins of the tools; read-only towards the fabric; shellcheck-clean.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
hw=tools/hwcheck/hwcheck.sh

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
out_has "Usage: tools/hwcheck/hwcheck.sh"

# The script on fixture machines (fixtures/sysfs/hw-*), with stand-ins of every tool it runs
# (tests/cli/hwcheck-standins.sh: the real tools' output recorded on the simulator, or the formats of
# their sources) and of ibscan. Each check passes on a right ibscan and fails on one that is wrong
# in what that check compares, and only that check fails.
if [ "$(id -u)" -ne 0 ]; then
	hwcheck 2 --sysfs fixtures/sysfs/roce
	err_has "hwcheck: run as root"
else
	. "$ROOT/tests/cli/hwcheck-standins.sh"
	cc -shared -fPIC -o "$TMP/eacces.so" "$ROOT/tests/cli/preload/eacces.c" || fail "cannot build the preload"
	export HWCHECK_EACCES=$TMP/eacces.so
	# umad-permission runs ibscan as nobody: the stand-ins must be reachable by that user.
	chmod 755 "$TMP"
	chmod 644 "$TMP/eacces.so"
	real_ibscan=$(for_others "${IBSCAN_PRELOAD_BIN:-$ROOT/ibscan}") # the checkout may be closed to nobody
	# standins [DIR]: a fresh state, bin and ibscan for one run, in DIR (default $TMP/run).
	standins() {
		local d=${1:-$TMP/run}
		rm -rf "$d"
		mkdir -p "$d"
		chmod 755 "$d"
		make_standins "$d/bin" "$d/st" "$ROOT/fixtures/hwcheck"
		make_ibscan "$d/ibscan" "$real_ibscan" "$ROOT/fixtures/hwcheck" "$d/st" "$ROOT/fixtures/captures"
	}
	# run_hw WANT_RC SYSFS [ARGS...]: hwcheck with the stand-ins first on PATH; RUN_DIR picks its
	# directory (output in RUN_DIR/out), so that several can run at once.
	run_hw() {
		local want=$1 sys=$2 rc=0 d=${RUN_DIR:-$TMP/run}
		shift 2
		standins "$d"
		HWCHECK_SYSFS=$sys PATH=$d/bin:$PATH timeout 300 bash "$hw" --ibscan "$d/ibscan" --sysfs "$sys" "$@" \
			>"$d/out" 2>"$d/err" || rc=$?
		cp "$d/out" "$TMP/out"
		! ls "$d/st"/listen-* >/dev/null 2>&1 || fail "hwcheck --sysfs $sys $*: a listener is left running"
		[ "$rc" = "$want" ] || { cat "$d/out" "$d/err" >&2; fail "hwcheck --sysfs $sys $* (wrong: ${HWCHECK_WRONG:-none}) exited $rc, want $want"; }
	}
	ib_checks="vl15 topology walk-time counters counters-ext counters-rate path routes sm port-states degraded gids umad-permission sigint-walk"
	probe_checks="local local-port ping-latency ping-read ping-atomic ping-bandwidth sigint-ping teardown"

	# InfiniBand only: every check runs and passes.
	run_hw 0 fixtures/sysfs/hw-ib
	out_has "hwcheck: probe on mlx5_0 port 1 (InfiniBand); InfiniBand checks on mlx5_0 port 1"
	for c in $ib_checks $probe_checks; do
		grep -q "^PASS $c: " "$TMP/out" || { cat "$TMP/out" >&2; fail "hw-ib: $c did not pass"; }
	done
	out_has "PASS path: LID 1 to 1: slid, dlid, sl, mtu as saquery"
	out_has "PASS routes: 2 switches: every LFT entry as ibroute -n"
	out_has "PASS counters: 17 counters of 0x0000000000200000 port 1 between two perfquery readings"
	out_has "PASS umad-permission: as nobody, /dev/infiniband/umad0: exit 3"
	tail -1 "$TMP/out" | grep -qx "hwcheck: 22 passed, 0 failed, 0 skipped" || fail "hw-ib: $(tail -1 "$TMP/out")"
	cp "$TMP/out" "$TMP/right.out"

	# Each check against an ibscan wrong in what it compares: that check fails, and no other
	# (four runs at a time, each in its own directory).
	wrong_run() {
		local c=$1
		RUN_DIR=$TMP/w-$c HWCHECK_WRONG=$c run_hw 1 fixtures/sysfs/hw-ib 2>"$TMP/w-$c.log" || return 1
		grep -q "^FAIL $c: " "$TMP/w-$c/out" || { cat "$TMP/w-$c/out"; echo "a wrong ibscan for $c: no FAIL $c"; return 1; }
		[ "$(grep -c '^FAIL' "$TMP/w-$c/out")" = 1 ] || { cat "$TMP/w-$c/out"; echo "a wrong ibscan for $c fails other checks too"; return 1; }
	}
	n=0 bad=
	for c in $ib_checks $probe_checks; do
		[ "$c" = local ] && continue # proven below, on a GID type
		(wrong_run "$c" >"$TMP/w-$c.res" 2>&1) &
		n=$((n + 1))
		[ $((n % 4)) != 0 ] || wait
	done
	wait
	for c in $ib_checks $probe_checks; do
		[ "$c" = local ] && continue
		[ -s "$TMP/w-$c.res" ] && { cat "$TMP/w-$c.res" "$TMP/w-$c.log" >&2; bad="$bad $c"; }
		grep -q "^FAIL $c: " "$TMP/w-$c/out" 2>/dev/null || { cat "$TMP/w-$c/out" "$TMP/w-$c/err" >&2 2>/dev/null; bad="$bad $c"; }
	done
	[ -z "$bad" ] || fail "wrong ibscans not caught (or caught by other checks too):$bad"
	echo "ok: every check fails on an ibscan wrong in what it compares, alone"

	# RoCE first: the probe on the RoCE port, perftest given ibscan's GID index (the stand-in
	# reports a far-off figure without it); the InfiniBand checks on the HCA behind it.
	HWCHECK_WANT_GID=3 run_hw 0 fixtures/sysfs/hw-roce-first
	out_has "hwcheck: probe on mlx5_0 port 1 (Ethernet); InfiniBand checks on mlx5_1 port 1"
	out_has "PASS ping-latency: 64 B send, median us: ibscan 1.25, ib_send_lat 1.10 (within 0.3 us, a factor of 1.273 either way: 0.8643 to 1.4, ib_send_lat spread 0.00 us over two runs, GID index 3)"
	out_has "PASS topology: "
	out_has "PASS umad-permission: as nobody, /dev/infiniband/umad1: exit 3"
	# A planarized pair: the GSI half (IsSMDisabled) is passed over for the SMI half.
	run_hw 0 fixtures/sysfs/hw-planarized
	out_has "InfiniBand checks on mlx5_1 port 1"
	out_has "PASS sm: master at LID 1"
	run_hw 0 fixtures/sysfs/hw-planarized -C mlx5_0
	for c in $ib_checks; do
		grep -q "^SKIP $c: no InfiniBand port (the active one has IsSMDisabled" "$TMP/out" || { cat "$TMP/out" >&2; fail "planarized -C mlx5_0: no SKIP $c"; }
	done
	# RoCE only: every InfiniBand check says why it did not run.
	run_hw 0 fixtures/sysfs/roce
	for c in $ib_checks; do
		grep -qx "SKIP $c: no InfiniBand port" "$TMP/out" || { cat "$TMP/out" >&2; fail "roce: no SKIP $c"; }
	done
	out_has "PASS local: 6 GIDs of mlx5_0 port 1, their types and interfaces as sysfs"

	# Against a peer: its own device, port and ibscan; perftest and ibscan on distinct TCP ports, each
	# listener waited for; what ssh started on the peer is stopped there.
	run_hw 0 fixtures/sysfs/hw-ib --peer node02 --peer-ca mlx5_7 --peer-port 2 --peer-ibscan "$TMP/run/ibscan"
	log=$TMP/run/st/ssh.log
	grep -q "exec $TMP/run/ibscan ping --listen -C mlx5_7 -P 2 --tcp-port 18517" "$log" || { cat "$log" >&2; fail "peer: the listener is not the peer's"; }
	grep -q "exec ib_send_lat -d mlx5_7 -i 2 -s 64 -n 10000 -p 18516" "$log" || { cat "$log" >&2; fail "peer: perftest not on the peer's device and its own TCP port"; }
	[ "$(grep -c '^kill ' "$log")" -ge 5 ] || { cat "$log" >&2; fail "peer: the processes started there are not stopped"; }
	! ls "$TMP/run/st"/listen-* >/dev/null 2>&1 || fail "peer: a listener is left running"
	# perftest varying by itself (88.00, then 97.45 Gb/s): ibscan's 97 is 10.2 % above its first run,
	# within twice perftest's own spread (in percent of the smaller run: 21.5 %), so it passes, saying why.
	HWCHECK_BW_SPREAD=1 run_hw 0 fixtures/sysfs/hw-ib
	out_has "PASS ping-bandwidth: 64 KiB RDMA write, Gb/s: ibscan 97, ib_write_bw 88.00 (within 21.5 %, a factor of 1.215 either way: 72.43 to 106.9, ib_write_bw spread 21.5 % over two runs"
	# The same for latency (1.80, then 1.10 us; under emulation runs differ by milliseconds):
	# ibscan's 1.25 is 0.55 us below the first run, within twice the spread (1.40 us, a factor of 1.778:
	# down to 1.013 us).
	HWCHECK_LAT_SPREAD=1 run_hw 0 fixtures/sysfs/hw-ib
	out_has "PASS ping-latency: 64 B send, median us: ibscan 1.25, ib_send_lat 1.80 (within 1.40 us, a factor of 1.778 either way: 1.013 to 3.2, ib_send_lat spread 1.40 us over two runs"
	hwcheck 2 --perftest-port 18517 --ibscan-port 18517 --sysfs fixtures/sysfs/hw-ib
	err_has "perftest and ibscan need two TCP ports"
	hwcheck 2 --lat-iters 0 --sysfs fixtures/sysfs/hw-ib
	err_has "--lat-iters needs a positive number, not '0'"
	hwcheck 2 --bw-iters x --sysfs fixtures/sysfs/hw-ib
	err_has "--bw-iters needs a positive number, not 'x'"
	hwcheck 2 --lat-tol 1us --sysfs fixtures/sysfs/hw-ib
	err_has "--lat-tol needs microseconds, not '1us'"
	hwcheck 2 --bw-tol -5 --sysfs fixtures/sysfs/hw-ib
	err_has "--bw-tol needs a percentage, not '-5'"
	# Tolerances given: a median 8.89 us above passes within 10 us. A tolerance is a factor either way:
	# a bandwidth 48.7 % below (97.45 / 50: a factor of 1.95) fails within 90 % and passes within 100 %.
	HWCHECK_WRONG=ping-latency run_hw 0 fixtures/sysfs/hw-ib --lat-tol 10
	out_has "PASS ping-latency: 64 B send, median us: ibscan 9.99, ib_send_lat 1.10 (within 10 us, a factor of 10.09 either way: 0.109 to 11.1"
	HWCHECK_WRONG=ping-bandwidth run_hw 1 fixtures/sysfs/hw-ib --bw-tol 90
	out_has "FAIL ping-bandwidth: 64 KiB RDMA write, Gb/s: ibscan 50, ib_write_bw 97.45 (not within 90 %, a factor of 1.9 either way: 51.29 to 185.2"
	HWCHECK_WRONG=ping-bandwidth run_hw 0 fixtures/sysfs/hw-ib --bw-tol 100
	out_has "PASS ping-bandwidth: 64 KiB RDMA write, Gb/s: ibscan 50, ib_write_bw 97.45 (within 100 %, a factor of 2 either way: 48.73 to 194.9"
	# A GID table that reads empty (the port is active): local compared nothing, so it fails.
	cp -a fixtures/sysfs/roce "$TMP/nogids"
	for f in "$TMP"/nogids/class/infiniband/mlx5_0/ports/1/gids/*; do echo 0000:0000:0000:0000:0000:0000:0000:0000 >"$f"; done
	run_hw 1 "$TMP/nogids"
	out_has "FAIL local:  no GID read from $TMP/nogids/class/infiniband/mlx5_0/ports/1/gids;"

	# The lying ibscans of tests/hwcheck-liars.sh, each over the stand-in ibscan on the RoCE-only
	# fixture (the guests of tests/rdma/t_hwcheck.sh run the same ones over the real ibscan): exactly
	# the probe checks a lie touches fail, the others pass (--only: the probe checks, no SKIP lines);
	# no listener is left running. Every command but the lie is the stand-in itself (exec):
	# hwcheck's cleanup stops the listeners it started. The tolerances are as wide as the guests'
	# (there 20 ms on a round trip of about 1 ms, and 200 %): wider than each latency here (1.10-2.20
	# us) and past 100 %, where a difference could no longer catch a figure too low. A lie caught at
	# these is caught at any narrower one.
	. "$ROOT/tests/hwcheck-liars.sh"
	for lie in $LIARS; do
		standins "$TMP/run"
		make_liar "$TMP/liar-$lie" "$TMP/run/ibscan" "$lie"
		rc=0
		HWCHECK_SYSFS=fixtures/sysfs/roce PATH=$TMP/run/bin:$PATH timeout 120 bash "$hw" --ibscan "$TMP/liar-$lie" \
			--sysfs fixtures/sysfs/roce --only "${probe_checks// /,}" --lat-tol 3 --bw-tol 200 >"$TMP/liar-$lie.out" 2>"$TMP/err" || rc=$?
		PATH=$TMP/run/bin:$PATH liar_cleanup "$TMP/liar-$lie"
		[ "$rc" = 1 ] || { cat "$TMP/liar-$lie.out" "$TMP/err" >&2; fail "an ibscan that lies ($lie): exit $rc, want 1"; }
		liar_verdicts "$lie" "$TMP/liar-$lie.out" "$probe_checks" >&2 || { cat "$TMP/liar-$lie.out" >&2; fail "$lie: not exactly $(liar_fails "$lie") failed"; }
		! ls "$TMP/run/st"/listen-* >/dev/null 2>&1 || fail "$lie: a listener is left running"
	done
	cp "$TMP/liar-gid-type.out" "$TMP/out"
	out_has "sysfs '0000:0000:0000:0000:0000:ffff:c0a8:0a05 RoCE v2 ens1f0' ibscan '0000:0000:0000:0000:0000:ffff:c0a8:0a05 IB/RoCE v1 ens1f0'"
	cp "$TMP/liar-port-state.out" "$TMP/out"
	out_has "FAIL local-port: ibv_devinfo 'PORT_ACTIVE 0 Ethernet', ibscan local 'PORT_INIT 0 Ethernet'"
	# Mute: each figure check fails at once, saying so (perftest is not run for nothing).
	cp "$TMP/liar-mute.out" "$TMP/out"
	for c in ping-latency ping-read ping-atomic ping-bandwidth; do out_has "FAIL $c: no figure from ibscan ping (exit 0)"; done
	out_has "FAIL sigint-ping: ping --bw after SIGINT: exit 0"
	# Figures that are there but 1000 times off (a median of 1250 us instead of 1.25, as under
	# emulation; 97,000 Gb/s instead of 97): each fails against perftest's figure: hwcheck
	# compares, not only asks for a number.
	cp "$TMP/liar-ping-figures.out" "$TMP/out"
	out_has "FAIL ping-latency: 64 B send, median us: ibscan 1250, ib_send_lat 1.10"
	out_has "FAIL ping-read: 64 B RDMA read, median us: ibscan 2100, ib_read_lat 2.00"
	out_has "FAIL ping-atomic: 8 B atomic, median us: ibscan 2300, ib_atomic_lat 2.20"
	out_has "FAIL ping-bandwidth: 64 KiB RDMA write, Gb/s: ibscan 97000, ib_write_bw 97.45 (not within 200 %, a factor of 3 either way: 32.48 to 292.4"
	tail -1 "$TMP/out" | grep -qx "hwcheck: 4 passed, 4 failed, 0 skipped" || fail "ping-figures: $(tail -1 "$TMP/out")"
	# And 1000 times off the other way (a median of 0.00125 us, 0.097 Gb/s): a difference of at most
	# 3 us or 200 % let these pass; a factor catches them as it does figures too high.
	cp "$TMP/liar-ping-figures-low.out" "$TMP/out"
	out_has "FAIL ping-latency: 64 B send, median us: ibscan 0.00125, ib_send_lat 1.10 (not within 3 us, a factor of 3.727 either way: 0.2951 to 4.1"
	out_has "FAIL ping-read: 64 B RDMA read, median us: ibscan 0.0021"
	out_has "FAIL ping-atomic: 8 B atomic, median us: ibscan 0.0023, ib_atomic_lat 2.20"
	out_has "FAIL ping-bandwidth: 64 KiB RDMA write, Gb/s: ibscan 0.097, ib_write_bw 97.45 (not within 200 %, a factor of 3 either way: 32.48 to 292.4"
	tail -1 "$TMP/out" | grep -qx "hwcheck: 4 passed, 4 failed, 0 skipped" || fail "ping-figures-low: $(tail -1 "$TMP/out")"
	cp "$TMP/liar-leak-qp.out" "$TMP/out"
	out_has "FAIL teardown: rdma res show: 3 QPs on mlx5_0/1"

	# --only: the checks named, nothing printed for the others; a name it does not know is refused.
	run_hw 0 fixtures/sysfs/hw-ib --only sm,local-port --only teardown
	[ "$(grep -cE '^(PASS|FAIL|SKIP) ' "$TMP/out")" = 3 ] || { cat "$TMP/out" >&2; fail "--only sm,local-port,teardown: not three verdicts"; }
	out_has "PASS sm: "
	out_has "PASS local-port: "
	out_has "SKIP teardown: no probe ran"
	hwcheck 2 --only sm,frobnicate --sysfs fixtures/sysfs/hw-ib
	err_has "hwcheck: --only: no check 'frobnicate' (--help lists them)"
fi

# Read-only towards the fabric: no counter reset, no SMP Set, no port state change; smpquery reads GUIDInfo only.
! grep -nE -- 'perfquery[^|;]* -[a-zA-Z]*[rR]\b|--reset|reset-counters|ibportstate|ibsetstate|ibclearcounters|ibclearerrors|opensm' "$hw" |
	grep -v '^[0-9]*:#' || fail "hwcheck.sh runs a command that could change the fabric"
! grep -n 'smpquery' "$hw" | grep -v '^[0-9]*:[[:space:]]*#' | grep -v 'smpquery -C "$ica" -P "$iport" GI "$lid"' | grep -v 'need smpquery' ||
	fail "hwcheck.sh runs smpquery for more than GUIDInfo"

if command -v shellcheck >/dev/null; then
	shellcheck "$hw" || fail "shellcheck finds fault with $hw"
fi
t_done
