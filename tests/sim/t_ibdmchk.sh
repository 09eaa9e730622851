#!/bin/bash
# routes --check's credit-loop verdict against ibutils' ibdmchk, an
# independent checker (Mellanox), on OpenSM's own dumps of the same fabric
# (opensm -D 0x43 --dump_files_dir: opensm-subnet.lst, opensm.fdbs,
# opensm.mcfdbs):
# - fattree2-small under ftree: neither finds a credit loop (ibdmchk on
#   CA-to-CA paths: with -a it stops at 72 switch-to-switch paths that
#   ftree leaves unrouted, before any credit-loop check);
# - ring4 under updn rooted at SwA: neither finds one (ibdmchk -a);
# - ring4 under minhop: both find one, through the same four switch ports.
#   ibscan follows the route from every CA port to every LID a host or a
#   switch owns; ibdmchk alone checks CA-to-CA paths and there finds none
#   (this ring's cycle needs the routes to the switches' own LIDs); with -a
#   ("verify all paths: not only CA-CA but also SW-CA and SW-SW") it finds
#   the cycle ibscan names;
# - torus55 under minhop: both find credit loops.
# ibdmchk 1.5.7 (Debian 12) prints its verdict and then dies of SIGSEGV on
# the way out on every fabric here: a run counts when its verdict line is
# there, whatever its exit status. It writes its reports into
# /var/cache/ibutils (it has no option for another place).
. "$(dirname "$0")/lib.sh"

command -v ibdmchk >/dev/null || fail "ibdmchk not found: install ibutils (make deps)"

# theirs NAME [ibdmchk options]: ibdmchk on $TMP/NAME's dumps into $TMP/NAME.chk;
# prints "loop", "none", or "no verdict" (its tail then in $TMP/NAME.chk).
theirs() {
	local name=$1 d=$TMP/$1
	shift
	ibdmchk "$@" -s "$d/opensm-subnet.lst" -f "$d/opensm.fdbs" -m "$d/opensm.mcfdbs" >"$TMP/$name.chk" 2>&1 || true
	if grep -q '^-E- credit loops in routing' "$TMP/$name.chk"; then
		echo loop
	elif grep -q '^-I- no credit loops found' "$TMP/$name.chk"; then
		echo none
	else
		echo "no verdict"
	fi
}

# one NAME FABRIC ENGINE WANT_RC [opensm options]: the simulator under OpenSM's ENGINE, its
# dumps into $TMP/NAME, routes --check --json into $TMP/NAME.json (exit WANT_RC).
one() {
	local name=$1 fabric=$2 engine=$3 want=$4
	shift 4
	mkdir -p "$TMP/$name"
	SIM_OSM_ARGS="-R $engine $* -D 0x43 --dump_files_dir $TMP/$name" sim_start "$FABRICS/$fabric"
	grep -qi "$engine" "$SIM_DIR/osm.log" || fail "$name: opensm's log does not name the $engine engine"
	expect_rc "$want" ibs routes --check --json -o "$TMP/$name.json"
	sim_stop
	[ -s "$TMP/$name/opensm.fdbs" ] || fail "$name: opensm wrote no opensm.fdbs"
}

# loops FILE: how many credit loops ibscan's document names.
loops() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["credit_loops"]["count"])' "$1"; }

one ft fattree2-small ftree 0
[ "$(loops "$TMP/ft.json")" = 0 ] || fail "ftree: ibscan found a credit loop"
v=$(theirs ft)
[ "$v" = none ] || fail "ftree: ibdmchk says '$v': $(tail -3 "$TMP/ft.chk")"
ok "fattree2-small under ftree: no credit loop, as ibdmchk says"

echo 0x0000000000200000 >"$TMP/roots" # SwA, as tests/sim/t_routecheck.sh roots it
one updn ring4 updn 0 -a "$TMP/roots"
[ "$(loops "$TMP/updn.json")" = 0 ] || fail "ring4 updn: ibscan found a credit loop"
v=$(theirs updn -a)
[ "$v" = none ] || fail "ring4 updn: ibdmchk -a says '$v': $(tail -3 "$TMP/updn.chk")"
ok "ring4 under updn: no credit loop, as ibdmchk -a says"

one minhop ring4 minhop 2
[ "$(loops "$TMP/minhop.json")" -ge 1 ] || fail "ring4 minhop: ibscan found no credit loop"
v=$(theirs minhop)
[ "$v" = none ] || fail "ring4 minhop: ibdmchk (CA-to-CA) says '$v', want none: $(tail -3 "$TMP/minhop.chk")"
v=$(theirs minhop -a)
[ "$v" = loop ] || fail "ring4 minhop: ibdmchk -a says '$v': $(tail -3 "$TMP/minhop.chk")"
# The switch ports of ibdmchk's loop ("through: S<guid>/U1/P<port>") and ibscan's cycle's links.
python3 - "$TMP/minhop.json" "$TMP/minhop.chk" >"$TMP/cmp" <<'PY' || fail "ring4 minhop: the loops differ: $(cat "$TMP/cmp")"
import json, re, sys
d = json.load(open(sys.argv[1]))
ours = {(int(l["from"]["guid"], 16), l["port"]) for c in d["credit_loops"]["cycles"] for l in c["links"]}
sw = {int(l["from"]["guid"], 16) for c in d["credit_loops"]["cycles"] for l in c["links"]}
theirs = set()
for m in re.finditer(r"(?:Found credit loop on|credit loop through): S([0-9a-fA-F]+)/U1/P(\d+)", open(sys.argv[2]).read()):
    g, p = int(m.group(1), 16), int(m.group(2))
    if g in sw:  # the CA port the backtrack started from is not a link of the cycle
        theirs.add((g, p))
if ours != theirs or len(ours) != 4:
    print("ibscan", sorted(ours), "ibdmchk", sorted(theirs))
    sys.exit(1)
print(", ".join("%#x[%d]" % x for x in sorted(ours)))
PY
ok "ring4 under minhop: the credit loop ibdmchk -a finds, through the same ports: $(cat "$TMP/cmp") (CA-to-CA alone: none, as ibdmchk says)"

one torus torus55 minhop 2
[ "$(loops "$TMP/torus.json")" -ge 1 ] || fail "torus55 minhop: ibscan found no credit loop"
v=$(theirs torus)
[ "$v" = loop ] || fail "torus55 minhop: ibdmchk says '$v': $(tail -3 "$TMP/torus.chk")"
ok "torus55 under minhop: credit loops, as ibdmchk says ($(loops "$TMP/torus.json") named by ibscan)"
t_done
