#!/bin/sh
# deps.sh - install the Debian packages drover needs, only those missing.
# Usage: scripts/deps.sh [build|test|bench|fuzz]...  (default: build)
set -e
kubectl=""
need="cmake make gcc pkg-config libjansson-dev libyaml-dev libcmocka-dev libsqlite3-dev libuv1-dev libmicrohttpd-dev libcurl4-openssl-dev libhttp-parser-dev uthash-dev libcap-dev libgnutls28-dev libprotobuf-c-dev"
for what in "$@"; do
	case "$what" in
	build) ;;
	test) kubectl=1; need="$need python3 python3-pytest python3-requests python3-yaml clang-format prometheus wrk nodejs socat python3-kubernetes libcap2-bin" ;;
	bench) need="$need hyperfine wrk etcd-server curl python3 python3-requests haproxy nodejs npm" ;;
	fuzz) need="$need clang libclang-rt-14-dev" ;;
	*) echo "deps.sh: unknown set $what" >&2; exit 2 ;;
	esac
done
# Debian's kubectl 1.20, unpacked (scripts/fetch-kubectl.sh), for the
# kubectl tests beside the cloud SDK's newer ones.
fetch_kubectl() {
	[ -z "$kubectl" ] || "$(dirname "$0")/fetch-kubectl.sh" >/dev/null ||
		echo "deps.sh: cannot fetch Debian's kubectl 1.20; the tests" \
			"that need it are skipped" >&2
}
# npm comes with some builds of nodejs (NodeSource's, which conflicts
# with Debian's npm package): a working npm command is enough.
missing=""
for p in $need; do
	[ "$p" = npm ] && command -v npm >/dev/null 2>&1 && continue
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	fetch_kubectl
	exit 0
fi
echo "installing:$missing"
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo apt-get update -qq || true
# prometheus (tests/e2e/test_metrics.py runs its own, on 127.0.0.1) comes
# without its recommended node exporter, and the system service its
# package starts on 0.0.0.0:9090 is stopped and disabled again.
others=""
for p in $missing; do
	[ "$p" = prometheus ] || others="$others $p"
done
[ -z "$others" ] ||
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $others
case " $missing " in
*" prometheus "*)
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
		--no-install-recommends prometheus
	if command -v systemctl >/dev/null 2>&1; then
		$sudo systemctl disable --now prometheus >/dev/null 2>&1 || true
	fi
	;;
esac
fetch_kubectl
