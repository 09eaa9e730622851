#!/bin/bash
# tools/deps/need.sh [--list] TARGET...: check that every tool the targets (demo,
# unit, cli, sim, browser, fuzz, rdma) need is there, all at once, from
# tools/deps/deps.list. On anything missing: one message naming each missing tool
# and its package, and exit 1; never stops at the first. With --list: print
# the packages the targets need (for tools/deps/deps.sh) and check nothing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
list=${DEPS_LIST:-$root/tools/deps/deps.list}
only_list=0
[ "${1:-}" = --list ] && { only_list=1; shift; }
[ $# -gt 0 ] || { echo "usage: tools/deps/need.sh [--list] TARGET..." >&2; exit 2; }
wanted=" $* "
# present CHECK: is the tool there? (cmd: on PATH or in /usr/sbin, where opensm is)
present() {
	local kind=${1%%:*} what=${1#*:} f
	case $kind in
	cmd) PATH=$PATH:/usr/sbin:/sbin command -v "$what" >/dev/null ;;
	pc) command -v pkg-config >/dev/null && pkg-config --exists "$what" ;;
	file)
		for f in $what; do [ -e "$f" ] && return 0; done
		return 1 ;;
	-) return 0 ;;
	*) echo "need: $list: unknown check '$1'" >&2; return 1 ;;
	esac
}
pkgs=() missing=() missing_pkgs=()
while read -r pkg targets checks _why; do
	case $pkg in '' | '#'*) continue ;; esac
	hit=0
	for t in ${targets//,/ }; do [[ $wanted == *" $t "* ]] && hit=1; done
	[ $hit = 1 ] || continue
	pkgs+=("$pkg")
	[ $only_list = 1 ] && continue
	lack=()
	for c in ${checks//,/ }; do present "$c" || lack+=("${c#*:}"); done
	if [ ${#lack[@]} -gt 0 ]; then
		missing+=("${lack[*]} (package $pkg)")
		missing_pkgs+=("$pkg")
	fi
done <"$list"
if [ $only_list = 1 ]; then
	printf '%s\n' "${pkgs[@]}"
	exit 0
fi
if [ ${#missing[@]} -gt 0 ]; then
	who=${NEED_WHO:-$*}
	echo "$who: ${#missing[@]} missing, needed by this tier:" >&2
	printf '  %s\n' "${missing[@]}" >&2
	echo "$who: install them with 'make deps' (as root: apt-get install ${missing_pkgs[*]})" >&2
	exit 1
fi
