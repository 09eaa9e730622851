#!/bin/bash
# ibscan exporter on a replayed capture (no simulator): /metrics passes
# promtool, /healthz, 404/405/413 and an oversized request refused; gzip
# where asked (the same page, one member); SIGHUP
# rereads the thresholds file (a finding appears once they are lowered);
# a node-name map edited under it says its new warning once;
# the exporter-toolkit web config: basic auth with a bcrypt hash (401
# without it or with a wrong password, 200 with it), TLS with a
# self-signed certificate (curl verifies it; plain HTTP gets no answer),
# and what it cannot honour refused with the line; SIGTERM exits 0.
. "$(dirname "$0")/lib.sh"
cap=$ROOT/fixtures/captures/counters.cap
command -v curl >/dev/null || fail "curl is not installed (make deps)"
command -v openssl >/dev/null || fail "openssl is not installed (make deps)"
EXP_PID=
trap '[ -n "$EXP_PID" ] && kill -KILL "$EXP_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

# poll SECONDS CMD...: until CMD succeeds, or fail after SECONDS.
poll() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}
start() {
	: >"$TMP/exp.err"
	"$IBSCAN" exporter --replay "$cap" --listen 127.0.0.1:0 --interval 0.2 "$@" 2>"$TMP/exp.err" &
	EXP_PID=$!
	poll 20 grep -q 'listening on' "$TMP/exp.err" || { cat "$TMP/exp.err"; fail "the exporter did not start"; }
	PORT=$(sed -n 's|.*listening on https\{0,1\}://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$TMP/exp.err")
	URL=http://127.0.0.1:$PORT
}
stop() {
	local rc=0
	kill -TERM "$EXP_PID"
	wait "$EXP_PID" || rc=$?
	EXP_PID=
	[ "$rc" = 0 ] || fail "exit $rc on SIGTERM: $(tail -3 "$TMP/exp.err")"
}
code() { curl -s --max-time 5 -o "$TMP/body" -w '%{http_code}' "$@"; }
has_data() { curl -sf --max-time 5 "$URL/metrics" | grep -qx 'ibscan_up 1'; }

# --- plain HTTP ---
printf 'SymbolErrorCounter=100000\nPortRcvErrors=100000\nLinkDownedCounter=100000\n' >"$TMP/thr"
# 2 s between sweeps: the sweep after SIGHUP (judged on its totals) is served long enough to be seen
start --thresholds "$TMP/thr" --interval 2
poll 20 has_data || fail "no sweep served: $(cat "$TMP/exp.err")"
[ "$(code "$URL/metrics")" = 200 ] || fail "/metrics"
promtool check metrics <"$TMP/body" || fail "promtool rejects /metrics"
grep -qx 'ibscan_last_sweep_success 1' "$TMP/body" || fail "no ibscan_last_sweep_success 1"
grep -qx 'ibscan_findings{check="counters"} 0' "$TMP/body" || fail "the thresholds file is not applied"
grep -q '^ibscan_sweep_timestamp_seconds [0-9.]*$' "$TMP/body" || fail "no sweep timestamp"
[ "$(code "$URL/healthz")" = 200 ] && grep -q '^ok: ' "$TMP/body" || fail "/healthz: $(cat "$TMP/body")"
[ "$(code "$URL/nothing")" = 404 ] || fail "not 404"
[ "$(code -X POST "$URL/metrics")" = 405 ] || fail "POST is not 405"
[ "$(code --data-binary "x=1" "$URL/metrics")" = 413 ] || fail "a body is not 413"
[ "$(code -I "$URL/metrics")" = 200 ] || fail "HEAD"
big=$(head -c 40000 /dev/zero | tr '\0' a)
c=$(code -H "X-Big: $big" "$URL/metrics")
[ "$c" != 200 ] || fail "a 40 kB header is answered 200"
echo "ok: plain HTTP: /metrics (promtool), /healthz, 404, 405, 413, HEAD, a 40 kB header refused ($c)"
# The second sweep is compared with the first (the same capture: nothing rose): PortXmitWait's share
# of the time between them, 0 on every port read, and no counters finding on a total
has_share() { curl -sf --max-time 5 -o "$TMP/body2" "$URL/metrics" && grep -q '^ibscan_port_xmit_wait_share{' "$TMP/body2"; }
poll 20 has_share || fail "no ibscan_port_xmit_wait_share after two sweeps: $(grep -c . "$TMP/body2") lines"
promtool check metrics <"$TMP/body2" || fail "promtool rejects /metrics with the share"
nshare=$(grep -c '^ibscan_port_xmit_wait_share{.* 0$' "$TMP/body2")
nread=$(grep -c '^ibscan_port_counters_ok{.* 1$' "$TMP/body2")
[ "$nshare" = "$nread" ] && [ "$nread" -gt 0 ] || fail "share 0 on $nshare ports of $nread read"
grep -q '^ibscan_port_xmit_wait_ticks_per_second{' "$TMP/body2" || fail "no PortXmitWait rate between sweeps"
echo "ok: the sweep after the first: ibscan_port_xmit_wait_share 0 on all $nread ports read (nothing rose)"
# gzip where the scraper asks (Prometheus sends Accept-Encoding: gzip): Content-Encoding gzip, one
# gzip member (the status lines deflated per scrape, the sweep's page once per sweep) that inflates
# to the page served uncompressed (but for the age, which moves between the two scrapes); curl
# --compressed reads the same; no gzip unasked or with q=0.
plain_and_gz() {
	curl -sf --max-time 5 -D "$TMP/plain.h" -o "$TMP/plain" "$URL/metrics" &&
		curl -sf --max-time 5 -H 'Accept-Encoding: gzip' -D "$TMP/gz.h" -o "$TMP/gz" "$URL/metrics" &&
		curl -sf --max-time 5 --compressed -o "$TMP/curlz" "$URL/metrics" &&
		gzip -dc <"$TMP/gz" >"$TMP/gunz" &&
		for f in plain gunz curlz; do grep -v '^ibscan_sweep_age_seconds ' "$TMP/$f" >"$TMP/$f.n"; done &&
		cmp -s "$TMP/plain.n" "$TMP/gunz.n" && cmp -s "$TMP/plain.n" "$TMP/curlz.n"
}
poll 20 plain_and_gz || fail "gzip: not the same page: $(diff "$TMP/plain.n" "$TMP/gunz.n" | head -5)"
grep -qi '^content-encoding: gzip' "$TMP/gz.h" || fail "gzip: no Content-Encoding: $(cat "$TMP/gz.h")"
grep -qi '^vary: accept-encoding' "$TMP/gz.h" || fail "gzip: no Vary"
grep -qi '^content-encoding' "$TMP/plain.h" && fail "unasked, the page is encoded: $(cat "$TMP/plain.h")"
python3 - "$TMP/gz" "$TMP/gunz" <<'PY' || fail "gzip: not one member"
import sys, zlib
data, want = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
d = zlib.decompressobj(16 + 15)
out = d.decompress(data)
assert d.eof and not d.unused_data and out == want, (d.eof, len(d.unused_data))
PY
curl -sf --max-time 5 -H 'Accept-Encoding: gzip;q=0, identity' -D "$TMP/q0.h" -o /dev/null "$URL/metrics" ||
	fail "q=0 scrape"
grep -qi '^content-encoding' "$TMP/q0.h" && fail "gzip;q=0 got gzip"
promtool check metrics <"$TMP/gunz" || fail "promtool rejects the inflated page"
echo "ok: gzip: $(wc -c <"$TMP/plain") bytes served as $(wc -c <"$TMP/gz") (one member, curl --compressed the same page)"
# SIGHUP: the thresholds file is read again
: >"$TMP/thr" # the defaults again: three ports over them
kill -HUP "$EXP_PID"
counters_finding() { curl -sf --max-time 5 "$URL/metrics" | grep -qx 'ibscan_findings{check="counters"} 3'; }
poll 20 counters_finding || fail "SIGHUP did not reread the thresholds"
grep -q 'SIGHUP: thresholds reloaded' "$TMP/exp.err" || fail "SIGHUP not said"
kill -0 "$EXP_PID" || fail "SIGHUP ended the exporter"
stop
echo "ok: SIGHUP rereads the thresholds file; SIGTERM exits 0"

# --- the node-name map, read at every sweep: a warning its edit brings is said once, at the sweep that reads it ---
sweeps() { curl -sf --max-time 5 "$URL/metrics" | sed -n 's/^ibscan_exporter_sweeps_total //p'; }
sweeps_past() { local n; n=$(sweeps) && [ "${n:-0}" -ge "$1" ]; }
g=$("$IBSCAN" nodes --json --replay "$cap" | jq -r '.nodes[0].guid')
printf '%s "first"\n' "$g" >"$TMP/names.map"
start --node-name-map "$TMP/names.map"
poll 20 has_data || fail "no sweep served with a name map: $(cat "$TMP/exp.err")"
n=$(sweeps)
poll 20 sweeps_past $((n + 2)) || fail "the sweeps stopped"
grep -q 'is named again' "$TMP/exp.err" && fail "a warning before the map has anything to warn of"
printf '%s "first"\n%s second\n' "$g" "$g" >"$TMP/names.new"
mv "$TMP/names.new" "$TMP/names.map"
poll 20 grep -qF "names.map:2: GUID $g is named again" "$TMP/exp.err" ||
	fail "the edited map's warning is never said (the first sweep's 'said once' held for the process): $(cat "$TMP/exp.err")"
n=$(sweeps)
poll 20 sweeps_past $((n + 3)) || fail "the sweeps stopped"
[ "$(grep -c 'is named again' "$TMP/exp.err")" = 1 ] || fail "the same map's warning said more than once: $(cat "$TMP/exp.err")"
stop
echo "ok: an edited node-name map's new warning is said once, at the sweep that reads it"

# --- basic auth (bcrypt) ---
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))')
case $hash in '$2'*) ;; *) fail "python could not make a bcrypt hash: $hash" ;; esac
printf 'basic_auth_users:\n  prom: %s\n' "$hash" >"$TMP/web.yml"
start --web-config "$TMP/web.yml"
grep -q '(basic auth)' "$TMP/exp.err" || fail "basic auth not said"
[ "$(code "$URL/metrics")" = 401 ] || fail "no credentials: not 401"
[ "$(code -u prom:wrong "$URL/metrics")" = 401 ] || fail "a wrong password: not 401"
[ "$(code -u other:s3cret "$URL/metrics")" = 401 ] || fail "an unknown user: not 401"
poll 20 test "$(code -u prom:s3cret "$URL/metrics")" = 200 || fail "the right password: not 200"
grep -qx 'ibscan_up 1' "$TMP/body" || poll 20 sh -c "curl -sf -u prom:s3cret '$URL/metrics' | grep -qx 'ibscan_up 1'" || fail "no data with auth"
stop
echo "ok: basic auth: 401 without, with a wrong password or user; 200 with prom:s3cret"

# --- TLS ---
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null || fail "openssl"
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: "key.pem"\n' >"$TMP/tls.yml"
start --web-config "$TMP/tls.yml"
grep -q 'listening on https://' "$TMP/exp.err" || fail "https not said: $(cat "$TMP/exp.err")"
[ "$(code --cacert "$TMP/cert.pem" "https://127.0.0.1:$PORT/metrics")" = 200 ] || fail "TLS scrape"
grep -q '^ibscan_last_sweep_success ' "$TMP/body" || fail "TLS: no metrics"
c=$(code "http://127.0.0.1:$PORT/metrics" || true)
[ "$c" != 200 ] || fail "plain HTTP answered on the TLS port"
stop
echo "ok: TLS: curl verifies the certificate and scrapes; plain HTTP gets no 200"

# --- what the web config cannot honour: refused, with its line ---
refused() { # FILE-TEXT MESSAGE
	printf '%b' "$1" >"$TMP/bad.yml"
	run 3 exporter --replay "$cap" --listen 127.0.0.1:0 --web-config "$TMP/bad.yml"
	grep -qF "$2" "$TMP/err" || fail "want '$2' in: $(cat "$TMP/err")"
}
refused 'tls_server_config:\n  client_auth_type: RequireAndVerifyClientCert\n' "bad.yml:2: 'client_auth_type' in tls_server_config is not supported by ibscan"
refused 'basic_auth_users:\n  prom: plaintext\n' "bad.yml:2: the password of 'prom' is not a bcrypt hash"
refused 'basic_auth_users:\n  prom: "$2y$05$abcdefghijklmnopqrstu"\n' "bad.yml:2: the password of 'prom' is not a well-formed bcrypt hash"
refused 'tls_server_config:\n  cert_file: cert.pem\n' "TLS wants both cert_file and key_file"
head -c 70000 /dev/zero | tr '\0' '#' >"$TMP/huge.yml"
run 3 exporter --replay "$cap" --listen 127.0.0.1:0 --web-config "$TMP/huge.yml"
grep -q "is larger than the limit of 65536 bytes" "$TMP/err" || fail "a huge web config: $(cat "$TMP/err")"
# Binary bytes on one line, starting with a byte that is no comment or blank (random bytes
# starting with '#' made a comment of the whole file 1 run in 256, and the exporter served).
{ printf '\001'; head -c 3000 /dev/urandom | tr -d '\n:'; } >"$TMP/noise.yml"
rc=0
timeout 30 "$IBSCAN" exporter --replay "$cap" --listen 127.0.0.1:0 --web-config "$TMP/noise.yml" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 3 ] || fail "a binary web config: exit $rc, want 3 (124: it served)"
grep -q "noise.yml:1: expected 'key: value'" "$TMP/err" || fail "a binary web config: $(cat "$TMP/err")"
refused 'web:\n  x: y\n' "bad.yml:1: 'web' is not a section of the web config file"
run 3 exporter --replay "$cap" --listen 127.0.0.1:0 --web-config "$TMP/missing.yml"
grep -q "missing.yml" "$TMP/err" || fail "a missing web config is not named"
run 3 exporter --replay "$cap" --listen 'nonsense'
grep -q -- "--listen wants ADDR:PORT" "$TMP/err" || fail "a bad --listen"
run 2 exporter --interval 0
run 2 exporter --record "$TMP/x.cap"
echo "ok: unsupported web config keys, plaintext passwords, half a TLS pair, bad --listen refused"
t_done
