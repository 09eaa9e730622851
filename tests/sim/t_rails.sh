#!/bin/bash
# Rails and fat-tree structure on the simulator: a rail-optimized fabric
# (tools/fixtures/genrails.py: 2 scalable units x 8 servers x 4 rails, a leaf per rail
# and unit, 2 spines, NodeDescriptions "dgx001 mlx5_0") says nothing when
# cabled as designed; cables moved with ibsim's console (Unlink/Link) give
# exactly the findings that name them and the fix.
. "$(dirname "$0")/lib.sh"

python3 "$ROOT/tools/fixtures/genrails.py" --units 2 --servers 8 --rails 4 --spines 2 -o "$TMP/rail.net" ||
	fail "genrails.py failed"

health_json() { # WANT_RC ARGS...: health --json with the rail and tree checks, into $TMP/h.json
	local want=$1
	shift
	expect_rc "$want" ibs health --json --no-counters --rails mlx5_0-3 --fat-tree "$@"
	cp "$TMP/out" "$TMP/h.json"
}
# findings CHECK...: the findings are exactly these checks (one line each, sorted), messages to $TMP/msgs.
findings() {
	python3 - "$TMP/h.json" "$@" >"$TMP/msgs" <<'PY' || { cat "$TMP/msgs"; fail "unexpected findings"; }
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted(f["check"] for f in d["findings"])
for f in d["findings"]:
    print(f["check"], f["message"])
sys.exit(0 if got == sorted(sys.argv[2:]) else 1)
PY
}
has_msg() { grep -qxF "$1" "$TMP/msgs" || { cat "$TMP/msgs"; fail "no finding: $1"; }; }
port_active() { [ "$(sim_port_state "$1" "$2")" = "Active/LinkUp" ]; }
# relink A_ID A_PORT B_ID B_PORT: cable A's port to B's port (after Unlinks), wait until it is Active.
relink() {
	sim_console "Link \"$1\"[$2] \"$3\"[$4]" >/dev/null || true
	sim_poll 30 port_active "$1" "$2" || fail "$1[$2] - $3[$4] did not come up"
}

# --- as designed: no finding; its plan, written now, passes ---
sim_start "$TMP/rail.net"
health_json 0
findings
ok "rail-optimized fabric as designed: OK, no rail or structure finding"
expect_rc 0 ibs topology --format plan -o "$TMP/plan.csv"
[ "$(wc -l <"$TMP/plan.csv")" -eq $((1 + 64 + 16)) ] || fail "plan: want a header and 80 cables, got $(wc -l <"$TMP/plan.csv") lines"
grep -qxF 'su1-r0,1,dgx001 mlx5_0,1,4xEDR' "$TMP/plan.csv" || fail "plan: no row for dgx001 mlx5_0"
health_json 0 --plan "$TMP/plan.csv"
findings
expect_rc 0 ibs diff "$TMP/plan.csv" live
grep -qx "cabled as planned" "$TMP/out" || fail "diff plan live: not 'cabled as planned'"
ok "the plan written from the healthy fabric (80 cables) passes, in health --plan and diff"
expect_rc 0 ibs topology --format slurm-block
grep -qxF 'BlockName=block1 Nodes=dgx[001-008]  # 8 hosts, 4 leaves from su1-r0' "$TMP/out" &&
	grep -qxF 'BlockName=block2 Nodes=dgx[009-016]  # 8 hosts, 4 leaves from su2-r0' "$TMP/out" &&
	[ "$(grep -c '^BlockName=' "$TMP/out")" -eq 2 ] || { cat "$TMP/out"; fail "slurm-block: want the two units as blocks"; }
ok "Slurm topology/block: one block per scalable unit"
sim_stop
# line N of the plan holding CABLE (grep -F text)
plan_line() { grep -nF "$1" "$TMP/plan.csv" | cut -d: -f1; }

# --- dgx003's mlx5_1 and mlx5_2 crossed: the two rail.miscabled, each with the swap ---
sim_start "$TMP/rail.net"
sim_console 'Unlink "S-su1-r1"[3]' >/dev/null
sim_console 'Unlink "S-su1-r2"[3]' >/dev/null
relink S-su1-r1 3 H-dgx003-2 1
relink S-su1-r2 3 H-dgx003-1 1
health_json 1
findings rail.miscabled rail.miscabled
swap="swap the cables of dgx003 mlx5_1 (leaf su1-r2 port 3) and dgx003 mlx5_2 (leaf su1-r1 port 3)"
has_msg "rail.miscabled dgx003 mlx5_1 is cabled to leaf su1-r2 port 3, a leaf of rail mlx5_2 (7 of its 8 host cables): $swap"
has_msg "rail.miscabled dgx003 mlx5_2 is cabled to leaf su1-r1 port 3, a leaf of rail mlx5_1 (7 of its 8 host cables): $swap"
ok "two rails of dgx003 crossed: exactly two rail.miscabled, each naming the one swap"
health_json 1 --plan "$TMP/plan.csv"
findings plan.miscabled plan.miscabled rail.miscabled rail.miscabled
has_msg "plan.miscabled su1-r1 port 3 is cabled to dgx003 mlx5_2 port 1, the plan says dgx003 mlx5_1 port 1 (line $(plan_line 'su1-r1,3,')): move that end from dgx003 mlx5_2 port 1 to dgx003 mlx5_1 port 1"
has_msg "plan.miscabled su1-r2 port 3 is cabled to dgx003 mlx5_1 port 1, the plan says dgx003 mlx5_2 port 1 (line $(plan_line 'su1-r2,3,')): move that end from dgx003 mlx5_1 port 1 to dgx003 mlx5_2 port 1"
ok "against the plan: the two crossed cables are two plan.miscabled, each with its move"
sim_stop

# --- dgx012 mlx5_3 moved onto the leaf of its mlx5_2: one rail.collision ---
sim_start "$TMP/rail.net"
sim_console 'Unlink "S-su2-r3"[4]' >/dev/null
relink S-su2-r2 12 H-dgx012-3 1
health_json 1
# ibsim runs a cable on a port its file left free at 4xQDR (no rate declared for it):
# fabric.rate says so, truly.
findings fabric.rate rail.collision
has_msg "fabric.rate su2-r2 port 12 to dgx012 mlx5_3 port 1 runs 4xQDR, unlike the other host-leaf cables"
has_msg "rail.collision dgx012 mlx5_3 is cabled to leaf su2-r2 port 12, where dgx012 mlx5_2 already is (port 4): move dgx012 mlx5_3 from leaf su2-r2 port 12 to a free port of leaf su2-r3"
ok "a rail moved onto another rail's leaf: one rail.collision with the move"
health_json 1 --plan "$TMP/plan.csv"
findings fabric.rate plan.miscabled rail.collision
has_msg "plan.miscabled dgx012 mlx5_3 port 1 is cabled to su2-r2 port 12, the plan says su2-r3 port 4 (line $(plan_line 'su2-r3,4,')): move that end from su2-r2 port 12 to su2-r3 port 4"
ok "against the plan: the moved cable is one plan.miscabled with its move"
expect_rc 1 ibs diff "$TMP/plan.csv" live
[ "$(grep -c '^plan\.' "$TMP/out")" -eq 1 ] || { cat "$TMP/out"; fail "diff plan live: want one finding"; }
grep -qF "plan.miscabled  dgx012 mlx5_3 port 1 is cabled to su2-r2 port 12, the plan says su2-r3 port 4" "$TMP/out" ||
	{ cat "$TMP/out"; fail "diff plan live: no move"; }
ok "diff plan.csv live: the same one finding, exit 1"

# --- and a leaf-spine cable pulled: one fabric.asymmetric besides ---
sim_console 'Unlink "S-su1-r0"[15]' >/dev/null
sim_poll 30 eval '! port_active S-su1-r0 15' || fail "S-su1-r0[15] stayed up"
health_json 1
findings fabric.asymmetric fabric.rate rail.collision
has_msg "fabric.asymmetric leaf su1-r0 has no cable to spine spine1: expected 1, as between the other leaves and spines"
ok "a leaf-spine cable pulled: one fabric.asymmetric naming the leaf, the spine and the count"
health_json 1 --plan "$TMP/plan.csv"
findings fabric.asymmetric fabric.rate plan.miscabled plan.missing rail.collision
has_msg "plan.missing su1-r0 port 15 to spine1 port 1 is not there (plan line $(plan_line 'su1-r0,15,')): cable it"
ok "against the plan: the pulled cable is one plan.missing"
sim_stop
t_done
