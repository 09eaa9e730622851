#!/bin/bash
# PortState, PhysPortState and SMInfo's SMState are tested by name (core/mad/mad.h:
# enum ibs_port_state, ibs_phys_state, ibs_sm_state and the ibs_portinfo_active/
# ibs_portinfo_linkup/ibs_sminfo_master predicates; the probe's enum ibs_vport_state),
# never as bare numbers: no `state == 4`, `phys_state != 5`, `4 == state` or
# `pi.state = 4` in cmd/ output/ fabric/ host/ core/. The parsers' and writers' own state
# machines (core/capture/format_parse.c, core/base/out.c, out_fatal.c, core/mad/field.[ch])
# are not port states and are not judged. Then the check itself: a bare code planted in
# a copy of the tree must be found and named.
. "$(dirname "$0")/lib.sh"

# bare_states DIR: print every bare state code under DIR's cmd/ output/ fabric/ host/ core/.
bare_states() {
	local d=$1
	(cd "$d" && grep -rnE --include='*.c' --include='*.h' \
		-e '(state|state_num) *(==|!=|<=|>=|<|>) *[0-9]' \
		-e '[0-9] *(==|!=|<=|>=|<|>) *[a-z_.>-]*(state|state_num)\b' \
		-e '(pi|info|local)\.(state|phys_state) *= *[0-9]' \
		cmd output fabric host core) |
		grep -vE '^(core/capture/format_parse\.c|core/base/out\.c|core/base/out_fatal\.c|core/mad/field\.[ch]):' || true
}

bare_states "$ROOT" >"$TMP/bare"
[ ! -s "$TMP/bare" ] || { cat "$TMP/bare" >&2; fail "port or SM states compared as bare numbers (use the enums of core/mad/mad.h)"; }
# The check reads the tree it should: the names are used, in the layers that test states.
for f in fabric/check/health.c fabric/walk/counters.c output/topo.c core/mad/umad.c core/probe/probe.c; do
	grep -qE 'IBS_(V?PORT|PHYS|SM)_[A-Z]|ibs_(portinfo|sminfo)_' "$ROOT/$f" || fail "$f names no state: the check reads the wrong tree"
done

# plant FILE LINE: a copy of the tree with LINE appended to FILE; the check must name FILE.
n=0
plant() {
	local t=$TMP/tree
	rm -rf "$t"
	mkdir -p "$t"
	cp -r "$ROOT"/cmd "$ROOT"/core "$ROOT"/fabric "$ROOT"/host "$ROOT"/output "$t"/
	printf '%s\n' "$2" >>"$t/$1"
	bare_states "$t" >"$TMP/bare"
	grep -qF "$1:" "$TMP/bare" || fail "planted '$2' in $1: not found"
	n=$((n + 1))
}
plant fabric/check/health.c 'static int x(const struct ibs_port *p) { return p->pi.state == 4; }'
plant output/prom.c 'static int y(const struct ibs_port *pt) { return pt->pi.phys_state != 5; }'
plant fabric/walk/counters.c 'static int z(const struct ibs_sm *s) { return s->info.state >= 3; }'
plant core/mad/umad.c 'static int w(const umad_port_t *pt) { return 4 == pt->state; }'
plant host/hostinfo.c 'static int v(const struct ibs_host_port *p) { return p->state_num != 4; }'
plant fabric/load/load_netfile.c 'static void u(struct ibs_port *p) { p->pi.state = 4; }'
plant cmd/local.c 'static int t(const struct ibs_local_port *l) { return l->state < 2; }'
echo "ok: no bare port or SM state code; $n planted ones found"
t_done
