#!/bin/bash
# ibscan exporter on the simulator, scraped by a real Prometheus (Debian's
# prometheus, started here on a free loopback port with its own TSDB and a
# 1 s scrape interval): the target is up and the expected series are there
# through Prometheus's HTTP API; promtool accepts every scrape; an error
# counter set with the console (PerformanceSet) shows in that port's series;
# a cable pulled shows in a later sweep; 50 concurrent scrapers beside a
# client that sends one byte a second all get whole answers at once; a soak
# of 100 quick sweeps keeps RSS and the fd count flat; killing the simulator
# makes ibscan_last_sweep_success 0 with the old data (and its age) still
# served; SIGTERM ends it with exit 0. Every wait has a deadline.
. "$(dirname "$0")/lib.sh"

command -v prometheus >/dev/null || fail "prometheus is not installed (make deps)"
command -v curl >/dev/null || fail "curl is not installed (make deps)"
EXP_PID= PROM_PID= SLOW_PID=
_exp_cleanup() {
	local p
	for p in $SLOW_PID $PROM_PID $EXP_PID; do
		kill -TERM "$p" 2>/dev/null && { timeout 5 tail --pid="$p" -f /dev/null || kill -KILL "$p" 2>/dev/null; }
	done
	_cleanup_tmp
}
trap _exp_cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_exporter ARGS...: the exporter under the simulator, in the background; EXP_PID, EXP_PORT.
start_exporter() {
	: >"$TMP/exp.err"
	(cd "$SIM_DIR" && PATH=$(_sim_path) LD_PRELOAD=$SIM_SHIM exec "$IBSCAN" exporter --listen "${LISTEN:-127.0.0.1:0}" "$@" 2>>"$TMP/exp.err") &
	EXP_PID=$!
	sim_poll 20 grep -q 'listening on' "$TMP/exp.err" || { cat "$TMP/exp.err"; fail "the exporter did not start"; }
	EXP_PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$TMP/exp.err")
	[ -n "$EXP_PORT" ] || fail "no port in: $(cat "$TMP/exp.err")"
}
stop_exporter() {
	local rc=0
	kill -TERM "$EXP_PID"
	# With the simulator killed, the shim's exit handler can hang: the exit guard (10 s,
	# cmd/signals.c) ends the process after serve()'s 3 s wait for the sweeper: 20 s.
	timeout 20 tail --pid="$EXP_PID" -f /dev/null || fail "the exporter did not end within 20 s of SIGTERM"
	wait "$EXP_PID" || rc=$?
	[ "$rc" = 0 ] || fail "the exporter exited $rc on SIGTERM: $(tail -3 "$TMP/exp.err")"
	EXP_PID=
}
scrape() { curl -sf --max-time 5 "http://127.0.0.1:$EXP_PORT/metrics"; }
# metric NAME{LABELS}: its value in a fresh scrape (empty if absent).
metric() { scrape | awk -v k="$1" '$1 == k { print $2 }'; }
sweeps() { metric ibscan_exporter_sweeps_total; }
metric_is() { [ "$(metric "$1")" = "$2" ]; }
# prom_query EXPR: the first result's value through Prometheus's HTTP API (empty: none).
prom_query() {
	curl -sf --max-time 5 --data-urlencode "query=$1" "http://127.0.0.1:$PROM_PORT/api/v1/query" |
		jq -r '.data.result[0].value[1] // empty'
}
prom_is() { [ "$(prom_query "$1")" = "$2" ]; }
target_up() {
	curl -sf --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/targets" |
		jq -e '.data.activeTargets | length == 1 and .[0].health == "up"' >/dev/null
}

sim_start "$FABRICS/net.2sw2path4hca"
start_exporter --interval 1 --walk-every 2 --deadline 10
sim_poll 20 metric_is ibscan_last_sweep_success 1 || fail "no successful sweep: $(tail -5 "$TMP/exp.err")"

# --- a real Prometheus scrapes it ---
PROM_PORT=$(free_port)
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ibscan
    static_configs:
      - targets: ['127.0.0.1:$EXP_PORT']
EOF
promtool check config "$TMP/prometheus.yml" >/dev/null || fail "promtool rejects the scrape config"
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" >"$TMP/prom.log" 2>&1 &
PROM_PID=$!
sim_poll 60 target_up || { tail -20 "$TMP/prom.log"; fail "Prometheus does not report the exporter up"; }
sim_poll 30 prom_is 'up{job="ibscan"}' 1 || fail "up != 1"
sim_poll 30 prom_is ibscan_nodes 6 || fail "Prometheus: ibscan_nodes is not 6: $(prom_query ibscan_nodes)"
prom_is ibscan_links 6 || fail "Prometheus: ibscan_links $(prom_query ibscan_links)"
prom_is ibscan_last_sweep_success 1 || fail "Prometheus: ibscan_last_sweep_success"
prom_is ibscan_health_status 0 || fail "Prometheus: health status $(prom_query ibscan_health_status)"
n=$(curl -sf --max-time 5 --data-urlencode 'query=count(ibscan_port_symbol_errors_total)' \
	"http://127.0.0.1:$PROM_PORT/api/v1/query" | jq -r '.data.result[0].value[1]')
[ "$n" = 12 ] || fail "Prometheus holds $n ibscan_port_symbol_errors_total series, want 12 (6 links, 2 ends)"
ok "Prometheus scrapes the exporter: target up, 6 nodes, 6 links, 12 port series, OK"

# --- every query of the example Grafana dashboard evaluates in this Prometheus ---
nq=0
while IFS= read -r q; do
	q=${q//'$job'/ibscan}
	q=${q//'$__rate_interval'/1m}
	st=$(curl -sf --max-time 5 --data-urlencode "query=$q" "http://127.0.0.1:$PROM_PORT/api/v1/query" | jq -r .status)
	[ "$st" = success ] || fail "Prometheus cannot evaluate the dashboard's '$q'"
	nq=$((nq + 1))
done < <(jq -r '.. | objects | .expr? | strings' "$ROOT/examples/grafana-ibscan.json")
[ "$nq" -ge 15 ] || fail "only $nq dashboard queries"
prom_is 'ibscan_health_status{job="ibscan"}' 0 || fail "the dashboard's verdict query gives $(prom_query 'ibscan_health_status{job="ibscan"}')"
ok "Prometheus evaluates all $nq queries of examples/grafana-ibscan.json"

# --- promtool accepts every scrape (sweeps run between them) ---
for i in $(seq 1 5); do
	scrape >"$TMP/s$i.prom" || fail "scrape $i failed"
	promtool check metrics <"$TMP/s$i.prom" >"$TMP/lint" 2>&1 || { cat "$TMP/lint"; fail "promtool rejects scrape $i"; }
	sleep 0.3
done
ok "promtool check metrics passes on 5 scrapes"

# --- a PerformanceSet error on one port shows in that port's series ---
key=$(grep -o '^ibscan_port_symbol_errors_total{[^}]*port="1",name="Switch1",[^}]*}' "$TMP/s5.prom")
[ -n "$key" ] || fail "no Switch1 port 1 series in: $(grep symbol_errors "$TMP/s5.prom" | head -3)"
[ "$(awk -v k="$key" '$1 == k { print $2 }' "$TMP/s5.prom")" = 0 ] || fail "Switch1 port 1 is not clean before"
sim_console 'PerformanceSet "Switch1"[1] PortCounters.SymbolErrorCounter=5000' >/dev/null || fail "PerformanceSet"
sim_poll 20 metric_is "$key" 5000 || fail "the exporter does not show 5000 on $key: $(metric "$key")"
others=$(scrape | grep '^ibscan_port_symbol_errors_total{' | grep -vF "$key" | awk '$2 != 0' | wc -l)
[ "$others" = 0 ] || fail "$others other ports show symbol errors"
sim_poll 30 prom_is 'ibscan_port_symbol_errors_total{name="Switch1",port="1"}' 5000 ||
	fail "Prometheus: Switch1 port 1 symbol errors $(prom_query 'ibscan_port_symbol_errors_total{name="Switch1",port="1"}')"
prom_is 'sum(ibscan_port_symbol_errors_total)' 5000 || fail "Prometheus: the sum over ports is not 5000"
# Each sweep is judged on what rose since the one before: the finding stands one sweep, then the port is quiet
sim_poll 20 prom_is 'max_over_time(ibscan_findings{check="counters"}[2m])' 1 || fail "Prometheus: no counters finding"
sim_poll 20 metric_is 'ibscan_findings{check="counters"}' 0 || fail "the finding stays after the rise: judged on the total"
ok "PerformanceSet SymbolErrorCounter=5000 on Switch1[1]: that series only, in the exporter and in Prometheus; a finding for the sweep it rose in only"

# --- a cable pulled shows in a later sweep (at most --walk-every + 1 sweeps) ---
s0=$(sweeps)
sim_console 'Unlink "Switch1"[5]' >/dev/null || fail "Unlink"
sim_poll 20 metric_is ibscan_links 5 || fail "the pulled cable is not seen: ibscan_links $(metric ibscan_links)"
s1=$(sweeps)
[ $((s1 - s0)) -le 4 ] || fail "the pulled cable took $((s1 - s0)) sweeps to show"
key5=$(scrape | grep -o '^ibscan_port_state{[^}]*port="5",name="Switch1",[^}]*}')
[ "$(metric "$key5")" = 1 ] || fail "Switch1 port 5 is not Down: $(metric "$key5")"
sim_poll 30 prom_is ibscan_links 5 || fail "Prometheus: ibscan_links $(prom_query ibscan_links)"
ok "Unlink Switch1[5]: ibscan_links 5 and the port Down $((s1 - s0)) sweep(s) later, in Prometheus too"
sim_console 'ReLink "Switch1"[5]' >/dev/null || true

# --- 50 concurrent scrapers and one client sending a byte a second ---
python3 - "$EXP_PORT" >"$TMP/slow.out" 2>&1 <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
for b in b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n":
    try:
        s.send(bytes([b]))
    except OSError:
        print("closed by the server"); break
    time.sleep(1)
PY
SLOW_PID=$!
sleep 2
start=$(date +%s%N)
for i in $(seq 1 50); do
	curl -s --max-time 5 -o "$TMP/c$i.prom" -w '%{http_code}\n' "http://127.0.0.1:$EXP_PORT/metrics" >"$TMP/c$i.code" &
done
wait_ok=1
for i in $(seq 1 50); do
	sim_poll 10 test -s "$TMP/c$i.code" || wait_ok=0
done
[ "$wait_ok" = 1 ] || fail "some of the 50 scrapers did not finish within 10 s"
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
kill -0 "$SLOW_PID" 2>/dev/null || fail "the slow client is gone: it should still be sending"
bad=0
for i in $(seq 1 50); do
	[ "$(cat "$TMP/c$i.code")" = 200 ] || bad=$((bad + 1))
	# a whole sweep each: the fabric's node count and the last metric family's lines
	grep -qx 'ibscan_nodes 6' "$TMP/c$i.prom" || bad=$((bad + 1))
	grep -q '^ibscan_port_counters_ok{' "$TMP/c$i.prom" || bad=$((bad + 1))
done
[ "$bad" = 0 ] || fail "$bad problems among the 50 concurrent scrapes"
[ "$elapsed_ms" -lt 5000 ] || fail "50 concurrent scrapes took $elapsed_ms ms beside a slow client"
promtool check metrics <"$TMP/c50.prom" >/dev/null 2>&1 || fail "promtool rejects a concurrent scrape"
kill "$SLOW_PID" 2>/dev/null
wait "$SLOW_PID" 2>/dev/null || true
SLOW_PID=
ok "50 concurrent scrapes beside a one-byte-a-second client: all 200 and whole, in $elapsed_ms ms"
stop_exporter

# --- soak: 100 quick sweeps, RSS and fds flat (on the same port: Prometheus goes on scraping) ---
LISTEN=127.0.0.1:$EXP_PORT start_exporter --interval 0.05 --walk-every 3 --deadline 10
ten_sweeps() { [ "$(sweeps)" -ge 10 ] 2>/dev/null; }
sim_poll 30 ten_sweeps || fail "no 10 sweeps"
sleep 0.2
# The least of 20 samples: a sweep holds the umad fd (and the shim's) open only while it runs.
fds_min() {
	local i n m=99999
	for i in $(seq 1 20); do
		n=$(ls "/proc/$EXP_PID/fd" | wc -l)
		((n < m)) && m=$n
		sleep 0.01
	done
	echo "$m"
}
rss0=$(awk '/^VmRSS/ { print $2 }' "/proc/$EXP_PID/status")
fd0=$(fds_min)
n0=$(sweeps)
soak_done() { [ "$(sweeps)" -ge $((n0 + 100)) ] 2>/dev/null; }
sim_poll 120 soak_done || fail "100 more sweeps did not happen within 120 s ($(sweeps))"
rss1=$(awk '/^VmRSS/ { print $2 }' "/proc/$EXP_PID/status")
fd1=$(fds_min)
[ "$(metric ibscan_exporter_sweep_failures_total)" = 0 ] || fail "soak: sweeps failed: $(tail -3 "$TMP/exp.err")"
# Whole sweeps, not only completed ones: umad2sim keeps a closed port's MAD agents unless they are
# unregistered, and a process opening a port per sweep ran out of them ("Cannot allocate memory").
scrape >"$TMP/soak.prom"
grep -qx 'ibscan_partial 0' "$TMP/soak.prom" && grep -qx 'ibscan_findings{check="partial"} 0' "$TMP/soak.prom" ||
	fail "soak: the last sweep is partial: $(grep -E '^ibscan_(partial|health_status|findings)' "$TMP/soak.prom" | awk '$2 != 0') $(sort -u "$TMP/exp.err" | head -3)"
! grep -q 'Cannot allocate memory' "$TMP/exp.err" || fail "soak: $(grep -m1 'Cannot allocate memory' "$TMP/exp.err")"
# A leak per sweep or per walk is +33 to +100 here; at most +2 is what may be open by chance
# at every sample under load (Prometheus' keep-alive connection, a sweep's fds while it runs).
[ "$fd1" -le $((fd0 + 2)) ] || fail "soak: fds grew from $fd0 to $fd1: $(ls -l "/proc/$EXP_PID/fd" | awk '{ print $NF }' | sort | uniq -c | tr '\n' ' ')"
[ $((rss1 - rss0)) -lt 1024 ] || fail "soak: RSS grew from $rss0 kB to $rss1 kB over 100 sweeps"
ok "soak: $((n0 + 100)) sweeps: RSS $rss0 -> $rss1 kB, fds $fd0 -> $fd1"
# Scrapes while sweeps run back to back (one every 50 ms): each one a whole sweep.
s0=$(sweeps)
for i in $(seq 1 40); do
	scrape >"$TMP/during.prom" || fail "scrape $i during the sweeps failed"
	grep -qx 'ibscan_nodes 6' "$TMP/during.prom" || fail "scrape $i: no ibscan_nodes 6"
	n=$(grep -c '^ibscan_port_counters_ok{' "$TMP/during.prom")
	[ "$n" = 12 ] || fail "scrape $i during a sweep holds $n of 12 ports' last family: half a sweep"
done
[ $(($(sweeps) - s0)) -ge 5 ] || fail "the sweeps did not run during the 40 scrapes"
ok "40 scrapes during back-to-back sweeps ($(($(sweeps) - s0)) sweeps): each a whole sweep"

# --- the simulator killed: last_sweep_success 0, the old data and its age served ---
sim_kill_ibsim
sim_poll 20 metric_is ibscan_last_sweep_success 0 || fail "ibscan_last_sweep_success stays $(metric ibscan_last_sweep_success)"
scrape >"$TMP/dead.prom" || fail "the exporter stopped serving"
grep -qx 'ibscan_nodes 6' "$TMP/dead.prom" || fail "the previous sweep's data are not served"
age0=$(awk '$1 == "ibscan_sweep_age_seconds" { print $2 }' "$TMP/dead.prom")
f0=$(awk '$1 == "ibscan_exporter_sweep_failures_total" { print $2 }' "$TMP/dead.prom")
sleep 1.5
age1=$(metric ibscan_sweep_age_seconds)
[ "$(echo "$age1 > $age0 + 1" | bc)" = 1 ] || fail "the age does not grow: $age0 then $age1"
[ "$(metric ibscan_exporter_sweep_failures_total)" -gt "$f0" ] || fail "the failures do not count"
code=$(curl -s --max-time 5 -o "$TMP/hz" -w '%{http_code}' "http://127.0.0.1:$EXP_PORT/healthz")
[ "$code" = 503 ] && grep -q '^failing: ' "$TMP/hz" || fail "/healthz says $code $(cat "$TMP/hz")"
sim_poll 30 prom_is ibscan_last_sweep_success 0 || fail "Prometheus: ibscan_last_sweep_success $(prom_query ibscan_last_sweep_success)"
prom_is 'up{job="ibscan"}' 1 || fail "Prometheus: the exporter went down with the simulator"
kill -0 "$EXP_PID" || fail "the exporter died with the simulator"
ok "simulator killed: ibscan_last_sweep_success 0, the old sweep served, age $age0 -> $age1 s, /healthz 503, still up"
stop_exporter
ok "SIGTERM: exit 0"
sim_stop
t_done
