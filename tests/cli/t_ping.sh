#!/bin/bash
# `ibscan ping`: on this machine (no RDMA in the kernel) both roles fail at once
# with a clear message and exit 3, never waiting on the network; usage errors exit 2.
. "$(dirname "$0")/lib.sh"

rdma=0
ls /sys/class/infiniband/* >/dev/null 2>&1 && rdma=1

# Bounded: a probe that hung would fail the test, not stall it.
probe() {
	local want=$1 rc=0
	shift
	timeout 30 "$IBSCAN" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" != 124 ] || fail "ibscan $* did not finish within 30 s"
	[ "$rc" = "$want" ] || { cat "$TMP/err" >&2; fail "ibscan $* exited $rc, want $want"; }
}

for args in "127.0.0.1" "127.0.0.1 --op write --bw" "--listen" "--listen --bind 127.0.0.1 --tcp-port 18599"; do
	# shellcheck disable=SC2086
	probe 3 ping $args
	[ ! -s "$TMP/out" ] || fail "ping $args printed something on stdout"
	if [ "$rdma" = 0 ]; then
		err_has "ibscan: error: no RDMA device found"
		err_has "ibscan: hint: "
		err_has "ibscan local"
	fi
done
probe 3 ping 127.0.0.1 -C mlx5_9
[ "$rdma" = 1 ] || err_has "no RDMA device"

# Usage errors: one line, and a hint.
run 2 ping
err_has "missing HOST (the host running 'ibscan ping --listen'), or --listen"
err_has "see 'ibscan help ping'"
run 2 ping --listen somehost
err_has "--listen takes no HOST"
run 2 ping somehost --bind 127.0.0.1
err_has "--bind is for the listener (--listen)"
run 2 ping somehost --wait 5
err_has "--wait is for the listener (--listen)"
run 2 ping a b
err_has "unexpected argument 'b'"
run 2 ping somehost --op frob
err_has "unknown --op 'frob' (send, write, read or atomic)"
for bad in 0 17M 1G -1 x 4Q; do
	run 2 ping somehost --size "$bad"
	err_has "--size wants bytes from 1 to 16M"
done
run 2 ping somehost --op atomic --size 64
err_has "--op atomic moves 8 bytes"
run 2 ping somehost --iters 0
err_has "--iters wants a number from 1 to 10000000"
run 2 ping somehost --tcp-port 70000
err_has "--tcp-port wants a port number from 1 to 65535"
run 2 ping somehost --timeout 0
err_has "--timeout wants milliseconds"
for bad in 0 -1 x 86401; do
	run 2 ping somehost --deadline "$bad"
	err_has "--deadline wants seconds (more than 0, at most 86400), not '$bad'"
done
run 2 ping somehost --gid-index x
err_has "--gid-index wants a GID table index"
for bad in 16 -1 x; do
	run 2 ping somehost --sl "$bad"
	err_has "--sl wants a service level from 0 to 15, not '$bad'"
done
run 2 ping somehost --tclass 256
err_has "--tclass wants a traffic class from 0 to 255 (DSCP x 4), not '256'"
run 2 ping somehost --pkey-index 65536
err_has "--pkey-index wants a P_Key table index, not '65536'"
for bad in 0 49152 x; do
	run 2 ping somehost --dlid "$bad"
	err_has "--dlid wants a unicast LID from 1 to 49151, not '$bad'"
done
run 2 ping somehost --format dot
err_has "unknown format 'dot' (text or json)"
run 2 ping somehost --window 3
err_has "unknown option '--window'"

# The help lists every option.
run 0 help ping
for opt in --listen --tcp-port --bind --wait --ca --port --gid-index --sl --tclass --pkey-index --dlid --op --bw \
	--iters --size --timeout --deadline \
	--format --json --output --verbose --quiet; do
	out_has "$opt"
done
t_done
