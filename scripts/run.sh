#!/bin/sh
# run.sh - what `make run` does: drover serve on the embedded default
# (SQLite, the default data directory) with the process runtime, then the
# example Deployment and its Service applied and rolled out. Ctrl-C
# deletes the example and stops the daemon. Usage: scripts/run.sh BUILD_DIR [serve flags...]
set -eu
build=$1
shift
bin=$build/drover
example=$(cd "$build/examples/service" && pwd)
if [ -n "${DROVER_DATA_DIR:-}" ]; then data=$DROVER_DATA_DIR
elif [ "$(id -u)" -eq 0 ]; then data=/var/lib/drover
else data=$HOME/.local/share/drover; fi
export DROVER_SERVER="$data/drover.sock"
# Its own session: a Ctrl-C reaches this script, which stops things in
# order (the example first, then the daemon), not the daemon directly.
setsid "$bin" serve --runtime process "$@" &
pid=$!
stop() {
	trap - INT TERM
	"$bin" delete svc web --ignore-not-found >/dev/null 2>&1 || true
	"$bin" delete deploy web --ignore-not-found >/dev/null 2>&1 || true
	i=0 # the pods stop gracefully: wait for them before the daemon goes
	while [ $i -lt 150 ] && "$bin" get pods -o name 2>/dev/null | grep -q .; do
		i=$((i + 1))
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	exit 0
}
trap stop INT TERM
i=0
until [ -S "$DROVER_SERVER" ] && "$bin" get deploy >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
		echo "run.sh: drover serve did not come up" >&2
		exit 1
	fi
	sleep 0.1
done
sed "s|@EXAMPLE_DIR@|$example|" examples/web.yaml | "$bin" apply -f -
"$bin" rollout status deploy/web --timeout=60s
"$bin" get pods -o wide
"$bin" get svc
echo
echo "drover serve is running (pid $pid, socket $DROVER_SERVER)."
echo "The example answers at its Service's address:"
echo "  curl http://127.0.0.1:8000/"
echo "Roll it to v2 (no request fails meanwhile), in another shell:"
echo "  export DROVER_SERVER=$DROVER_SERVER"
echo "  $bin set env deploy/web VERSION=v2 && $bin rollout status deploy/web"
echo "Ctrl-C deletes the example and stops drover serve."
wait "$pid"
