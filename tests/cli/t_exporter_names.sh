#!/bin/bash
# docs/exporter.md's table of treydock's and guilbaults' metric names, checked against what ibscan
# serves: every ibscan name in it (with its label value) must be on the exporter's /metrics
# (fixtures/captures/counters.cap, replayed: its PortRcvErrorDetails) or in `health --format prom`
# of fixtures/captures/flap.cap (its PortXmitDiscardDetails), and the other exporters' names must
# be Prometheus names (tests/cli/exporter_names.py). A renamed metric fails here. Then the checker
# itself: a table naming a metric ibscan does not serve, or a reason it has not, must fail.
. "$(dirname "$0")/lib.sh"
caps=$ROOT/fixtures/captures
doc=$ROOT/docs/exporter.md
command -v curl >/dev/null || fail "curl is not installed (make deps)"
EXP_PID=
trap '[ -n "$EXP_PID" ] && kill -KILL "$EXP_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

"$IBSCAN" exporter --replay "$caps/counters.cap" --listen 127.0.0.1:0 --interval 0.2 2>"$TMP/exp.err" &
EXP_PID=$!
port=
for _ in $(seq 200); do
	port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$TMP/exp.err")
	[ -n "$port" ] && curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" -o "$TMP/m" &&
		grep -q '^ibscan_sweep_duration_seconds ' "$TMP/m" && break
	sleep 0.1
done
grep -q '^ibscan_sweep_duration_seconds ' "$TMP/m" 2>/dev/null || fail "the exporter served no sweep: $(cat "$TMP/exp.err")"
kill -TERM "$EXP_PID"
wait "$EXP_PID" || fail "the exporter exited $? on SIGTERM"
EXP_PID=
# (its verdict is CRITICAL: the flap; only the exposition matters here)
"$IBSCAN" health --format prom --replay "$caps/flap.cap" -o "$TMP/flap.prom" 2>/dev/null || true
grep -q '^ibscan_port_xmit_discard_details_total{' "$TMP/flap.prom" || fail "flap.cap's health has no PortXmitDiscardDetails"
python3 "$ROOT/tests/cli/exporter_names.py" "$doc" "$TMP/m" "$TMP/flap.prom" >"$TMP/names" 2>&1 ||
	fail "docs/exporter.md's mapping names what ibscan does not serve: $(cat "$TMP/names")"
echo "ok: $(tail -1 "$TMP/names")"

# The checker fails on a renamed metric and on a label value ibscan does not have.
sed 's/| `ibscan_port_symbol_errors_total` |/| `ibscan_port_symbol_error_total` |/' "$doc" >"$TMP/renamed.md"
cmp -s "$doc" "$TMP/renamed.md" && fail "the test's edit did not apply"
python3 "$ROOT/tests/cli/exporter_names.py" "$TMP/renamed.md" "$TMP/m" "$TMP/flap.prom" >"$TMP/n2" 2>&1 &&
	fail "a renamed metric passes"
grep -q 'ibscan serves no `ibscan_port_symbol_error_total`' "$TMP/n2" || fail "the rename is not named: $(cat "$TMP/n2")"
sed 's/{reason="looping"}/{reason="loops"}/' "$doc" >"$TMP/reason.md"
python3 "$ROOT/tests/cli/exporter_names.py" "$TMP/reason.md" "$TMP/m" "$TMP/flap.prom" >"$TMP/n3" 2>&1 &&
	fail "an unknown reason passes"
echo "ok: a metric renamed, or a reason ibscan has not, fails the check"
t_done
