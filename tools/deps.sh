#!/bin/bash
# Install the Debian packages ibscan needs to build, test and demo (Debian 12).
# As root: apt-get installs what is missing. Otherwise: print the command and fail.
# Then the browser tier's driver, puppeteer-core, at the version that
# tests/browser/package-lock.json pins, into tests/browser/node_modules (npm
# ci, for the tests only; it drives Debian's chromium and downloads no browser).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

PKGS=(
	build-essential pkg-config clang
	libibumad-dev libibmad-dev libibnetdisc-dev libibverbs-dev
	libjansson-dev libcmocka-dev libgraphviz-dev
	ibsim-utils libumad2sim0 opensm infiniband-diags
	graphviz tshark prometheus jq python3 valgrind mandoc man-db
	chromium slurm-client
)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing+=("$p")
	fi
done
# Node.js and npm may come from Debian (nodejs, npm) or as one package from
# elsewhere (whose nodejs holds npm and conflicts with Debian's npm): ask for
# Debian's only when there is no npm at all.
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
	missing+=(nodejs npm)
fi

# puppeteer-core at the pinned version, unless it is there already.
browser_driver() {
	local dir=$root/tests/browser want have
	want=$(sed -n 's/.*"puppeteer-core": "\([^"]*\)".*/\1/p' "$dir/package.json" | head -1)
	have=$(node -p "require('$dir/node_modules/puppeteer-core/package.json').version" 2>/dev/null || true)
	if [ -n "$want" ] && [ "$have" = "$want" ]; then
		echo "deps: puppeteer-core $have is installed (tests/browser)"
		return 0
	fi
	echo "deps: installing puppeteer-core $want into tests/browser/node_modules (npm ci)"
	(cd "$dir" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
}

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PKGS[@]} packages are installed"
	browser_driver
	exit 0
fi
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: run as root: apt-get update && $cmd" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends ${missing[*]}
browser_driver
