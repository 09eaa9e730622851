#!/bin/bash
# No permission on the umad device: ibscan says so, says how to fix it, exit 3.
# A test preload (tests/cli/preload/eacces.c) plays a host whose
# /dev/infiniband/umad0 this user cannot open.
. "$(dirname "$0")/lib.sh"
cc -shared -fPIC -o "$TMP/eacces.so" "$ROOT/tests/cli/preload/eacces.c" || fail "cannot build the preload"
bin=${IBSCAN_PRELOAD_BIN:-$ROOT/ibscan} # the release build: ASan refuses foreign preloads first in line
for cmd in topology health counters; do
	rc=0
	LD_PRELOAD=$TMP/eacces.so "$bin" $cmd >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ $rc -eq 3 ] || { cat "$TMP/err"; fail "$cmd: exit $rc, want 3"; }
	err_has "ibscan: error: cannot open the umad device of mlx5_0 port 1: permission denied"
	err_has "udev rule"
	err_has "/dev/infiniband/umad"
done
echo "ok: permission denied is reported with the fix, exit 3"
t_done
