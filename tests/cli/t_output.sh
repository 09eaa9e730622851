#!/bin/bash
# -o behaves as `sort -o` and `curl -o` do: devices, FIFOs and descriptor
# links (/dev/stdout, /proc/self/fd/1) are written in place; a symlink is
# followed and its target replaced; a regular file is replaced atomically,
# keeping its mode and owner; a hard link stays one; long names, full and
# read-only file systems, outputs that are also inputs, and a reader that
# goes away (| head). Every case runs as root and as an unprivileged user,
# inside a private mount namespace with a private /dev and tmpfs scratch
# directories, so a broken ibscan cannot touch a real file or device.
. "$(dirname "$0")/lib.sh"
caps=$ROOT/fixtures/captures
cap=$caps/net.2sw2path4hca.cap
big=$caps/fattree3.cap # its text view (270 KB) overflows a pipe and the tiny tmpfs
NOBODY=65534

if [ "$(id -u)" != 0 ]; then
	# Mount namespaces, mknod and other users' files need root (CI runs as
	# root); without it the cases that need none run as this user.
	echo "t_output: not root: running the unprivileged cases only, outside a namespace" >&2
	mode=self
elif [ -z "${IBS_T_OUTPUT_NS:-}" ]; then
	# Again, inside a private mount namespace.
	chmod 711 "$TMP"
	rc=0
	# Propagation unchanged: util-linux's "private" needs / to be a mount
	# point, which it is not in a chroot and many sandboxes; made private below.
	IBS_T_OUTPUT_NS=$TMP unshare -m --propagation unchanged bash "$0" || rc=$?
	exit $rc
else
	mode=ns
	rm -rf "$TMP"
	TMP=$IBS_T_OUTPUT_NS
	trap - EXIT
	FS=$TMP/fs
	if ! mount --make-rprivate / 2>/dev/null; then
		# / is not a mount point (a chroot): make private every mount this
		# process sees, and mount only on those (over /dev, and the scratch
		# file systems inside that new /dev): a mount on the file system
		# that holds / (not visible here, maybe shared) could reach the host.
		while read -r _ _ _ _ mp _; do
			mount --make-private "$(printf '%b' "$mp")" 2>/dev/null || true
		done </proc/self/mountinfo
		mountpoint -q /dev || fail "neither / nor /dev is a mount point: no private place to mount on (mount /dev, as a chroot needs)"
		FS=/dev/.t_output
	fi
	# A private /dev: null, full and stdout below are nodes made here, never the host's.
	mount -t tmpfs -o mode=755 tmpfs /dev
	mknod -m 666 /dev/null c 1 3
	mknod -m 666 /dev/zero c 1 5
	mknod -m 666 /dev/full c 1 7
	mknod -m 666 /dev/urandom c 1 9
	ln -s /proc/self/fd /dev/fd
	ln -s /proc/self/fd/0 /dev/stdin
	ln -s /proc/self/fd/1 /dev/stdout
	ln -s /proc/self/fd/2 /dev/stderr
	mkdir "$FS"
	mount -t tmpfs -o mode=755 tmpfs "$FS"
	mkdir "$FS/tiny"
	mount -t tmpfs -o size=64k,mode=1777 tmpfs "$FS/tiny"
	# The unprivileged user gets copies it can read of ibscan, the inputs and
	# the leak suppressions: the clone may be where it cannot (/root is 0700).
	ro=$TMP/ro
	mkdir -m 755 "$ro" "$ro/caps"
	cp "$cap" "$big" "$caps/counters.cap" "$ro/caps/"
	cp "$ROOT/fixtures/baselines/net.2sw2path4hca.json" "$ro/base.json"
	cp "$ROOT/tests/cli/lsan.supp" "$ro/"
	cp "$IBSCAN" "$ro/ibscan"
	cp "${IBSCAN_PRELOAD_BIN:-$ROOT/ibscan}" "$ro/ibscan-preload"
	chmod -R a+rX "$ro"
	caps=$ro/caps cap=$ro/caps/${cap##*/} big=$ro/caps/${big##*/} IBSCAN=$ro/ibscan IBSCAN_PRELOAD_BIN=$ro/ibscan-preload
	BASE=$ro/base.json
	export LSAN_OPTIONS=suppressions=$ro/lsan.supp:print_suppressions=0
fi
BASE=${BASE:-$ROOT/fixtures/baselines/net.2sw2path4hca.json}

# The tools never write through -o /dev/...: an older ibscan, as root, replaced the device with a file.
! grep -nE '^[^#]*-o +"?/dev/' "$ROOT"/tools/*/*.sh || fail "a tool writes -o /dev/...: redirect stdout instead"

# An open() wrapper that drops O_TMPFILE's mode, as the simulator's shim does.
cc -shared -fPIC -o "$TMP/nomode.so" "$ROOT/tests/cli/preload/nomode.c" || fail "cannot build the preload"
chmod 755 "$TMP/nomode.so"
"$IBSCAN" topology --replay "$cap" >"$TMP/ref" || fail "reference run"
"$IBSCAN" topology --replay "$big" >"$TMP/ref.big" || fail "reference run (big)"

# ib WANT ARGS...: ibscan as the current test user; stdout $TMP/out, stderr $TMP/err.
ib() {
	local want=$1 rc=0
	shift
	"${AS[@]}" "$IBSCAN" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "--- stderr:" >&2; head -20 "$TMP/err" >&2
		fail "[$who] ibscan $* exited $rc, want $want"
	fi
}
# as CMD...: a shell command as the test user (to make files the user owns).
as() { "${AS[@]}" "$@"; }
same() { cmp -s "$1" "$2" || fail "[$who] $1 differs from $2"; }
# no_temp DIR: nothing but the names given is left in DIR.
no_temp() {
	local d=$1 left
	shift
	left=$(cd "$d" && ls -A | grep -vxF -f <(printf '%s\n' "$@") || true)
	[ -z "$left" ] || fail "[$who] left in $d: $left"
}
err_is() { [ "$(cat "$TMP/err")" = "$1" ] || fail "[$who] stderr is '$(cat "$TMP/err")', want '$1'"; }
no_tmp_named() { ! grep -q '\.ibscan\|tmp\.' "$TMP/err" || fail "[$who] a message names a temporary file: $(cat "$TMP/err")"; }

cases() {
	local d=$1 long i st
	echo "== as $who in $d"

	# A character device is written, not replaced.
	if [ "$mode" = ns ]; then
		ib 0 topology --replay "$cap" -o /dev/null
		[ -c /dev/null ] || fail "[$who] /dev/null is no longer a character device"
		[ ! -s /dev/null ] || fail "[$who] /dev/null holds data"
	fi
	ib 3 topology --replay "$cap" -o /dev/full
	err_is "ibscan: error: cannot write '/dev/full': No space left on device"
	[ -c /dev/full ] || fail "[$who] /dev/full is no longer a character device"
	# stdout through /dev/stdout and /proc/self/fd/1: a pipe, and a file the shell opened.
	for o in /dev/stdout /proc/self/fd/1; do
		"${AS[@]}" "$IBSCAN" topology --replay "$cap" -o "$o" 2>"$TMP/err" | cat >"$TMP/got" ||
			fail "[$who] -o $o into a pipe: $(cat "$TMP/err")"
		same "$TMP/got" "$TMP/ref"
		echo "kept" >"$d/log"
		chmod 666 "$d/log"
		"${AS[@]}" "$IBSCAN" topology --replay "$cap" -o "$o" 2>"$TMP/err" >>"$d/log" ||
			fail "[$who] -o $o >> file: $(cat "$TMP/err")"
		{ echo kept; cat "$TMP/ref"; } | cmp -s - "$d/log" || fail "[$who] -o $o >> file: not appended"
		rm -f "$d/log"
	done
	[ -L /dev/stdout ] || fail "[$who] /dev/stdout is no longer a symlink"
	# A FIFO: written to its reader, still a FIFO.
	as mkfifo "$d/fifo"
	cat "$d/fifo" >"$TMP/got" &
	ib 0 topology --replay "$cap" -o "$d/fifo"
	wait $!
	same "$TMP/got" "$TMP/ref"
	[ -p "$d/fifo" ] || fail "[$who] the FIFO was replaced"
	rm -f "$d/fifo"
	# A socket cannot be opened for writing: said, and left alone.
	if [ "$mode" = ns ]; then
		python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$d/sock"
		chmod 666 "$d/sock"
		ib 3 topology --replay "$cap" -o "$d/sock"
		err_is "ibscan: error: cannot open '$d/sock': No such device or address"
		[ -S "$d/sock" ] || fail "[$who] the socket was replaced"
		rm -f "$d/sock"
	fi
	# A directory is an error that names it.
	as mkdir "$d/dir"
	ib 3 topology --replay "$cap" -o "$d/dir"
	err_is "ibscan: error: cannot open '$d/dir': Is a directory"
	rmdir "$d/dir"

	# A new file: the umask's mode, no temporary file left.
	(umask 027 && ib 0 topology --replay "$cap" -o "$d/new")
	same "$d/new" "$TMP/ref"
	[ "$(stat -c %a "$d/new")" = 640 ] || fail "[$who] a new file is $(stat -c %a "$d/new"), want 640 (umask 027)"
	no_temp "$d" new
	# The same when an open() wrapper drops O_TMPFILE's mode (libumad2sim's: files came out 0000).
	(umask 027 && "${AS[@]}" env LD_PRELOAD="$TMP/nomode.so" "${IBSCAN_PRELOAD_BIN:-$ROOT/ibscan}" \
		topology --replay "$cap" -o "$d/new0") || fail "[$who] -o under a mode-dropping open()"
	[ "$(stat -c %a "$d/new0")" = 640 ] || fail "[$who] under a mode-dropping open() a new file is $(stat -c %a "$d/new0"), want 640"
	rm -f "$d/new0"
	# An existing file keeps its mode.
	as chmod 604 "$d/new"
	ib 0 topology --replay "$big" -o "$d/new"
	same "$d/new" "$TMP/ref.big"
	[ "$(stat -c %a "$d/new")" = 604 ] || fail "[$who] the mode became $(stat -c %a "$d/new"), want 604"
	rm -f "$d/new"

	# Symlinks: followed (relative, absolute, a chain, dangling); the target is replaced beside itself.
	as mkdir "$d/real"
	echo old | as tee "$d/real/target" >/dev/null
	as chmod 640 "$d/real/target"
	as ln -s real/target "$d/rel"
	as ln -s "$d/rel" "$d/chain"
	ib 0 topology --replay "$cap" -o "$d/chain"
	[ -L "$d/rel" ] && [ -L "$d/chain" ] || fail "[$who] a symlink was replaced"
	same "$d/real/target" "$TMP/ref"
	[ "$(stat -c %a "$d/real/target")" = 640 ] || fail "[$who] the symlink's target lost its mode"
	no_temp "$d/real" target
	as ln -s real/later "$d/dangling"
	ib 0 topology --replay "$cap" -o "$d/dangling"
	[ -L "$d/dangling" ] || fail "[$who] a dangling symlink was replaced"
	same "$d/real/later" "$TMP/ref"
	rm -rf "$d/real" "$d/rel" "$d/chain" "$d/dangling"

	# A hard link stays one: both names see the new content.
	echo old | as tee "$d/a" >/dev/null
	as ln "$d/a" "$d/b"
	i=$(stat -c %i "$d/a")
	ib 0 topology --replay "$cap" -o "$d/a"
	same "$d/b" "$TMP/ref"
	[ "$(stat -c %i:%h "$d/a")" = "$i:2" ] || fail "[$who] the hard link was broken"
	ib 0 topology --replay "$big" -o "$d/b"
	same "$d/a" "$TMP/ref.big"
	ib 0 topology --replay "$cap" -o "$d/a" # shorter than before: the tail is cut
	same "$d/b" "$TMP/ref"
	no_temp "$d" a b
	rm -f "$d/a" "$d/b"

	# A 250-character name.
	long=$(printf 'n%.0s' $(seq 250))
	ib 0 topology --replay "$cap" -o "$d/$long"
	same "$d/$long" "$TMP/ref"
	ib 0 topology --replay "$cap" -o "$d/$long"
	no_temp "$d" "$long"
	rm -f "$d/${long:?}"

	# A full file system: the reason, the user's path, the old file kept, nothing left.
	if [ "$mode" = ns ]; then
		t=$FS/tiny
		echo old | as tee "$t/out" >/dev/null
		ib 3 topology --replay "$big" -o "$t/out"
		err_is "ibscan: error: cannot write '$t/out': No space left on device"
		[ "$(cat "$t/out")" = old ] || fail "[$who] a full disk damaged the old file"
		ib 3 topology --replay "$big" -o "$t/new"
		err_is "ibscan: error: cannot write '$t/new': No space left on device"
		[ ! -e "$t/new" ] || fail "[$who] a failed write left a file"
		as ln "$t/out" "$t/link"
		ib 3 topology --replay "$big" -o "$t/out"
		[ "$(cat "$t/link")" = old ] || fail "[$who] a full disk damaged a hard-linked file"
		no_temp "$t" out link
		rm -f "$t/out" "$t/link"
	fi

	# A read-only file system and an unwritable directory: the old file kept, the path and reason said.
	if [ "$mode" = ns ]; then
		as mkdir "$d/ro"
		echo keep | as tee "$d/ro/h.prom" >/dev/null
		mount --bind "$d/ro" "$d/ro"
		mount -o remount,bind,ro "$d/ro"
		ib 3 health --format prom --replay "$caps/counters.cap" -o "$d/ro/h.prom"
		err_is "ibscan: error: cannot write '$d/ro/h.prom': Read-only file system"
		[ "$(cat "$d/ro/h.prom")" = keep ] || fail "[$who] a failed -o damaged the old file"
		umount "$d/ro"
		rm -rf "$d/ro"
	fi
	if [ "$who" != root ]; then
		as mkdir "$d/ro"
		echo keep | as tee "$d/ro/h.prom" >/dev/null
		as chmod 555 "$d/ro"
		ib 3 health --format prom --replay "$caps/counters.cap" -o "$d/ro/h.prom"
		[ "$(head -1 "$TMP/err")" = "ibscan: error: cannot write '$d/ro/h.prom': Permission denied" ] ||
			fail "[$who] unwritable directory: $(cat "$TMP/err")"
		err_has "ibscan: hint: -o replaces a file through a new one in the same directory"
		no_tmp_named
		[ "$(cat "$d/ro/h.prom")" = keep ] || fail "[$who] a failed -o damaged the old file"
		as chmod 755 "$d/ro"
		rm -rf "$d/ro"
	fi

	# Outputs that are inputs are refused before any work, by file identity, not by name.
	as cp "$cap" "$d/x.cap"
	as ln -s x.cap "$d/x.link"
	as cp "$BASE" "$d/base.json"
	echo "SymbolErrorCounter=5" | as tee "$d/thr" >/dev/null
	echo "0x0002c90300000001 node1" | as tee "$d/map" >/dev/null
	sum=$(cat "$d"/x.cap "$d"/base.json "$d"/thr "$d"/map | md5sum)
	refuse() { # WANT WHAT IN ARGS...
		local want=$1 what=$2 in=$3
		shift 3
		ib "$want" "$@"
		grep -qF "ibscan: error: refusing to write '" "$TMP/err" && grep -qF "it is the input '$in' ($what)" "$TMP/err" ||
			fail "[$who] ibscan $*: stderr is '$(cat "$TMP/err")', want a refusal naming $in ($what)"
	}
	refuse 2 "the capture" "$d/x.cap" capture index "$d/x.cap" -o "$d/x.cap"
	refuse 2 "the capture" "$d/x.cap" capture index "$d/x.cap" -o "$d/x.link"
	as ln -s x.cap "$d/x.cap.idx"
	refuse 2 "the capture" "$d/x.cap" capture index "$d/x.cap"
	rm -f "$d/x.cap.idx"
	refuse 2 "the capture" "$d/x.cap" capture export "$d/x.cap" -o "$d/x.link"
	refuse 2 "the capture" "$d/x.cap" capture info "$d/x.cap" -o "$d/x.cap"
	refuse 2 "--replay" "$d/x.cap" topology --replay "$d/x.cap" -o "$d/x.link"
	refuse 2 "--replay" "$d/x.link" nodes --replay "$d/x.link" --record "$d/x.cap"
	refuse 2 "--node-name-map" "$d/map" topology --replay "$cap" --node-name-map "$d/map" -o "$d/map"
	refuse 2 "--load-cache" "$d/map" links --load-cache "$d/map" -o "$d/map"
	refuse 2 "A" "$d/base.json" diff "$d/base.json" live --replay "$cap" -o "$d/base.json"
	refuse 2 "B" "$d/base.json" diff "$cap" "$d/base.json" -o "$d/base.json"
	refuse 3 "--baseline" "$d/base.json" health --replay "$cap" --baseline "$d/base.json" -o "$d/base.json"
	out_has "IBSCAN UNKNOWN"
	refuse 3 "--thresholds" "$d/thr" health --replay "$cap" --thresholds "$d/thr" -o "$d/thr"
	refuse 2 "--node-name-map" "$d/map" route 1 2 --replay "$cap" --node-name-map "$d/map" -o "$d/map"
	ib 2 topology --record "$d/x.link" -o "$d/x.cap"
	err_is "ibscan: error: refusing to write '$d/x.cap' (-o): it is also the output '$d/x.link' (--record)"
	[ "$(cat "$d"/x.cap "$d"/base.json "$d"/thr "$d"/map | md5sum)" = "$sum" ] || fail "[$who] an input was changed"
	rm -f "$d/x.cap" "$d/x.link" "$d/base.json" "$d/thr" "$d/map"

	# A reader that goes away: ibscan ends quietly by SIGPIPE, as filters do.
	for o in "" "-o /dev/stdout"; do
		set +o pipefail
		# shellcheck disable=SC2086
		"${AS[@]}" "$IBSCAN" topology --replay "$big" $o 2>"$TMP/err" | head -c 10 >/dev/null
		st=${PIPESTATUS[0]}
		set -o pipefail
		[ "$st" = 141 ] || fail "[$who] | head ($o): exit $st, want 141 (SIGPIPE)"
		[ ! -s "$TMP/err" ] || fail "[$who] | head ($o): stderr: $(cat "$TMP/err")"
	done
}

if [ "$mode" = self ]; then
	who=$(id -un) AS=()
	mkdir "$TMP/d"
	cases "$TMP/d"
	echo "ok: -o as this user (the root and namespace cases need root)"
	t_done
	exit 0
fi

# Root: the cases, then a file owned by another user keeps its owner, group and mode.
who=root AS=()
mkdir "$FS/root"
cases "$FS/root"
d=$FS/root
echo secret >"$d/theirs"
chown "$NOBODY:12345" "$d/theirs"
chmod 600 "$d/theirs"
ib 0 topology --replay "$cap" -o "$d/theirs"
[ "$(stat -c %u:%g:%a "$d/theirs")" = "$NOBODY:12345:600" ] ||
	fail "[root] another user's 0600 file came back $(stat -c %u:%g:%a "$d/theirs")"
same "$d/theirs" "$TMP/ref"

# An unprivileged user: the same cases; a file it may not write is left alone.
who=nobody AS=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups)
mkdir "$FS/nobody"
chown $NOBODY:$NOBODY "$FS/nobody"
cases "$FS/nobody"
d=$FS/nobody
echo secret >"$d/roots"
chmod 600 "$d/roots"
ib 3 topology --replay "$cap" -o "$d/roots"
err_is "ibscan: error: cannot write '$d/roots': Permission denied"
[ "$(stat -c %u:%a "$d/roots")" = "0:600" ] && [ "$(cat "$d/roots")" = secret ] ||
	fail "[nobody] a root-owned 0600 file was replaced"
echo "ok: -o as root and as an unprivileged user, in a private mount namespace"
t_done
