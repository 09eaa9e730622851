#!/bin/bash
# Without a device (no InfiniBand here, no simulator shim): a clear message, a hint, exit 3.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
for cmd in topology nodes links sm; do
	run 3 $cmd
	err_has "ibscan: error: no InfiniBand device found"
	err_has "--replay"
	[ ! -s "$TMP/out" ] || fail "$cmd printed something on stdout with no device"
done
run 3 topology --ca mlx5_9 --port 1
err_has "no InfiniBand device found: cannot use CA 'mlx5_9' port 1"
t_done
