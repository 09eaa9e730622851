#!/bin/bash
# shellcheck disable=SC2016 # the guests' scripts expand in the guests
# The fabric commands on a RoCE port (soft-RoCE, the guest's only RDMA
# port): no subnet manager, no SMPs, so each refuses at once (within 3 s,
# no MAD timeout waited for), exit 3 (health: UNKNOWN, its status line
# first), with one error line naming the port as RoCE: with and without
# -C/-P.
set -eu
. "$ROOT/tests/done.sh"
. "$ROOT/tests/rdma/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for args in "topology" "topology -C rxe0" "topology -C rxe0 -P 1" "health" "health -C rxe0 -P 1" "sm" "counters"; do
	vm A 20 's=$(date +%s%N); ibscan '"$args"' >/tmp/o 2>/tmp/e; rc=$?
		echo "rc=$rc ms=$((($(date +%s%N) - s) / 1000000))"; cat /tmp/e; echo "stdout:"; cat /tmp/o' >"$tmp/out"
	echo "== ibscan $args"; cat "$tmp/out"
	grep -qx 'rc=3 ms=[0-9]*' "$tmp/out"
	ms=$(sed -n 's/^rc=3 ms=//p' "$tmp/out")
	[ "$ms" -lt 3000 ]
	[ "$(grep -c '^ibscan: error: ' "$tmp/out")" = 1 ]
	grep -q '^ibscan: error: .*rxe0 port 1 is RoCE: no subnet management' "$tmp/out"
	grep -q 'no such InfiniBand port' "$tmp/out" && exit 1
	case $args in health*) sed -n '/^stdout:$/{n;p}' "$tmp/out" | grep -q '^IBSCAN UNKNOWN - ' ;; esac
done
t_done
