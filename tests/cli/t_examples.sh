#!/bin/bash
# examples/: each example runs against the bundled captures (--replay): the
# cron line's command, the systemd units (systemd-analyze verify when it is
# there, then their ExecStart), and every jq recipe's own
# command line with its expected answer. docs/checks.md shows the same
# cron and systemd files, and every file in examples/ is covered here.
. "$(dirname "$0")/lib.sh"
ex=$ROOT/examples
caps=$ROOT/fixtures/captures
covered=(README.md)

# An `ibscan` that replays $CAP, for the examples to find on PATH or in $IBSCAN.
mkdir -p "$TMP/bin"
cat >"$TMP/bin/ibscan" <<EOF
#!/bin/bash
exec "$IBSCAN" "\$@" --replay "\$CAP"
EOF
chmod +x "$TMP/bin/ibscan"

# ---- cron ----
covered+=(ibscan-health.cron)
cron=$ex/ibscan-health.cron
mapfile -t assigns < <(grep -E '^[A-Z_]+=' "$cron")
line=$(grep -vE '^(#|[A-Z_]+=|$)' "$cron")
[ "$(wc -l <<<"$line")" = 1 ] || fail "cron: want one schedule line, got: $line"
read -r m h dom mon dow user cmd <<<"$line"
[[ "$m $h $dom $mon $dow" =~ ^[0-9*/,-]+( [0-9*/,-]+){4}$ ]] || fail "cron: bad schedule: $line"
[ "$user" = root ] || fail "cron: /etc/cron.d lines name a user: $line"
[[ $cmd == *'$IBSCAN '* && $cmd == *'$TEXTFILE_DIR/'* ]] || fail "cron: the command must use \$IBSCAN and \$TEXTFILE_DIR"
printf '%s\n' "${assigns[@]}" | grep -qx 'IBSCAN=/usr/local/bin/ibscan' || fail "cron: IBSCAN default"
cron_run() { # CAPTURE WANT_RC: the command as cron runs it (sh, the file's variables, ours over them)
	local rc=0
	rm -rf "$TMP/textfile"
	mkdir "$TMP/textfile"
	env -i PATH=/usr/bin:/bin "${assigns[@]}" IBSCAN="$TMP/bin/ibscan" TEXTFILE_DIR="$TMP/textfile" \
		CAP="$caps/$1.cap" sh -c "$cmd" >"$TMP/cron.out" 2>&1 || rc=$?
	[ "$rc" = "$2" ] || fail "cron on $1: exit $rc, want $2: $(cat "$TMP/cron.out")"
	[ ! -s "$TMP/cron.out" ] || fail "cron on $1: output (cron would mail it): $(cat "$TMP/cron.out")"
	[ "$(ls "$TMP/textfile")" = ibscan.prom ] || fail "cron on $1: textfile directory holds: $(ls "$TMP/textfile")"
	grep -qx 'ibscan_up 1' "$TMP/textfile/ibscan.prom" || fail "cron on $1: no ibscan_up 1"
	grep -qx "ibscan_health_status $2" "$TMP/textfile/ibscan.prom" || fail "cron on $1: status not $2"
}
cron_run fattree2-small 0
cron_run port-init 2

# ---- systemd ----
covered+=(ibscan-health.service ibscan-health.timer)
mkdir -p "$TMP/units"
grep -q '^ExecStart=/usr/local/bin/ibscan health ' "$ex/ibscan-health.service" || fail "systemd: ExecStart"
sed "s|^ExecStart=/usr/local/bin/ibscan |ExecStart=$TMP/bin/ibscan |" "$ex/ibscan-health.service" \
	>"$TMP/units/ibscan-health.service"
cp "$ex/ibscan-health.timer" "$TMP/units/"
if command -v systemd-analyze >/dev/null; then
	# Documentation=man:ibscan(1) must resolve: to this man page.
	mkdir -p "$TMP/man/man1"
	cp "$ROOT/docs/ibscan.1" "$TMP/man/man1/"
	MANPATH=$TMP/man systemd-analyze verify "$TMP/units/ibscan-health.service" \
		"$TMP/units/ibscan-health.timer" >"$TMP/verify" 2>&1 || fail "systemd-analyze verify: $(cat "$TMP/verify")"
	systemd-analyze calendar "$(sed -n 's/^OnCalendar=//p' "$ex/ibscan-health.timer")" >/dev/null ||
		fail "systemd: OnCalendar"
else
	echo "systemd-analyze is not installed: checking ExecStart only"
fi
grep -qx 'WantedBy=timers.target' "$ex/ibscan-health.timer" || fail "systemd: timer install section"
exec_start=$(sed -n 's/^ExecStart=//p' "$TMP/units/ibscan-health.service")
td_default=$(sed -n 's/^Environment=TEXTFILE_DIR=//p' "$ex/ibscan-health.service")
[ "$td_default" = /var/lib/node_exporter/textfile ] || fail "systemd: TEXTFILE_DIR default"
ok_codes=" 0 $(sed -n 's/^SuccessExitStatus=//p' "$ex/ibscan-health.service") "
grep -qx 'StateDirectory=ibscan' "$ex/ibscan-health.service" && grep -qx 'StateDirectoryMode=0700' "$ex/ibscan-health.service" &&
	[[ $exec_start == *' --state /var/lib/ibscan/health.state'* ]] || fail "systemd: --state in its StateDirectory"
unit_run() { # CAPTURE WANT_RC: ExecStart with ${TEXTFILE_DIR} expanded as systemd does, twice (--state's first run, then one with readings)
	local rc run argv
	rm -rf "$TMP/textfile" "$TMP/statedir"
	mkdir "$TMP/textfile"
	mkdir -m 700 "$TMP/statedir" # as StateDirectoryMode makes it
	exec_here=${exec_start//'${TEXTFILE_DIR}'/$TMP/textfile}
	read -ra argv <<<"${exec_here//\/var\/lib\/ibscan/$TMP/statedir}"
	for run in first second; do
		rc=0
		CAP="$caps/$1.cap" "${argv[@]}" >"$TMP/unit.out" 2>&1 || rc=$?
		[ "$rc" = "$2" ] || fail "systemd on $1 ($run run): exit $rc, want $2: $(cat "$TMP/unit.out")"
		[[ $ok_codes == *" $rc "* ]] || fail "systemd on $1: exit $rc would fail the unit"
		grep -qx "ibscan_health_status $2" "$TMP/textfile/ibscan.prom" || fail "systemd on $1: status not $2"
		[ -s "$TMP/statedir/health.state" ] || fail "systemd on $1 ($run run): no state written"
		if [ $run = first ]; then
			grep -q "no earlier readings (the first run)" "$TMP/unit.out" || fail "systemd on $1: the first run says nothing of the state"
		else
			! grep -q "first run" "$TMP/unit.out" || fail "systemd on $1: the second run did not read the state"
		fi
	done
}
unit_run fattree2-small 0
unit_run degraded 1
unit_run port-init 2

# ---- the exporter's systemd unit: verified, sandboxed, its ExecStart serves ----
covered+=(ibscan-exporter.service)
grep -q '^ExecStart=/usr/local/bin/ibscan exporter ' "$ex/ibscan-exporter.service" || fail "exporter unit: ExecStart"
sed "s|^ExecStart=/usr/local/bin/ibscan |ExecStart=$TMP/bin/ibscan |" "$ex/ibscan-exporter.service" \
	>"$TMP/units/ibscan-exporter.service"
if command -v systemd-analyze >/dev/null; then
	MANPATH=$TMP/man systemd-analyze verify "$TMP/units/ibscan-exporter.service" >"$TMP/verify" 2>&1 ||
		fail "systemd-analyze verify ibscan-exporter.service: $(cat "$TMP/verify")"
fi
for k in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes DevicePolicy=closed \
	'DeviceAllow=char-infiniband_mad rw' CapabilityBoundingSet= User=ibscan 'ExecReload=/bin/kill -HUP $MAINPID'; do
	grep -qxF "$k" "$ex/ibscan-exporter.service" || fail "exporter unit: no $k"
done
read -ra argv <<<"$(sed -n 's/^ExecStart=//p' "$TMP/units/ibscan-exporter.service")"
argv=("${argv[@]/127.0.0.1:9684/127.0.0.1:0}")
CAP=$caps/net.2sw2path4hca.cap "${argv[@]}" 2>"$TMP/exp.err" &
exp_pid=$!
for _ in $(seq 1 100); do grep -q 'listening on' "$TMP/exp.err" && break; sleep 0.1; done
port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$TMP/exp.err")
[ -n "$port" ] || { kill "$exp_pid"; fail "exporter unit: ExecStart does not serve: $(cat "$TMP/exp.err")"; }
for _ in $(seq 1 100); do
	curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" >"$TMP/exp.prom" && grep -qx 'ibscan_up 1' "$TMP/exp.prom" && break
	sleep 0.1
done
kill -TERM "$exp_pid"
wait "$exp_pid" || fail "exporter unit: exit $? on SIGTERM"
grep -qx 'ibscan_up 1' "$TMP/exp.prom" || fail "exporter unit: no sweep served"

# ---- the Grafana dashboard: JSON, and every metric it names is one the exporter serves ----
covered+=(grafana-ibscan.json)
jq -e '.panels | length > 0' "$ex/grafana-ibscan.json" >/dev/null || fail "grafana: not a dashboard"
mapfile -t used < <(jq -r '.. | objects | (.expr?, .query?) | strings' "$ex/grafana-ibscan.json" |
	grep -o 'ibscan_[a-z0-9_]*' | sort -u)
[ "${#used[@]}" -ge 10 ] || fail "grafana: only ${#used[@]} metric names found"
for m in "${used[@]}"; do
	grep -q "^# TYPE $m " "$TMP/exp.prom" || fail "grafana: the dashboard uses $m, which the exporter does not serve"
done
# a name the exporter does not serve is caught (the check itself)
! grep -q '^# TYPE ibscan_port_no_such_total ' "$TMP/exp.prom" || fail "grafana: the check is broken"

# docs/checks.md shows the same files.
for f in ibscan-health.cron ibscan-health.service ibscan-health.timer; do
	while IFS= read -r l; do
		[ -z "$l" ] || [ "${l:0:1}" = "#" ] && continue
		grep -qxF "    $l" "$ROOT/docs/checks.md" || fail "docs/checks.md lacks $f's line: $l"
	done <"$ex/$f"
done

# ---- jq recipes: each one's own command line (from its header), on a capture ----
printf '0x0000000000100000 "hca-one"\n0x0000000000200000 "sw-one"\n' >"$TMP/map"
recipe() { # FILE CAPTURE EXPECTED
	local f=$1 cmdline out
	covered+=("jq/$f")
	cmdline=$(sed -n 's/^#   \(ibscan .*\)$/\1/p' "$ex/jq/$f")
	[ -n "$cmdline" ] && [[ $cmdline == *"-f $f"* ]] || fail "$f: no usage line '#   ibscan ... -f $f'"
	cmdline=${cmdline//\/etc\/ib-node-name-map/$TMP/map}
	out=$(cd "$ex/jq" && PATH=$TMP/bin:$PATH CAP=$caps/$2.cap bash -c "$cmdline" 2>/dev/null)
	[ "$out" = "$3" ] || fail "$f on $2: got
$out
want
$3"
}
recipe hosts-under-switch.jq fattree3 "$(printf 'node%04d mlx5_0\n' 1 2 3 4 5 6)"
recipe hosts-per-switch.jq degraded "$(printf '%s\n' 'leaf01 4' 'leaf02 4' 'spine01 0' 'spine02 0' 'spine03 0' 'spine04 0')"
recipe degraded-links.jq degraded "leaf01[3] - node0003 mlx5_0[1] 1x EDR (width)"
recipe degraded-links.jq fattree2-small ""
recipe links-not-active.jq port-init "Hca1[1] - Switch1[1] Init"
recipe unnamed-nodes.jq net.2sw2path4hca "0x0000000000100003 ca Hca2
0x0000000000100006 ca Hca3
0x0000000000100009 ca Hca4
0x0000000000200001 switch Switch2"
# By GUID too, and on a dual-rail fabric each host once.
out=$(CAP=$caps/dualrail.cap "$TMP/bin/ibscan" topology --json |
	jq -r --arg switch 0x0002c90300e10002 -f "$ex/jq/hosts-under-switch.jq" | wc -l)
[ "$out" = 18 ] || fail "hosts-under-switch.jq by GUID: $out hosts"
# The recipe's own example on the demo fabric, whose switches are named "MF0;leaf01:MSB7800/U1".
out=$("$IBSCAN" topology --json --replay "$ROOT/fixtures/captures/fattree2-small.cap" |
	jq -r --arg switch leaf01 -f "$ex/jq/hosts-under-switch.jq" | wc -l)
[ "$out" -gt 0 ] || fail "hosts-under-switch.jq --arg switch leaf01 finds no host on the demo fabric"

# ---- the GPU server profiles: each parses, and says OK of the fixture server it describes ----
run 0 local --check --sysfs "$ROOT/fixtures/sysfs/gpu-h100" --profile "$ex/gpu-h100-8rail.profile"
out_has "IBSCAN LOCAL OK - 8 rail ports Active, Ethernet, RoCE v2 GID index 3, at least 400 Gb/s"
covered+=(gpu-h100-8rail.profile)
# The InfiniBand profile against a RoCE host: parsed, and the mismatch found (it is no syntax error: exit 2, not 3).
run 2 local --check --sysfs "$ROOT/fixtures/sysfs/gpu-h100" --profile "$ex/gpu-b200-ib-8rail.profile"
out_has "port.link_layer"
covered+=(gpu-b200-ib-8rail.profile)

# ---- nothing in examples/ goes untested, and the README names everything ----
while IFS= read -r f; do
	printf '%s\n' "${covered[@]}" | grep -qxF "$f" || fail "examples/$f is not run by this test"
	[ "$f" = README.md ] || grep -qF "$f" "$ex/README.md" || fail "examples/README.md does not mention $f"
done < <(cd "$ex" && find . -type f | sed 's|^\./||' | sort)
echo "examples: ok (${#covered[@]} files)"
t_done
