#!/bin/bash
# tools/dev/fresh-check.sh: the README's promise on a fresh machine. As root:
# debootstrap a minimal Debian 12 root (--variant=minbase) from this
# machine's own apt sources (the mirror is read from them, never written
# here), install only git and make, clone this repository into it (its
# committed HEAD), then run exactly the README's `make demo` and `make
# check` inside (chroot, as root, with proc, sys and dev mounted), and fail
# on any difference from what the README promises: each exits 0, the demo
# writes topology.json, topology.svg and report.html, and `make check`
# ends with every tier's summary saying 0 failed.
# Usage: tools/dev/fresh-check.sh [--keep] [--stop-after demo] [DIR]
#   DIR defaults to a new directory under /var/tmp; --keep leaves it.
# Takes ~40 minutes on 2 cores (the debootstrap and apt-get download too).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
keep=0 stop_after=""
while [ $# -gt 0 ]; do
	case $1 in
	--keep) keep=1; shift ;;
	--stop-after) stop_after=$2; shift 2 ;;
	*) break ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "fresh-check: needs root (debootstrap, chroot)" >&2; exit 2; }
dir=${1:-$(mktemp -d /var/tmp/ibscan-fresh.XXXXXX)}
log=$dir.log
say() { echo "fresh-check: $*" | tee -a "$log" >&2; }
die() { say "FAIL: $*"; exit 1; }

# The README's two commands, as it writes them (the block under "Two commands").
readme_cmds=$(sed -n '/^## Two commands/,/^## /p' "$root/README.md" | sed -n 's/^    \(make [a-z]*\) .*/\1/p')
[ "$readme_cmds" = "make demo
make check" ] || die "the README's two commands are not 'make demo' and 'make check': $readme_cmds"

# The mirror of this machine's own Debian sources (deb822 or one-line form).
mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2; exit}')
[ -n "$mirror" ] || mirror=$(grep -hE '^deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
	grep -v security | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }')
[ -n "$mirror" ] || die "no Debian mirror in this machine's apt sources"
command -v debootstrap >/dev/null || { say "installing debootstrap"; apt-get install -y -qq debootstrap >>"$log" 2>&1; }

mounts=()
cleanup() {
	local m i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
	if [ $keep = 0 ]; then rm -rf --one-file-system "$dir"; else say "kept $dir"; fi
}
trap cleanup EXIT
trap "exit 130" INT TERM
t0=$(date +%s)
since() { echo "$(($(date +%s) - t0)) s"; }

say "debootstrap bookworm (minbase) into $dir"
debootstrap --variant=minbase bookworm "$dir" "$mirror" >>"$log" 2>&1 || die "debootstrap failed ($log)"
# The chroot's apt sources are this machine's own (the same mirrors, security included).
rm -f "$dir/etc/apt/sources.list"
cp -a /etc/apt/sources.list /etc/apt/sources.list.d "$dir/etc/apt/" 2>/dev/null || true
cp /etc/resolv.conf "$dir/etc/resolv.conf"
# A proxy this machine's apt uses, the chroot's too.
cp -a /etc/apt/apt.conf.d/. "$dir/etc/apt/apt.conf.d/" 2>/dev/null || true
# And the CAs this machine trusts beyond Debian's (a proxy's, as here: npm's registry is
# reached through one): the ca-certificates package the README's deps install adds
# /usr/local/share/ca-certificates to the root's bundle; npm is told to use that bundle.
# Environment, not the README's steps: a fresh machine behind no such proxy needs neither.
mkdir -p "$dir/usr/local/share/ca-certificates"
cp -a /usr/local/share/ca-certificates/. "$dir/usr/local/share/ca-certificates/" 2>/dev/null || true
echo "cafile=/etc/ssl/certs/ca-certificates.crt" >"$dir/root/.npmrc"
for m in proc sys dev dev/pts; do
	mkdir -p "$dir/$m"
	case $m in
	proc) mount -t proc proc "$dir/proc" ;;
	sys) mount --rbind /sys "$dir/sys"; mount --make-rslave "$dir/sys" ;;
	dev) mount --rbind /dev "$dir/dev"; mount --make-rslave "$dir/dev" ;;
	dev/pts) continue ;;
	esac
	mounts+=("$dir/$m")
done
in_root() { chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
say "installing git and make only ($(since))"
in_root bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq git make' >>"$log" 2>&1 ||
	die "apt-get install git make failed ($log)"
# The clone: this repository's committed HEAD, through a bundle (no host path or name inside).
git -C "$root" bundle create "$dir/root/ibscan.bundle" HEAD >>"$log" 2>&1
in_root git clone -q /root/ibscan.bundle /root/ibscan >>"$log" 2>&1 || die "git clone failed"
rm -f "$dir/root/ibscan.bundle"
say "clone of $(git -C "$root" rev-parse --short HEAD) in /root/ibscan ($(since))"

# run NAME: the README's command, as root, in the clone; its output in $dir.NAME.log.
run() {
	local t=$(date +%s) rc=0
	say "running: make $1"
	in_root bash -c "cd /root/ibscan && make $1" >"$dir.$1.log" 2>&1 || rc=$?
	say "make $1: exit $rc in $(($(date +%s) - t)) s (log $dir.$1.log)"
	[ $rc = 0 ] || { tail -40 "$dir.$1.log" >&2; die "make $1 exited $rc"; }
}
run demo
for f in topology.json topology.svg report.html; do
	[ -s "$dir/root/ibscan/$f" ] || die "make demo did not write $f"
done
grep -q '^demo: wrote .*report.html' "$dir.demo.log" || die "make demo did not say where report.html is"
[ "$stop_after" = demo ] && { say "stopped after demo, as asked ($(since))"; exit 0; }
t=$(date +%s)
run check
mins=$((($(date +%s) - t + 59) / 60))
for tier in unit cli sim browser fuzz; do
	grep -qE "^$tier: [1-9][0-9]* passed, 0 failed$" "$dir.check.log" || die "make check: no '$tier: N passed, 0 failed' line"
done
promise=$(sed -n 's/.*`make check` takes about \([0-9]*\) minutes.*/\1/p' "$root/README.md")
say "make check took $mins min; the README says about $promise"
say "ok: on a fresh Debian 12 root with only git and make, make demo and make check pass ($(since) in all)"
