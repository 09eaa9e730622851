#!/bin/bash
# libibverbs is loaded at run time, never linked: ibscan starts on a host
# without it, every command but `ping` works there, and `ping` says what is
# missing (exit 3). A test preload (tests/cli/preload/noverbs.c) plays that host.
. "$(dirname "$0")/lib.sh"
cap=$ROOT/fixtures/captures/counters.cap

# Neither the link line nor the binaries name it.
link=$(make -C "$ROOT" --no-print-directory -n -B build/rel/ibscan | grep -- '-o build/rel/ibscan') ||
	fail "make -n shows no link line for build/rel/ibscan"
[[ " $link " != *" -libverbs "* ]] || fail "the link line names libibverbs: $link"
for bin in "$IBSCAN" "$ROOT/ibscan"; do
	needed=$(readelf -d "$bin" | grep NEEDED) || fail "readelf -d $bin lists no NEEDED library"
	! grep -q libibverbs <<<"$needed" || fail "$bin needs libibverbs at start: $needed"
done

cc -shared -fPIC -o "$TMP/noverbs.so" "$ROOT/tests/cli/preload/noverbs.c" || fail "cannot build the preload"
bin=${IBSCAN_PRELOAD_BIN:-$ROOT/ibscan} # the release build: ASan refuses foreign preloads first in line
rc=0
LD_PRELOAD=$TMP/noverbs.so "$bin" topology --replay "$cap" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc -eq 0 ] || { cat "$TMP/err"; fail "topology without libibverbs: exit $rc, want 0"; }
out_has "topology: 6 nodes"
rc=0
LD_PRELOAD=$TMP/noverbs.so timeout 30 "$bin" ping 127.0.0.1 >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc -eq 3 ] || { cat "$TMP/err"; fail "ping without libibverbs: exit $rc, want 3"; }
err_has "cannot load libibverbs.so.1"
err_has "install rdma-core's libibverbs"
echo "ok: libibverbs is not linked; without it every command but ping works, and ping says what is missing"

# libgvc likewise (output/svg.c): not needed at start, so no run but an SVG
# drawing maps Graphviz's libraries; without it, --format svg says what is
# missing (exit 3) and every other format works.
for bin in "$IBSCAN" "$ROOT/ibscan"; do
	! readelf -d "$bin" | grep NEEDED | grep -q 'libgvc\|libcgraph' || fail "$bin needs Graphviz at start"
done
rc=0
NOLIB=libgvc LD_PRELOAD=$TMP/noverbs.so "$bin" topology --replay "$cap" --format dot >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc -eq 0 ] || { cat "$TMP/err"; fail "--format dot without libgvc: exit $rc, want 0"; }
out_has "graph ibscan {"
rc=0
NOLIB=libgvc LD_PRELOAD=$TMP/noverbs.so "$bin" topology --replay "$cap" --format svg >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc -eq 3 ] || { cat "$TMP/err"; fail "--format svg without libgvc: exit $rc, want 3"; }
err_has "graphviz: cannot load libgvc.so.6"
err_has "install Graphviz's libgvc (Debian: libgvc6)"
"$bin" topology --replay "$cap" --format svg >"$TMP/out" 2>"$TMP/err" || fail "--format svg with libgvc: $(cat "$TMP/err")"
out_has "<svg"
echo "ok: libgvc is not linked; SVG loads it, and without it says what is missing"
t_done
