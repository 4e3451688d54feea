#!/bin/sh
# fetch-kubectl.sh - Debian's kubectl 1.20 (package kubernetes-client),
# unpacked, not installed (it would clash with the cloud SDK's
# /usr/bin/kubectl), for the kubectl compatibility tests
# (tests/e2e/kubectl_bins.py). Prints the binary's path.
# Usage: scripts/fetch-kubectl.sh [DIR]  (default $DROVER_KUBECTL_CACHE,
# else /var/tmp/drover-kubectl); DIR/usr/bin/kubectl when done.
set -e
dir=${1:-${DROVER_KUBECTL_CACHE:-/var/tmp/drover-kubectl}}
bin="$dir/usr/bin/kubectl"
if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$dir"
cd "$dir"
# apt-get download needs the package lists (apt-get update) and the
# Debian mirror; it runs as any user.
ls kubernetes-client_*.deb >/dev/null 2>&1 ||
	apt-get download -qq kubernetes-client >/dev/null 2>&1 ||
	{ [ "$(id -u)" -eq 0 ] && apt-get update -qq && apt-get download -qq kubernetes-client; }
deb=$(ls kubernetes-client_*.deb | tail -1)
dpkg-deb -x "$deb" "$dir"
[ -x "$bin" ]
echo "$bin"
