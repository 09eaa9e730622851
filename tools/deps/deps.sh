#!/bin/bash
# Install what ibscan needs on Debian 12, from tools/deps/deps.list (the one list:
# each package, the targets that need it, and why).
#   tools/deps/deps.sh            every package (make deps, make check), then the browser driver
#   tools/deps/deps.sh --demo     only what builds and runs ibscan and the simulator (make demo): no npm
#   tools/deps/deps.sh --driver   only the browser tier's driver (make check-browser)
# As root: apt-get installs what is missing. Otherwise: print the command and fail.
# The driver is puppeteer-core at the version tests/browser/package-lock.json
# pins, into tests/browser/node_modules (npm ci, for the tests only; it drives
# Debian's chromium and downloads no browser).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-all}
case $mode in
all) targets="demo unit cli sim browser fuzz rdma" ;;
--demo) targets="demo" ;;
--driver) targets="" ;;
*) echo "usage: tools/deps/deps.sh [--demo | --driver]" >&2; exit 2 ;;
esac

# puppeteer-core at the pinned version, unless it is there already.
browser_driver() {
	local dir=$root/tests/browser want have
	want=$(sed -n 's/.*"puppeteer-core": "\([^"]*\)".*/\1/p' "$dir/package.json" | head -1)
	have=$(node -p "require('$dir/node_modules/puppeteer-core/package.json').version" 2>/dev/null || true)
	if [ -n "$want" ] && [ "$have" = "$want" ]; then
		echo "deps: puppeteer-core $have is installed (tests/browser)"
		return 0
	fi
	command -v npm >/dev/null || { echo "deps: npm is missing: run 'make deps' (package npm)" >&2; return 1; }
	echo "deps: installing puppeteer-core $want into tests/browser/node_modules (npm ci)"
	(cd "$dir" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
}
if [ "$mode" = --driver ]; then
	browser_driver
	exit 0
fi

# A package is missing when dpkg does not have it installed and what tools/deps/need.sh
# checks for it is not there either (nodejs from elsewhere holds npm, and
# conflicts with Debian's npm: it counts as present).
mapfile -t pkgs < <("$root/tools/deps/need.sh" --list $targets)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" && continue
	DEPS_LIST=<(grep -E "^$p[[:space:]]" "$root/tools/deps/deps.list" | sed -E 's/^(\S+\s+)\S+/\1all/') \
		"$root/tools/deps/need.sh" all 2>/dev/null && continue
	missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages are installed"
else
	cmd="apt-get install -y --no-install-recommends ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: missing packages: ${missing[*]}" >&2
		echo "deps: run as root: apt-get update && $cmd" >&2
		exit 1
	fi
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[ "$mode" = --demo ] || browser_driver
