#!/bin/bash
# shellcheck disable=SC2016 # the guests' scripts expand in the guests
# ibscan ping's failure paths on a real RDMA stack: nothing listening (IPv4
# and IPv6), a GID index past the table and an empty one, a P_Key index
# past the table, the peer killed mid-run, SIGINT during --bw, and the
# link taken down mid-run (ip link set eth0 down in the listener's guest).
# Each: its documented exit status (3 runtime failure; 130 for SIGINT),
# within its deadline, one "ibscan: error:" line that says what happened,
# and afterwards no queue pair (but the kernel's GSI QP), completion queue
# (but the kernel's), memory region or protection domain left in either
# guest (rdma res show).
set -eu
. "$ROOT/tests/done.sh"
. "$ROOT/tests/rdma/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# fails RC SECS "MESSAGE" CMD: in guest A, CMD exits RC within SECS with one error line holding MESSAGE
fails() {
	local want=$1 secs=$2 msg=$3 rc=0 t0=$SECONDS
	shift 3
	vm A $((secs + 5)) "$* 2>&1" >"$tmp/out" || rc=$?
	cat "$tmp/out"
	[ "$rc" = "$want" ] || { echo "FAIL: '$*' exited $rc, not $want"; return 1; }
	[ $((SECONDS - t0)) -le "$secs" ] || { echo "FAIL: '$*' took $((SECONDS - t0)) s, over $secs"; return 1; }
	[ "$(grep -c '^ibscan: error: ' "$tmp/out")" = 1 ] || { echo "FAIL: not one error line"; return 1; }
	grep -qF -- "$msg" "$tmp/out" || { echo "FAIL: no '$msg'"; return 1; }
}
# clean: nothing of the probe's left in either guest, within 10 s (the kernel tears
# down a killed process's verbs context asynchronously)
clean() {
	local g
	for g in A B; do
		vm $g 15 'for _ in $(seq 100); do
				! rdma res show qp | grep -v "type GSI" | grep -q . && ! rdma res show mr | grep -q . &&
					rdma res show | grep -q "pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0" && exit 0
				sleep 0.1
			done
			rdma res show; rdma res show qp; exit 1' || { echo "FAIL: resources left in $g after $1"; return 1; }
	done
}

fails 3 10 "cannot connect to 10.29.0.2 port 18515: Connection refused" ibscan ping 10.29.0.2
grep -qF "start 'ibscan ping --listen' on 10.29.0.2 first" "$tmp/out"
fails 3 10 "Connection refused" ibscan ping fd29::2
grep -qF "start 'ibscan ping --listen' on fd29::2 first (same --tcp-port; a listener given an IPv4 --bind" "$tmp/out"
fails 3 10 "--gid-index 5000 is out of range: rxe0 port 1 has 1024 GID entries (0-1023)" ibscan ping 10.29.0.2 --gid-index 5000
fails 3 10 "GID index 10 of rxe0 port 1 is empty" ibscan ping 10.29.0.2 --gid-index 10
fails 3 10 "--pkey-index 1 is out of range: rxe0 port 1 has 1 P_Key entry" ibscan ping 10.29.0.2 --pkey-index 1
clean "the refusals"

# The peer killed mid-run: the client ends within its --timeout, saying so: as
# the peer not answering its send, or (killed while the client waited for its
# reply) as nothing arriving from a peer whose process ended.
WAITPORT=18515 vm_bg B /tmp/l.log ibscan ping --listen --wait 60
vm_bg A /tmp/c.log ibscan ping 10.29.0.2 --iters 1000000 --timeout 2000
sleep 3
vm B 5 'kill -9 $(cat /tmp/l.log.pid)'
rc=$(vm_rc A /tmp/c.log 10) || { echo "FAIL: the client still runs 10 s after its peer died"; exit 1; }
vm A 5 'cat /tmp/c.log' >"$tmp/out"; cat "$tmp/out"
[ "$rc" = 3 ]
[ "$(grep -c '^ibscan: error: ' "$tmp/out")" = 1 ]
grep -qF 'the peer stopped answering: no completion within 2000 ms' "$tmp/out" ||
	{ grep -qF 'nothing arrived from the peer within 2000 ms' "$tmp/out" &&
		grep -qF "the peer's process ended (its setup connection closed)" "$tmp/out"; } ||
	{ echo "FAIL: the client does not say its peer stopped"; exit 1; }
clean "the peer killed"

# SIGINT during --bw: the client dies of it (130, as the shell reports a
# process SIGINT ended); the listener ends within its --timeout, with one
# error line.
WAITPORT=18515 vm_bg B /tmp/l.log ibscan ping --listen --wait 60 --timeout 2000
vm_bg A /tmp/c.log ibscan ping 10.29.0.2 --bw --iters 10000000
sleep 3
vm A 5 'kill -INT $(cat /tmp/c.log.pid)'
rc=$(vm_rc A /tmp/c.log 5) || { echo "FAIL: the client still runs 5 s after SIGINT"; exit 1; }
[ "$rc" = 130 ]
rc=$(vm_rc B /tmp/l.log 10) || { echo "FAIL: the listener still runs 10 s after its client died"; exit 1; }
vm B 5 'cat /tmp/l.log' >"$tmp/out"; cat "$tmp/out"
[ "$rc" = 3 ]
[ "$(grep -c '^ibscan: error: ' "$tmp/out")" = 1 ]
# It says the peer's messages stopped coming, or what the peer said: never that its own
# requests did not leave (it had none outstanding).
grep -qE "nothing arrived from the peer within 2000 ms|the peer says:|the peer closed the connection" "$tmp/out" ||
	{ echo "FAIL: the listener does not say its peer stopped"; exit 1; }
! grep -q "did not leave this host" "$tmp/out" || { echo "FAIL: the listener blames its own host"; exit 1; }
clean "SIGINT"

# The link down mid-run (the listener's guest): the client ends within its
# --timeout, saying the peer stopped answering (its send unanswered) or that
# nothing arrived from it (its reply lost); the link comes back, before any
# check, so that a failed one does not leave the next tests without it.
WAITPORT=18515 vm_bg B /tmp/l.log ibscan ping --listen --wait 60 --timeout 2000
vm_bg A /tmp/c.log ibscan ping 10.29.0.2 --iters 1000000 --timeout 2000
sleep 3
vm B 5 'ip link set eth0 down'
crc=$(vm_rc A /tmp/c.log 10) || crc=running
lrc=$(vm_rc B /tmp/l.log 10) || lrc=running
vm B 20 'ip link set eth0 up; ip addr add fd29::2/64 dev eth0 nodad 2>/dev/null
	for _ in $(seq 100); do grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state &&
		ip -6 addr show dev eth0 | grep -q fd29::2 && exit 0; sleep 0.1; done; exit 1'
vm A 5 'cat /tmp/c.log' >"$tmp/out"; cat "$tmp/out"
[ "$crc" != running ] || { echo "FAIL: the client still runs 10 s after the link went down"; exit 1; }
[ "$lrc" != running ] || { echo "FAIL: the listener still runs 10 s after its link went down"; exit 1; }
[ "$crc" = 3 ] && [ "$lrc" = 3 ]
[ "$(grep -c '^ibscan: error: ' "$tmp/out")" = 1 ]
grep -qE 'no completion within 2000 ms|nothing arrived from the peer within 2000 ms' "$tmp/out"
clean "the link down"
# And the path works again.
WAITPORT=18515 vm_bg B /tmp/l.log ibscan ping --listen --wait 60
vm A 30 'ibscan ping 10.29.0.2 --iters 20' >/dev/null
t_done
