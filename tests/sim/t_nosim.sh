#!/bin/bash
# No simulator listening (it vanished before ibscan started): the shim would
# retry for ever; ibscan's watchdog ends the run after --deadline + 5 s, exit 3.
. "$(dirname "$0")/lib.sh"
export IBSIM_SOCKNAME=ibscan-nobody-$$
cd "$TMP"
start=$(date +%s)
rc=0
LD_PRELOAD=$(ls /usr/lib/*/umad2sim/libumad2sim.so | head -1) "$IBSCAN" topology --deadline 1 >"$TMP/o" 2>"$TMP/e" || rc=$?
took=$(($(date +%s) - start))
[ $rc -eq 3 ] || { cat "$TMP/e"; fail "exit $rc, want 3"; }
# The watchdog fires at --deadline (rounded up) + 5 s = 6 s; whole seconds here.
[ $took -ge 5 ] && [ $took -le 7 ] || fail "took $took s, want 6 (--deadline 1 + 5 s)"
grep -q "no progress within --deadline" "$TMP/e" || { cat "$TMP/e"; fail "no clear message"; }
ok "no simulator: exit 3 after $took s with a clear message"
t_done
