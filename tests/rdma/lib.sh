# shellcheck shell=bash disable=SC2016,SC2153 # guest scripts expand in the guests; RDMA_RUN is the runner's
# The real-RDMA tier's library: two QEMU guests (tests/rdma/image.sh builds
# what they boot), joined by one virtio-net link (a UDP socket pair on
# 127.0.0.1, nothing else reachable), each with soft-RoCE (rxe0 on eth0),
# and a way to run commands in them with a deadline each.
#   vm_boot           start guests A (10.29.0.1, fd29::1) and B (10.29.0.2, fd29::2)
#                     and wait until both are ready (RDMA_RUN is their directory)
#   vm NAME SECS SCRIPT  run SCRIPT (bash) in guest NAME, print its output,
#                     return its exit status; 124 when SECS pass, 125 when the
#                     guest does not answer within SECS + 10 s
#   vm_halt           stop both guests (the runner's trap)
# Guests' consoles are RDMA_RUN/{A,B}.console; the runner keeps them for a
# failed run.
RDMA_OUT=${RDMA_OUT:-$ROOT/build/rdma}

# vm NAME SECS SCRIPT
vm() {
	local name=$1 secs=$2 script=$3 id line rc=125 out='' inb=0 deadline w r
	local p=$RDMA_RUN/$name.ctl
	id=$$.$RANDOM.$SECONDS
	deadline=$((SECONDS + secs + 10))
	exec {w}>"$p.in" {r}<"$p.out"
	printf '%s %s %s\n' "$id" "$secs" "$(printf '%s\n' "$script" | base64 -w0)" >&"$w"
	exec {w}>&-
	while [ $SECONDS -lt $deadline ]; do
		IFS= read -r -t $((deadline - SECONDS)) line <&"$r" || continue
		case $line in
		"BEGIN $id") inb=1 ;;
		"END $id "*) rc=${line##* }; break ;;
		*) [ $inb = 1 ] && out+=$line ;;
		esac
	done
	exec {r}<&-
	[ -n "$out" ] && printf '%s' "$out" | base64 -d
	[ "$rc" = 125 ] && echo "vm $name: no answer within $((secs + 10)) s" >&2
	return "$rc"
}

# vm_wait_ready NAME SECS: the guest's agent says READY on its control port.
vm_wait_ready() {
	local name=$1 deadline=$((SECONDS + $2)) line r
	exec {r}<"$RDMA_RUN/$name.ctl.out"
	while [ $SECONDS -lt $deadline ]; do
		IFS= read -r -t $((deadline - SECONDS)) line <&"$r" || continue
		[ "$line" = "READY $name" ] && { exec {r}<&-; return 0; }
	done
	exec {r}<&-
	echo "vm $name: not ready within $2 s (console: $RDMA_RUN/$name.console)" >&2
	tail -20 "$RDMA_RUN/$name.console" >&2
	return 1
}

# vm_start NAME N ACCEL LOCALPORT PEERPORT
vm_start() {
	local name=$1 n=$2 accel=$3 lp=$4 pp=$5 cpu=qemu64
	[ "$accel" = kvm ] && cpu=host
	rm -f "$RDMA_RUN/$name.ctl.in" "$RDMA_RUN/$name.ctl.out"
	mkfifo "$RDMA_RUN/$name.ctl.in" "$RDMA_RUN/$name.ctl.out"
	qemu-system-x86_64 -name "vm$name" -machine pc,accel="$accel" -cpu "$cpu" -smp 1 -m 2048 \
		-nodefaults -display none -no-reboot -monitor none \
		-kernel "$RDMA_OUT/vmlinuz" -initrd "$RDMA_RUN/initrd" \
		-append "console=ttyS0 rdinit=/init ibscan.vm=$name ibscan.n=$n panic=-1 loglevel=4 mitigations=off" \
		-serial "file:$RDMA_RUN/$name.console" \
		-device virtio-serial-pci -chardev "pipe,id=ctl,path=$RDMA_RUN/$name.ctl" \
		-device virtserialport,chardev=ctl,name=ctl \
		-netdev "socket,id=n0,udp=127.0.0.1:$pp,localaddr=127.0.0.1:$lp" \
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:29:00:0$n" \
		-pidfile "$RDMA_RUN/$name.pid" >"$RDMA_RUN/$name.qemu.log" 2>&1 &
	echo $! >"$RDMA_RUN/$name.qpid"
}

vm_halt() {
	local f pid
	for f in "$RDMA_RUN"/*.qpid; do
		[ -f "$f" ] || continue
		pid=$(cat "$f")
		kill "$pid" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$pid" 2>/dev/null
		rm -f "$f"
	done
}

# The accelerator: KVM when it boots this kernel (here /dev/kvm runs only
# PVM-enabled guests), else TCG. RDMA_ACCEL=kvm|tcg forces one. The answer
# is remembered per image (build/rdma/accel).
vm_accel() {
	local key
	[ -n "${RDMA_ACCEL:-}" ] && { echo "$RDMA_ACCEL"; return; }
	key=$(cat "$RDMA_OUT/key")
	if [ -f "$RDMA_OUT/accel" ] && [ "$(cut -d' ' -f1 "$RDMA_OUT/accel")" = "$key" ]; then
		cut -d' ' -f2 "$RDMA_OUT/accel"
		return
	fi
	local a=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		vm_start K 9 kvm 1 2
		if vm_wait_ready K 30 2>/dev/null; then a=kvm; fi
		local pid
		pid=$(cat "$RDMA_RUN/K.qpid")
		kill "$pid" 2>/dev/null; sleep 0.5; kill -9 "$pid" 2>/dev/null
		rm -f "$RDMA_RUN/K.qpid"
	fi
	echo "$key $a" >"$RDMA_OUT/accel"
	echo "$a"
}

# vm_boot: both guests, with the fresh ./ibscan and the guest helpers
# (tools/hwcheck/hwcheck.sh, its lying ibscans tests/hwcheck-liars.sh) added to the
# cached image as a second cpio archive.
vm_boot() {
	local ov=$RDMA_RUN/overlay accel pa pb t0=$SECONDS
	rm -rf "$ov"
	mkdir -p "$ov/usr/local/bin" "$ov/root/tools/hwcheck" "$ov/root/tests"
	cp "$IBSCAN" "$ov/usr/local/bin/ibscan"
	cp "$ROOT/tools/hwcheck/hwcheck.sh" "$ROOT/tools/hwcheck/hwcheck.py" "$ov/root/tools/hwcheck/"
	cp "$ROOT/tests/hwcheck-liars.sh" "$ov/root/tests/"
	(cd "$ov" && find . -print0 | cpio --null -o -H newc --quiet) >"$RDMA_RUN/overlay.cpio"
	cat "$RDMA_OUT/rootfs.cpio" "$RDMA_RUN/overlay.cpio" >"$RDMA_RUN/initrd"
	accel=$(vm_accel)
	pa=$((20000 + RANDOM % 20000)) pb=$((pa + 1))
	vm_start A 1 "$accel" "$pa" "$pb"
	vm_start B 2 "$accel" "$pb" "$pa"
	vm_wait_ready A 240 && vm_wait_ready B 60 || return 1
	echo "rdma: guests up in $((SECONDS - t0)) s ($accel)"
}

# vm_snap NAME DIR: what guest NAME's tools say now, for cmp_local.py
# (the GID table as show_gids reads it: sysfs gids, gid_attrs/types, ndevs).
vm_snap() {
	mkdir -p "$2"
	vm "$1" 60 '
		s=/tmp/snap; rm -rf $s; mkdir -p $s
		ibscan local --json >$s/local.json 2>$s/local.err
		ibscan local >$s/local.txt 2>>$s/local.err
		ibv_devinfo -v >$s/devinfo.txt 2>&1
		rdma link show -j >$s/link.json
		ip -j addr show >$s/addr.json
		for p in /sys/class/infiniband/*/ports/*; do
			dv=${p#/sys/class/infiniband/}; dv=${dv%%/*}
			(cd $p/gids && grep -H -v "^0000:0000:0000:0000:0000:0000:0000:0000$" -- *) |
			while IFS=: read -r i v; do
				echo "$dv ${p##*/} $i $v $(cat $p/gid_attrs/types/$i) $(cat $p/gid_attrs/ndevs/$i)"
			done
		done >$s/gids.txt
		cat /sys/class/infiniband/*/fw_ver >$s/fw_ver 2>/dev/null
		tar c -C $s . | base64 -w0' | base64 -d | tar x -C "$2"
}

# vm_bg NAME LOG CMD...: start CMD in guest NAME in the background: its
# output in LOG (in the guest), its pid in LOG.pid, its exit status in
# LOG.rc when it ends. setsid -f, not &, and job control on: a script's
# background job ignores SIGINT (bash), and so would CMD, which keeps an
# ignored SIGINT ignored, as nohup wants.
# With WAITPORT=N, wait up to 10 s for it to listen on TCP port N.
vm_bg() {
	local name=$1 log=$2
	shift 2
	vm "$name" 20 "rm -f $log.rc $log.pid
		setsid -f bash -c 'set -m; \"\$@\" >$log 2>&1 </dev/null & echo \$! >$log.pid; wait \$!; echo \$? >$log.rc' _ $* </dev/null >/dev/null 2>&1
		for _ in \$(seq 50); do [ -s $log.pid ] && break; sleep 0.1; done
		[ -z '${WAITPORT:-}' ] && exit 0
		for _ in \$(seq 100); do ss -Hltn 'sport = :${WAITPORT:-0}' | grep -q . && exit 0; sleep 0.1; done
		echo 'nothing listens on port ${WAITPORT:-}'; cat $log; exit 1"
}

# vm_rc NAME LOG SECS: wait up to SECS for the background command of LOG
# to end; print its exit status (none: it is still running, return 1).
vm_rc() {
	vm "$1" "$(($3 + 5))" "for _ in \$(seq $(($3 * 10))); do [ -s $2.rc ] && break; sleep 0.1; done
		[ -s $2.rc ] && cat $2.rc"
}
