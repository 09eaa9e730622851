#!/bin/bash
# ibscan sm agrees with sminfo on every SM: LID, GUID, priority and state,
# for the master and for a standby SM started on a host.
. "$(dirname "$0")/lib.sh"
standby=
trap '[ -z "$standby" ] || kill "$standby" 2>/dev/null; _cleanup_tmp' EXIT # sim_start chains its own
# The master gets priority 5, so that the standby (priority 1) stays standby.
SIM_OSM_ARGS="-p 5" sim_start "$FABRICS/fattree2-small"

# sm_as_sminfo WANT: every SM ibscan lists is as `sminfo LID` says, and the
# LIDs and states are WANT ("LID:state ...", sorted).
sm_as_sminfo() {
	local lid
	expect_rc 0 ibs sm --json
	cp "$TMP/out" "$TMP/sm.json"
	: >"$TMP/sminfo"
	for lid in $(python3 -c 'import json,sys; print(*(s["lid"] for s in json.load(open(sys.argv[1]))["sm"]["sms"]))' "$TMP/sm.json"); do
		# "sminfo: sm lid 1 sm guid 0x..., activity count N priority P state 3 SMINFO_MASTER"
		sim_run sminfo "$lid" >>"$TMP/sminfo" 2>/dev/null || fail "sminfo $lid"
	done
	python3 - "$TMP/sm.json" "$TMP/sminfo" "$1" <<'PY' || fail "ibscan sm differs from sminfo"
import json, re, sys
d = json.load(open(sys.argv[1]))["sm"]
states = ["not-active", "discovering", "standby", "master"]
ref = {}
for l in open(sys.argv[2]):
    m = re.match(r"sminfo: sm lid (\d+) sm guid (0x[0-9a-f]+), .* priority (\d+) state (\d+)", l)
    ref[int(m.group(1))] = (int(m.group(2), 16), int(m.group(3)), states[int(m.group(4))])
have = {s["lid"]: (int(s["sm_guid"], 16), s["priority"], s["state"]) for s in d["sms"]}
assert have == ref, (have, ref)
got = " ".join("%d:%s" % (l, have[l][2]) for l in sorted(have))
assert got == sys.argv[3], (got, sys.argv[3])
master = [l for l in have if have[l][2] == "master"]
assert master == [d["master_lid"]], (master, d["master_lid"])
print(got)
PY
}

sm_as_sminfo "1:master"
ok "sm: the master as sminfo says (LID, GUID, priority, state)"

# A second opensm on node0001 (LID 16), lower priority: it must settle in STANDBY.
(
	cd "$SIM_DIR" || exit 1
	mkdir -p osm2
	export SIM_HOST=H-node0001 OSM_TMP_DIR=$SIM_DIR/osm2 OSM_CACHE_DIR=$SIM_DIR/osm2 LD_PRELOAD=$SIM_SHIM
	exec "$(PATH=$PATH:/usr/sbin command -v opensm)" -d2 -s 0 -p 1 -f "$SIM_DIR/osm2.log"
) </dev/null >"$SIM_DIR/osm2.out" 2>&1 &
standby=$!
sim_poll 60 grep -q "Entering STANDBY state" "$SIM_DIR/osm2.log" || fail "the second opensm did not become standby"
sm_as_sminfo "1:master 16:standby"
kill "$standby"
wait "$standby" || true
standby=
ok "sm: a master and a standby SM, each as sminfo says"
t_done
