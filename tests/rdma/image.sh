#!/bin/bash
# tests/rdma/image.sh: build, once, what the real-RDMA tier boots (build/rdma/):
#   vmlinuz       Debian's own kernel (package linux-image-amd64, /boot)
#   rootfs.cpio   an initramfs that is the whole guest: debootstrap --variant=minbase
#                 from this machine's apt sources, plus rdma-core, ibverbs-providers,
#                 ibverbs-utils, perftest, iproute2, infiniband-diags, ibscan's
#                 runtime libraries, tcpdump (the packets on the wire), jq and
#                 python3 (tools/hwcheck/hwcheck.sh), openssh (hwcheck's --peer: one
#                 key pair made here, in both guests, for root between them), and
#                 the kernel's modules the guest loads
#                 (virtio-net, soft-RoCE rdma_rxe, ib_uverbs, ib_umad, crc32, 8021q)
# The cache is keyed on this script, tests/rdma/guest/init and the versions
# dpkg-query -W gives for the host's kernel, debootstrap and RDMA packages:
# when one changes, the image is built again. ibscan itself is never in the
# cache: tests/rdma/vm.sh adds the fresh binary at each run (a second cpio).
# Usage: tests/rdma/image.sh [--print-key]    (as root: debootstrap, chroot)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/rdma
# ibscan's runtime libraries are the packages that hold what the binary links (ldd, dpkg -S):
# a library added to the Makefile's PKGS (libmicrohttpd for the exporter) is in the guest
# without a list kept here by hand; libibverbs is loaded at run time, so named.
bin=${IBSCAN:-$root/build/rel/ibscan}
[ -x "$bin" ] || { echo "rdma: no ibscan at $bin: run 'make' first" >&2; exit 1; }
# dpkg knows a library by the path it installed, which usrmerge may have moved: ask by both.
run_pkgs=$(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r l; do
	echo "$l"
	realpath "$l"
done | { xargs -r dpkg -S 2>/dev/null || true; } | cut -d: -f1 | sort -u | tr '\n' ' ')
[ -n "$run_pkgs" ] || { echo "rdma: cannot tell which packages hold $bin's libraries (ldd, dpkg -S)" >&2; exit 1; }
guest_pkgs="rdma-core ibverbs-providers ibverbs-utils perftest iproute2 infiniband-diags
	libibverbs1 kmod procps tcpdump jq python3 openssh-server openssh-client $run_pkgs"
key_pkgs="debootstrap linux-image-amd64 rdma-core ibverbs-providers libibverbs1 infiniband-diags $run_pkgs"
# The guest's modules: what modprobe needs to load these, with their dependencies.
modules="virtio_net virtio_pci virtio_console rdma_rxe ib_uverbs ib_umad rdma_ucm crc32_generic 8021q ipv6"

kver() { # the newest Debian kernel in /boot
	local v
	v=$(find /boot -maxdepth 1 -name 'vmlinuz-*-amd64' -printf '%f\n' | sed 's/^vmlinuz-//' | sort -V | tail -1)
	[ -n "$v" ] || { echo "rdma: no /boot/vmlinuz-*-amd64: run 'make deps' (package linux-image-amd64)" >&2; return 1; }
	echo "$v"
}
cache_key() {
	{
		cat "$0" "$root/tests/rdma/guest/init"
		# shellcheck disable=SC2086
		dpkg-query -W $key_pkgs 2>/dev/null || true
		kver
	} | sha256sum | cut -c1-16
}
key=$(cache_key)
[ "${1:-}" = --print-key ] && { echo "$key"; exit 0; }
if [ -f "$out/key" ] && [ "$(cat "$out/key")" = "$key" ] && [ -s "$out/rootfs.cpio" ] && [ -s "$out/vmlinuz" ]; then
	echo "rdma: image cached (key $key)"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "rdma: building the guest image needs root (debootstrap)" >&2; exit 1; }
start=$(date +%s)
k=$(kver)
mkdir -p "$out"
rm -f "$out/key"
fs=$out/rootfs
rm -rf "$fs" "$fs.tmp"
# The machine's own apt sources: the first Debian mirror they name, for debootstrap;
# then every source they list (security updates too) for the packages.
mirror=$({ grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null || true; } | head -1 | tr -d ' ')
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
echo "rdma: debootstrap --variant=minbase $suite from ${mirror:-http://deb.debian.org/debian} (kernel $k)"
timeout 900 debootstrap --variant=minbase "$suite" "$fs.tmp" "${mirror:-http://deb.debian.org/debian}" >"$out/debootstrap.log" 2>&1 ||
	{ tail -20 "$out/debootstrap.log" >&2; exit 1; }
rm -f "$fs.tmp/etc/apt/sources.list"
cp -a /etc/apt/sources.list.d/. "$fs.tmp/etc/apt/sources.list.d/"
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$fs.tmp/etc/apt/"
cp /etc/resolv.conf "$fs.tmp/etc/resolv.conf"
# No service starts in the chroot (openssh-server's would listen on this machine).
printf '#!/bin/sh\nexit 101\n' >"$fs.tmp/usr/sbin/policy-rc.d"
chmod 755 "$fs.tmp/usr/sbin/policy-rc.d"
# shellcheck disable=SC2086
timeout 900 chroot "$fs.tmp" /bin/sh -c "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq &&
	apt-get install -y -qq --no-install-recommends ${guest_pkgs//[$'\t\n']/ } && apt-get clean" >"$out/apt.log" 2>&1 ||
	{ tail -20 "$out/apt.log" >&2; exit 1; }
chroot "$fs.tmp" dpkg-query -W >"$out/guest-packages.txt"
rm -f "$fs.tmp/usr/sbin/policy-rc.d"
# ssh between the guests, as root, without a question: one key pair for both (the
# guests are the only hosts on their link), one connection reused per peer.
mkdir -p -m 700 "$fs.tmp/root/.ssh"
rm -f "$fs.tmp/root/.ssh/id_ed25519"*
chroot "$fs.tmp" ssh-keygen -q -t ed25519 -N '' -C ibscan-rdma -f /root/.ssh/id_ed25519
cp "$fs.tmp/root/.ssh/id_ed25519.pub" "$fs.tmp/root/.ssh/authorized_keys"
printf '%s\n' 'Host *' '  StrictHostKeyChecking no' '  UserKnownHostsFile /dev/null' '  LogLevel ERROR' \
	'  ControlMaster auto' '  ControlPath /tmp/ssh-%C' '  ControlPersist 300' >"$fs.tmp/root/.ssh/config"
chmod 600 "$fs.tmp/root/.ssh/"*
# Only what the tier uses: no documentation, locales, apt lists.
rm -rf "$fs.tmp"/usr/share/{doc,man,info,locale,lintian} "$fs.tmp"/var/lib/apt/lists/* "$fs.tmp"/var/cache/apt/*
# The modules, with what they depend on, from the host's copy of the same kernel.
mods=$(for m in $modules; do modprobe -S "$k" --show-depends "$m" 2>/dev/null; done | awk '$1 == "insmod" { print $2 }' | sort -u)
[ -n "$mods" ] || { echo "rdma: no modules found for $k" >&2; exit 1; }
for f in $mods; do
	mkdir -p "$fs.tmp$(dirname "$f")"
	cp "$f" "$fs.tmp$f"
done
cp /lib/modules/"$k"/modules.{order,builtin,builtin.modinfo} "$fs.tmp/lib/modules/$k/" 2>/dev/null || true
depmod -b "$fs.tmp" "$k"
install -m 755 "$root/tests/rdma/guest/init" "$fs.tmp/init"
echo "ibscan-rdma" >"$fs.tmp/etc/hostname"
mv "$fs.tmp" "$fs"
(cd "$fs" && find . -print0 | cpio --null -o -H newc --quiet) >"$out/rootfs.cpio.tmp"
mv "$out/rootfs.cpio.tmp" "$out/rootfs.cpio"
cp "/boot/vmlinuz-$k" "$out/vmlinuz"
echo "$key" >"$out/key"
echo "rdma: image built in $(($(date +%s) - start)) s: $(du -h "$out/rootfs.cpio" | cut -f1) initramfs, kernel $k"
