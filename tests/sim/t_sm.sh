#!/bin/bash
# ibscan sm agrees with sminfo on the master's LID, GUID, priority and state.
. "$(dirname "$0")/lib.sh"
sim_start "$FABRICS/fattree2-small"
sim_run sminfo >"$TMP/sminfo" 2>/dev/null || fail "sminfo"
# "sminfo: sm lid 1 sm guid 0x..., activity count N priority P state 3 SMINFO_MASTER"
read -r lid guid prio state <<<"$(sed -E 's/.*sm lid ([0-9]+) sm guid (0x[0-9a-f]+), .* priority ([0-9]+) state ([0-9]+).*/\1 \2 \3 \4/' "$TMP/sminfo")"
expect_rc 0 ibs sm --json
python3 - "$TMP/out" "$lid" "$guid" "$prio" "$state" <<'PY' || fail "ibscan sm differs from sminfo"
import json, sys
d = json.load(open(sys.argv[1]))
lid, guid, prio, state = int(sys.argv[2]), int(sys.argv[3], 16), int(sys.argv[4]), int(sys.argv[5])
assert d["sm"]["master_lid"] == lid
m = [s for s in d["sm"]["sms"] if s["lid"] == lid]
assert m, d["sm"]
m = m[0]
assert int(m["sm_guid"], 16) == guid, m
assert m["priority"] == prio, m
assert m["state"] == ["not-active", "discovering", "standby", "master"][state], m
PY
ok "sm: LID $lid GUID $guid priority $prio state $state as sminfo says"
