# shellcheck shell=bash
# Stand-ins for the tools tools/hwcheck/hwcheck.sh runs, for tests/cli/t_hwcheck.sh:
# make_standins BIN STATE FIXTURES writes them into BIN. They print those
# tools' exact output: the infiniband-diags ones (saquery, perfquery,
# iblinkinfo, sminfo, smpquery, ibroute, ibnetdiscover) print what the real
# tools printed on the simulator (fixtures/hwcheck/, recorded by
# tools/fixtures/record-hwcheck-fixtures.sh); the ones that need RDMA hardware
# (rdma, ibv_devinfo, perftest, ss, ibv_rc_pingpong) print the formats of their
# sources, cited in each. STATE holds what they share: listeners
# (listen-PORT), the QPs and MRs `rdma res show` lists, perfquery's reading
# count, the ssh log.
make_standins() {
	local bin=$1 st=$2 fx=$3
	mkdir -p "$bin" "$st"
	# The kernel's own QPs of a port, as iproute2 rdma/res-qp.c prints them ("link DEV/PORT ...").
	printf 'link mlx5_0/1 lqpn 0 type SMI state RTS sq-psn 0 comm [ib_core]\nlink mlx5_0/1 lqpn 1 type GSI state RTS sq-psn 0 comm [ib_core]\n' >"$st/qp"
	: >"$st/mr"

	# perfquery: VL15 reading (no LID), then before/after pairs; -x: two pairs.
	cat >"$bin/perfquery" <<SH
#!/bin/bash
# What perfquery (rdma-core 44, infiniband-diags/perfquery.c, mad_dump_fields) printed on the simulator.
x=0 lid=
while [ \$# -gt 0 ]; do case \$1 in -C|-P) shift 2 ;; -x) x=1; shift ;; *) lid=\${lid:-\$1}; shift ;; esac; done
if [ -z "\$lid" ]; then
	v=\$(cat "$st/vl15" 2>/dev/null || echo 0)
	sed "s/^VL15Dropped:\.*[0-9]*$/VL15Dropped:.....................\$v/" "$fx/perfquery-vl15"
	exit 0
fi
k=\$(cat "$st/pq\$x" 2>/dev/null || echo 0)
echo \$((k + 1)) >"$st/pq\$x"
if [ \$x = 0 ]; then f=(perfquery-1 perfquery-2); else f=(perfquery-x-1 perfquery-x-2 perfquery-r-1 perfquery-r-2); fi
cat "$fx/\${f[k % \${#f[@]}]}"
SH
	# Tools whose recorded output is the answer, whatever the port.
	local t
	# ibnetdiscover walks for half a second: the walk-time check has a time to compare with.
	printf '#!/bin/bash\n# What ibnetdiscover (rdma-core 44, infiniband-diags/ibnetdiscover.c) printed on the simulator.\nsleep 0.5\ncat "%s/ibnetdiscover"\n' "$fx" >"$bin/ibnetdiscover"
	for t in saquery sminfo; do
		printf '#!/bin/bash\n# What %s (rdma-core 44, infiniband-diags/%s.c) printed on the simulator.\ncat "%s/%s"\n' \
			"$t" "$t" "$fx" "$t" >"$bin/$t"
	done
	cat >"$bin/iblinkinfo" <<SH
#!/bin/bash
# What iblinkinfo --line (rdma-core 44, infiniband-diags/iblinkinfo.c) printed on the simulator.
printf '%s\n' "\$@" | grep -qx -- --line || { echo "stand-in: want --line" >&2; exit 2; }
cat "$fx/iblinkinfo"
SH
	cat >"$bin/smpquery" <<SH
#!/bin/bash
# What smpquery GI (GUIDInfo, infiniband-diags/smpquery.c guid_info) printed on the simulator; nothing else is read.
printf '%s\n' "\$@" | grep -qix -- gi || { echo "smpquery: iberror: failed: operation not supported" >&2; exit 1; }
cat "$fx/smpquery-gi"
SH
	cat >"$bin/ibroute" <<SH
#!/bin/bash
# What ibroute -n (infiniband-diags/ibroute.c) printed on the simulator. Without -n it would send an SMP to
# every destination for its name: refused here, so that the test sees the option.
printf '%s\n' "\$@" | grep -qx -- -n || { echo "stand-in: ibroute without -n" >&2; exit 2; }
lid=\${!#}
cat "$fx/ibroute-\$lid"
SH
	cat >"$bin/rdma" <<SH
#!/bin/bash
# rdma res show qp|mr (iproute2 rdma/res-qp.c: "link DEV/PORT lqpn ..."; rdma/res-mr.c: "dev DEV mrn ...").
[ "\$1 \$2" = "res show" ] || exit 1
cat "$st/\$3"
SH
	cat >"$bin/ibv_rc_pingpong" <<SH
#!/bin/bash
# ibv_rc_pingpong's server (rdma-core libibverbs/examples/rc_pingpong.c): it creates its QP, then
# waits for a client; here, its QP is in what rdma res show lists until it is stopped.
dev=mlx5_0 port=1
while [ \$# -gt 0 ]; do case \$1 in -d) dev=\$2; shift 2 ;; -i) port=\$2; shift 2 ;; *) shift ;; esac; done
line="link \$dev/\$port lqpn 99 type RC state INIT sq-psn 0 pid \$\$ comm ibv_rc_pingpong"
echo "\$line" >>"$st/qp"
trap 'grep -vxF "\$line" "$st/qp" >"$st/qp.new"; mv "$st/qp.new" "$st/qp"; exit 0' TERM
while :; do sleep 0.1; done
SH
	cat >"$bin/ibv_devinfo" <<'SH'
#!/bin/bash
# ibv_devinfo -d DEV -i PORT (rdma-core libibverbs/examples/devinfo.c print_hca_cap), from the sysfs fixture.
while [ $# -gt 0 ]; do case $1 in -d) d=$2; shift 2 ;; -i) p=$2; shift 2 ;; *) shift ;; esac; done
s=$HWCHECK_SYSFS/class/infiniband/$d/ports/$p
st=$(cut -d' ' -f2 <"$s/state")
printf 'hca_id:\t%s\n\ttransport:\t\t\tInfiniBand (0)\n\tphys_port_cnt:\t\t\t1\n\t\tport:\t%s\n' "$d" "$p"
printf '\t\t\tstate:\t\t\tPORT_%s (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t4096 (5)\n' "$st"
printf '\t\t\tsm_lid:\t\t\t%d\n\t\t\tport_lid:\t\t%d\n\t\t\tport_lmc:\t\t0x00\n' "$(($(cat "$s/sm_lid")))" "$(($(cat "$s/lid")))"
printf '\t\t\tlink_layer:\t\t%s\n\n' "$(cat "$s/link_layer")"
SH
	cat >"$bin/ss" <<SH
#!/bin/bash
# ss -Hltn 'sport = :PORT' (iproute2 misc/ss.c): one line per listening socket, no header.
p=\${!#}; p=\${p##*:}
[ -e "$st/listen-\$p" ] && echo "LISTEN 0      128          0.0.0.0:\$p       0.0.0.0:*"
exit 0
SH
	cat >"$bin/ssh" <<SH
#!/bin/bash
# ssh root@PEER CMD: the peer is this host; every command is logged.
shift \$((\$# - 1))
echo "\$1" >>"$st/ssh.log"
exec bash -c "\$1"
SH
	# perftest: a server (no host argument) listens until stopped; a client prints its report line.
	# The columns are perftest's (src/perftest_parameters.h: REPORT_FMT_LAT, REPORT_FMT ... with
	# --report_gbits): #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9% for latency,
	# #bytes #iterations BW peak BW average MsgRate for bandwidth.
	for t in ib_send_lat ib_read_lat ib_atomic_lat ib_write_bw; do
		cat >"$bin/$t" <<SH
#!/bin/bash
tool=$t port=18515 gid= size= host=
while [ \$# -gt 0 ]; do
	case \$1 in
	-p) port=\$2; shift 2 ;; -x) gid=\$2; shift 2 ;; -s) size=\$2; shift 2 ;;
	-d|-i|-n) shift 2 ;; --report_gbits) shift ;; *) host=\$1; shift ;;
	esac
done
if [ -z "\$host" ]; then
	touch "$st/listen-\$port"
	trap 'rm -f "$st/listen-\$port"; exit 0' TERM
	while :; do sleep 0.1; done
fi
[ -e "$st/listen-\$port" ] || { echo " Couldn't connect to \$host:\$port"; exit 1; }
# On RoCE without ibscan's GID index perftest measures another path: a figure far off.
off=0
[ -z "\${HWCHECK_WANT_GID:-}" ] || [ "\$gid" = "\$HWCHECK_WANT_GID" ] || off=1
# HWCHECK_LAT_SPREAD: a host where ib_send_lat itself varies: 1.80 us on its first run, then 1.10.
typ=1.10
if [ \$tool = ib_send_lat ] && [ -n "\${HWCHECK_LAT_SPREAD:-}" ] && [ ! -e "$st/lat-ran" ]; then touch "$st/lat-ran"; typ=1.80; fi
case \$tool in
ib_send_lat) echo ' #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] '
	echo " \$size      10000          1.02           3.45         \$([ \$off = 1 ] && echo 4.10 || echo \$typ)          1.12         0.05          1.40           2.80" ;;
ib_read_lat) echo ' #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] '
	echo " \$size      10000          1.90           4.10         \$([ \$off = 1 ] && echo 5.00 || echo 2.00)          2.02         0.06          2.40           3.10" ;;
ib_atomic_lat) echo ' #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] '
	echo " \$size      10000          2.00           4.30         \$([ \$off = 1 ] && echo 5.20 || echo 2.20)          2.22         0.06          2.60           3.30" ;;
ib_write_bw) echo ' #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]'
	# HWCHECK_BW_SPREAD: a link where perftest itself varies: 88.00 on its first run, then 97.45.
	avg=97.45
	if [ -n "\${HWCHECK_BW_SPREAD:-}" ] && [ ! -e "$st/bw-ran" ]; then touch "$st/bw-ran"; avg=88.00; fi
	echo " \$size      5000             97.50              \$([ \$off = 1 ] && echo 60.00 || echo \$avg)                0.185870" ;;
esac
SH
	done
	chmod +x "$bin"/*
}

# make_ibscan PATH REAL FIXTURES STATE CAPTURES: an ibscan whose fabric answers are fixtures/hwcheck's
# (what the real ibscan said on the simulator, beside the tools' outputs); `local` is the real one.
# HWCHECK_WRONG=CHECK makes it wrong in what that check compares, and only there.
make_ibscan() {
	local path=$1 real=$2 fx=$3 st=$4 caps=$5
	cat >"$path" <<SH
#!/bin/bash
real=$real fx=$fx st=$st caps=$caps
w=\${HWCHECK_WRONG:-}
# SIGINT as ibscan takes it (exit 130), set before anything else: a signal that came while the script
# was still reading its arguments would otherwise be taken by bash for its child's and lost (a loaded
# machine, a 0.5 s wait). The wrong one for ping goes on (the walk's is below: it is signalled later).
if [ "\$w" = sigint-ping ]; then trap '' INT; else trap 'exit 130' INT; fi
args=("\$@") out= tcp=18515
for ((i = 0; i < \${#args[@]}; i++)); do
	case \${args[i]} in -o) out=\${args[i + 1]} ;; --tcp-port) tcp=\${args[i + 1]} ;; esac
done
has() { printf '%s\n' "\${args[@]}" | grep -qx -- "\$1"; }
give() { # give FIXTURE [JQ]: the fixture as ibscan's output, through JQ when this check is the wrong one
	if [ -n "\${2:-}" ]; then jq "\$2" "\$fx/\$1" >"\$out"; else cp "\$fx/\$1" "\$out"; fi
}
case \$1 in
--version | capture) exec "\$real" "\$@" ;;
local)
	"\$real" "\$@" || exit
	[ "\$w" = local-port ] && sed -i 's/"state": "ACTIVE"/"state": "INIT"/' "\$out"
	exit 0 ;;
topology)
	if has --gids; then give topology-gids.json "\$([ "\$w" = gids ] && echo '.nodes[].ports[].gids |= map(sub("0020:0000\$"; "0020:0099"))')"
	elif has --json; then
		[ "\$w" = vl15 ] && echo 3 >"\$st/vl15"
		[ "\$w" = walk-time ] && sleep 4
		give topology.json "\$(case \$w in topology) echo '.nodes[0].guid = "0x00000000000000ff"' ;; port-states) echo '(.nodes[] | select(.type == "ca") | .ports[0].state) = "Initialize"' ;; esac)"
		cp "\$caps/net.2sw2path4hca.cap" "\${args[\$(printf '%s\n' "\${args[@]}" | grep -nx -- --record | cut -d: -f1)]}"
	else
		# The SIGINT walk: a capture written so far, then the walk goes on until the signal ends it.
		rec=\${args[\$(printf '%s\n' "\${args[@]}" | grep -nx -- --record | cut -d: -f1)]}
		if [ "\$w" = sigint-walk ]; then trap 'exit 0' INT; printf 'x garbage\n' >"\$rec"; sleep 2; exit 0; fi
		cp "\$caps/net.2sw2path4hca.cap" "\$rec"
		exec sleep 30
	fi ;;
counters)
	if has --interval; then sleep "\$(printf '%s\n' "\${args[@]}" | grep -A1 -x -- --interval | tail -1)"; give counters-interval.json "\$([ "\$w" = counters-rate ] && echo '.ports_counters[].deltas.xmit_bytes_per_s |= (if . then . * 10 + 100000 else . end)')"
	else
		k=\$(cat "\$st/ctr" 2>/dev/null || echo 0); echo \$((k + 1)) >"\$st/ctr"
		if [ "\$k" = 0 ]; then give counters.json "\$([ "\$w" = counters ] && echo '.ports_counters[].counters.SymbolErrorCounter += 1')"
		else give counters-x.json "\$([ "\$w" = counters-ext ] && echo '.ports_counters[].xmit_bytes += 1000000')"; fi
	fi ;;
path) give path.json "\$([ "\$w" = path ] && echo '.slid = 2')" ;;
routes) give routes.json "\$([ "\$w" = routes ] && echo '.switches[0].routes[1].port = 7')" ;;
sm)
	if [ "\$(id -u)" != 0 ]; then
		[ "\$w" = umad-permission ] && exit 0
		LD_PRELOAD=\$HWCHECK_EACCES exec "\$real" sm
	fi
	give sm.json "\$([ "\$w" = sm ] && echo '.sm.sms[0].priority = 5')" ;;
links) give links.json "\$([ "\$w" = degraded ] && echo '.links[0].degraded = true')" ;;
ping)
	if has --listen; then
		touch "\$st/listen-\$tcp"
		trap 'rm -f "\$st/listen-\$tcp"; exit 0' TERM
		while :; do sleep 0.1; done
	fi
	[ -e "\$st/listen-\$tcp" ] || { echo "ibscan: error: cannot connect" >&2; exit 3; }
	[ "\$w" = teardown ] && echo 'link mlx5_0/1 lqpn 77 type RC state RTS sq-psn 0 pid 4242 comm ibscan' >>"\$st/qp"
	# As ibscan ping: --iters 1 to 10,000,000.
	it=\$(printf '%s\n' "\${args[@]}" | grep -A1 -x -- --iters | tail -1)
	[ "\${it:-1}" -le 10000000 ] || { echo "ibscan: error: --iters wants a number from 1 to 10000000, not '\$it'" >&2; exit 2; }
	if has 10000000; then
		[ "\$w" = sigint-ping ] && { trap '' INT; sleep 2; exit 0; }
		exec sleep 30
	fi
	op=\$(printf '%s\n' "\${args[@]}" | grep -A1 -x -- --op | tail -1)
	case \$op in send) m=1.25 ;; read) m=2.10 ;; atomic) m=2.30 ;; *) m=null ;; esac
	[ "\$w" = ping-\$op ] && m=9.99
	[ "\$w" = ping-latency ] && [ "\$op" = send ] && m=9.99
	g=97.00; [ "\$w" = ping-bandwidth ] && g=50.00
	echo "{\"schema\": \"ibscan.ping/1\", \"local\": {\"gid_index\": 3}, \"latency_us\": {\"median\": \$m}, \"gbit_per_s\": \$g}" >"\$out" ;;
*) echo "stand-in ibscan: \$1 is not expected from hwcheck" >&2; exit 9 ;;
esac
SH
	chmod +x "$path"
}
