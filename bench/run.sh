#!/bin/sh
# run.sh - runs the planner benchmark, the codec's costs of one object,
# hyperfine on `drover plan`, then the API benchmark (bench/api/run.sh:
# drover serve next to etcd), the rollout and scale benchmarks, the proxy
# next to haproxy, and a reload of a Node.js service under load, drover
# against pm2.
# Usage: bench/run.sh BUILD_DIR   (a Release build: `make bench` makes one)
set -e
build=${1:?usage: bench/run.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)

echo "== bench/plan ($build)"
"$build/bench/plan"

echo
echo "== bench/codec ($build)"
"$build/bench/codec"

echo
manifest="$root/examples/plan/rolling-10.yaml"
if command -v hyperfine >/dev/null 2>&1; then
	echo "== hyperfine: drover plan --simulate -f examples/plan/rolling-10.yaml"
	hyperfine --style basic --warmup 5 --runs 100 --shell=none \
		"$build/drover plan --simulate -f $manifest"
else
	echo "== hyperfine not installed (scripts/deps.sh bench): skipped"
fi

echo
echo "== bench/api: drover serve vs etcd on 127.0.0.1"
"$root/bench/api/run.sh" "$build"

echo
echo "== bench/rollout: a 50-replica rollout of the example service"
/usr/bin/python3 "$root/bench/rollout/rollout.py" "$build"
echo
echo "== bench/rollout: the same with 500 replicas"
ROLLOUT_REPLICAS=500 /usr/bin/python3 "$root/bench/rollout/rollout.py" "$build"

echo
echo "== bench/fleet: hollow nodes, 100 and 1,000, and 10,000 replicas over them"
/usr/bin/python3 "$root/bench/fleet/fleet.py" "$build"

echo
echo "== bench/scale: pods as objects at 1,000, 5,000 and 20,000"
/usr/bin/python3 "$root/bench/scale/scale.py" "$build"

echo
echo "== bench/proxy: drover's Service proxy next to haproxy, tcp and http"
/usr/bin/python3 "$root/bench/proxy/proxy.py" "$build"

echo
echo "== bench/reload: a reload of 4 Node.js instances under load, pm2 and drover"
/usr/bin/python3 "$root/bench/reload/reload.py" "$build"
