#!/bin/bash
# The layers (docs/architecture.md): every #include "..." (and <...> naming a tree file) in cmd/ output/
# fabric/ host/ core/ goes down cmd -> output -> fabric and host -> core, fabric
# and host beside each other; in fabric, the parts go fabric/ (the session) ->
# check -> load -> walk -> model; in core, base
# includes only base, and mad, capture and probe include each other only as
# capture -> mad; fabric and host include nothing of the probe; no include cycle
# (tests/cli/layers.py); fabric/walk/walk.c calls the walker's other files, never they it, and they call down
# walk_query.c -> walk_lid.c -> walk_path.c; fabric/model includes nothing of the engine and defines no
# function named for a route or the engine. Then the check itself: each kind of violation,
# planted in a copy of the tree, must make it fail and be named.
. "$(dirname "$0")/lib.sh"
check=$ROOT/tests/cli/layers.py
python3 "$check" "$ROOT" >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "the tree breaks the layers"; }
out_has "every one down the layers, no cycle"

# plant WANT-RC PATTERN FILE 'INCLUDE'...: a fresh copy of the tree, each FILE
# gets #include "INCLUDE" (a missing FILE is made; INCLUDE - only makes it),
# then the check must exit
# WANT-RC, and with 1 name the violation (PATTERN, a fixed string).
n=0
plant() {
	local want=$1 pat=$2 t=$TMP/tree rc=0
	shift 2
	rm -rf "$t"
	mkdir -p "$t"
	cp -r "$ROOT"/cmd "$ROOT"/core "$ROOT"/fabric "$ROOT"/host "$ROOT"/output "$t"/
	while [ $# -gt 0 ]; do
		mkdir -p "$(dirname "$t/$1")"
		[ -s "$t/$1" ] || echo "/* planted */" >"$t/$1"
		case $2 in
		-) ;;
		\<*) sed -i "1a #include $2" "$t/$1" ;;
		*) sed -i "1a #include \"$2\"" "$t/$1" ;;
		esac
		shift 2
	done
	python3 "$check" "$t" >"$TMP/out" 2>&1 || rc=$?
	[ "$rc" = "$want" ] || { cat "$TMP/out" >&2; fail "planted '$pat': the check exited $rc, want $want"; }
	[ "$want" = 0 ] || grep -qF -- "$pat" "$TMP/out" || { cat "$TMP/out" >&2; fail "planted: the check does not say '$pat'"; }
	n=$((n + 1))
}

# Up a layer.
plant 1 'fabric/walk/walk.c:2: #include "../../output/emit.h": goes up a layer' fabric/walk/walk.c ../../output/emit.h
plant 1 'goes up a layer (host may not include output)' host/fleet.c ../output/fleet.h
plant 1 'goes up a layer (output may not include cmd)' output/emit.c ../cmd/cli.h
plant 1 'goes up a layer (core may not include fabric)' core/mad/engine.h ../../fabric/model/model.h
# fabric and host beside each other.
plant 1 'fabric/model/hosts.c:2: #include "../../host/hostinfo.h": fabric and host lie beside each other (fabric may not include host)' \
	fabric/model/hosts.c ../../host/hostinfo.h
plant 1 'host and fabric lie beside each other (host may not include fabric)' host/hostinfo.h ../fabric/model/model.h
# Inside fabric: the parts go fabric/ -> check -> load -> walk -> model.
plant 1 'fabric/model/model.c:2: #include "../walk/walk.h": goes up the parts of fabric (fabric/model may not include fabric/walk' \
	fabric/model/model.c ../walk/walk.h
plant 1 'fabric/walk may not include fabric/load' fabric/walk/counters.c ../load/state.h
plant 1 'fabric/load may not include fabric/check' fabric/load/load.h ../check/health.h
plant 1 'fabric/check may not include fabric/.' fabric/check/health.c ../session.h
plant 1 'fabric/x/y.c: fabric files belong in fabric/model, fabric/walk, fabric/load, fabric/check or fabric/' \
	fabric/x/y.c ../model/model.h
# Inside core.
plant 1 'core/base may include only core/{base}, not core/mad' core/base/xalloc.c ../mad/mad.h
plant 1 'core/base may include only core/{base}, not core/probe' core/base/gid.h ../probe/verbs.h
plant 1 'core/mad may include only core/{base, mad}, not core/capture' core/mad/engine.c ../capture/format.h
plant 1 'core/mad may include only core/{base, mad}, not core/probe' core/mad/mad.c ../probe/verbs.h
plant 1 'core/capture may include only core/{base, mad, capture}, not core/probe' core/capture/replay.c ../probe/ping.h
plant 1 'core/probe may include only core/{base, probe}, not core/mad' core/probe/run.c ../mad/mad.h
plant 1 'core/probe may include only core/{base, probe}, not core/capture' core/probe/oob.h ../capture/format.h
plant 1 'core/x.c: core files belong in core/base, core/mad, core/capture or core/probe' core/x.c base/err.h
plant 1 'fabric includes nothing of the probe (core/probe)' fabric/model/rate.c ../../core/probe/ping.h
plant 1 'host includes nothing of the probe (core/probe)' host/hostinfo.c ../core/probe/ping.h
# Cycles: two units (each a .c and its .h) that need each other, and two headers.
plant 1 'include cycle: core/base/a -> core/base/b -> core/base/a' \
	core/base/a.c b.h core/base/a.h err.h core/base/b.c a.h core/base/b.h err.h
plant 1 'include cycle: fabric/walk/run -> fabric/walk/walk -> fabric/walk/run' fabric/walk/run.h walk.h
plant 1 'include cycle: core/capture/format -> core/capture/index -> core/capture/format' \
	core/capture/format.c index.h
# The top of a family calls down only: walk.c's header, or a function it defines, used by the walker's other files.
plant 1 'fabric/walk/walk_query.c: includes fabric/walk/walk.h, the header of the file above it (fabric/walk/walk.c)' \
	fabric/walk/walk_query.c walk.h
# plant_code WANT-RC PATTERN FILE CODE: a fresh copy of the tree with CODE added at the end of FILE.
plant_code() {
	local want=$1 pat=$2 rc=0
	rm -rf "$TMP/tree" && mkdir -p "$TMP/tree" && cp -r "$ROOT"/cmd "$ROOT"/core "$ROOT"/fabric "$ROOT"/host "$ROOT"/output "$TMP/tree"/
	printf '%s\n' "$4" >>"$TMP/tree/$3"
	python3 "$check" "$TMP/tree" >"$TMP/out" 2>&1 || rc=$?
	[ "$rc" = "$want" ] || { cat "$TMP/out" >&2; fail "planted code in $3: the check exited $rc, want $want"; }
	[ "$want" = 0 ] || grep -qF -- "$pat" "$TMP/out" || { cat "$TMP/out" >&2; fail "planted code: the check does not say '$pat'"; }
	n=$((n + 1))
}
plant_code 1 'fabric/walk/walk_lid.c: calls or declares ibs_walk_error_hides_neighbour, which fabric/walk/walk.c defines' \
	fabric/walk/walk_lid.c 'bool walk_lid_hides(const struct ibs_walk_error *er);
bool walk_lid_hides(const struct ibs_walk_error *er)
{
	return ibs_walk_error_hides_neighbour(er);
}'
plant 0 '' fabric/walk/walk.c walk_int.h
# The walker's files call down walk.c -> walk_query.c -> walk_lid.c -> walk_path.c, never back (a call or a
# function's name).
plant_code 1 'fabric/walk/walk_path.c: names walk_lid_forget, which fabric/walk/walk_lid.c defines' \
	fabric/walk/walk_path.c 'void walk_path_forget(struct walker *w, struct uplinks *u)
{
	walk_lid_forget(w, u);
}'
plant_code 1 'fabric/walk/walk_lid.c: names walk_handler, which fabric/walk/walk_query.c defines' \
	fabric/walk/walk_lid.c 'ibs_mad_cb walk_lid_cb(void)
{
	return walk_handler(IBS_ATTR_NODE_INFO);
}'
plant_code 0 '' fabric/walk/walk_query.c 'void walk_query_forget(struct walker *w, struct uplinks *u)
{
	walk_lid_forget(w, u);
}'
# The model knows nothing of the engine, nor which nodes an SMP passes (fabric/walk/smp_route.c).
plant 1 'fabric/model/model.h:2: #include "../../core/mad/engine.h": the model knows nothing of the engine' \
	fabric/model/model.h ../../core/mad/engine.h
plant_code 1 'fabric/model/model.c: defines ibs_fabric_dr_route: the model knows nothing of the way a MAD goes' \
	fabric/model/model.c 'unsigned ibs_fabric_dr_route(const struct ibs_node *root, const struct ibs_addr *a)
{
	return root && a->hops ? 1 : 0;
}'
plant_code 1 'fabric/model/rate.c: defines engine_rate: the model knows nothing' \
	fabric/model/rate.c 'static unsigned engine_rate(void)
{
	return 0;
}'
plant_code 0 '' fabric/model/model.c 'bool ibs_node_is_router(const struct ibs_node *n)
{
	return n->ni.node_type == IBS_NODE_ROUTER;
}'
# Anything else.
plant 1 'core/mad/umad.c:2: #include "nosuch.h": no such file' core/mad/umad.c nosuch.h
plant 1 'cmd/main.c:2: #include "../tests/x.h": tests/x.h lies outside the layers' cmd/main.c ../tests/x.h tests/x.h -
# A system include that names a file of the tree is judged as "..." is; a real one is not read.
plant 1 'fabric/walk/walk.c:2: #include <../../output/emit.h>: goes up a layer' fabric/walk/walk.c '<../../output/emit.h>'
plant 1 'core/base/err.c:2: #include <fabric/model/model.h>: goes up a layer' core/base/err.c '<fabric/model/model.h>'
plant 0 '' fabric/walk/walk.c '<stdio.h>'
# A wrong root is not a pass.
rc=0
python3 "$check" "$TMP/nosuch" >"$TMP/out" 2>&1 || rc=$?
[ "$rc" = 2 ] || { cat "$TMP/out" >&2; fail "a root with no source: exit $rc, want 2"; }
grep -qF "no .c or .h file under $TMP/nosuch" "$TMP/out" || { cat "$TMP/out" >&2; fail "a root with no source: not said"; }
# Allowed: capture -> mad, any layer -> a lower one, a part of fabric -> a lower one.
plant 0 '' fabric/check/health.c ../walk/walk.h
plant 0 '' fabric/session.c check/fattree.h
plant 0 '' fabric/load/state.c ../walk/route.h
plant 0 '' output/topo.c ../host/sysfs.h
plant 0 '' host/fleet.c ../core/mad/engine.h
plant 0 '' core/capture/stats.c ../mad/engine.h
plant 0 '' cmd/main.c ../core/probe/ping.h
plant 0 '' output/emit.c ../core/capture/format.h
echo "ok: the tree keeps its layers; $n planted trees judged as they should be"
t_done
