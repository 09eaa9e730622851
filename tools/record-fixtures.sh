#!/bin/bash
# make fixtures: re-record fixtures/captures/ from the bundled topology files
# with ibsim + opensm, using ibscan's own --record. One capture per fabric,
# plus fault captures:
#   cable-pulled   net.2sw2path4hca with both inter-switch cables unlinked
#   dropped        fattree2-small with ibsim dropping 10% of MADs (Error)
#   dead-switch    net.2sw2path4hca with Switch2 dropping every MAD
#   bad-status     net.2sw2path4hca with Switch2's NodeDescription answer
#                  edited by hand to status 0x001c (ibsim never answers so)
# Then regenerate the golden files on purpose with `make golden`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/fixtures/captures
fab=$root/fixtures/fabrics
. "$root/tests/sim/simlib.sh"
mkdir -p "$out"

record() { # NAME [ibscan options...]
	local name=$1
	shift
	sim_run "$root/ibscan" topology --record "$out/$name.cap" -o /dev/null "$@" || [ $? -eq 3 ]
	echo "fixtures: $name.cap: $(grep -c '^x ' "$out/$name.cap") exchanges"
}

for f in net.2sw2path4hca fattree2-small dualrail fattree3 degraded; do
	sim_start "$fab/$f"
	record "$f"
	sim_stop
done

sim_start "$fab/net.2sw2path4hca"
sim_console 'Unlink "Switch1"[3]' >/dev/null
sim_console 'Unlink "Switch1"[5]' >/dev/null
record cable-pulled
sim_stop

sim_start "$fab/fattree2-small"
sim_console 'Error "S-spine01" 10' >/dev/null
sim_console 'Error "S-leaf02" 10' >/dev/null
record dropped --retries 3
sim_stop

sim_start "$fab/net.2sw2path4hca"
sim_console 'Error "Switch2" 100' >/dev/null
record dead-switch --retries 1
sim_stop

# bad-status: a copy of the healthy capture with one answer edited, as the
# capture format allows (docs/capture-format.md): Switch2's NodeDescription
# (path 0,3) answers "invalid attribute or modifier" (status 0x001c: bytes
# 4-5 of a DR SMP hold the D bit and the 15-bit status).
python3 - "$out/net.2sw2path4hca.cap" "$out/bad-status.cap" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n")
done = False
for i, l in enumerate(lines):
    if l.startswith("x SMI-DR Get NodeDescription ") and l.endswith(" addr=dr:0,3") and not done:
        r = lines[i + 2]
        assert r.startswith("< resp "), r
        hexs = r[7:]
        lines[i + 2] = "< resp " + hexs[:8] + "801c" + hexs[12:]
        done = True
assert done, "no NodeDescription exchange for dr:0,3"
open(dst, "w").write("\n".join(lines))
PY
echo "fixtures: bad-status.cap: edited from net.2sw2path4hca.cap"
