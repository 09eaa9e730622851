#!/bin/bash
# Install the Debian packages ibscan needs to build, test and demo (Debian 12).
# As root: apt-get installs what is missing. Otherwise: print the command and fail.
set -euo pipefail

PKGS=(
	build-essential pkg-config clang
	libibumad-dev libibmad-dev libibnetdisc-dev libibverbs-dev
	libjansson-dev libcmocka-dev libgraphviz-dev
	ibsim-utils libumad2sim0 opensm infiniband-diags
	graphviz tshark prometheus jq python3 valgrind mandoc man-db
)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PKGS[@]} packages are installed"
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
