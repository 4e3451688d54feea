#!/bin/bash
# repeat.sh - bench/rollout several times over, for effects smaller than
# one run's spread: the medians of one run move by 20-30 ms from run to
# run at 50 replicas, so telling a 10-20 ms change apart takes the wall
# times of 15 rollouts or more. Prints every rollout's wall time pooled,
# then their mean and median.
#
# usage: bench/rollout/repeat.sh BUILD_DIR [RUNS]   (RUNS: default 3, each
#        five rollouts; ROLLOUT_REPLICAS as for rollout.py)
# example: bench/rollout/repeat.sh build-bench 3
#   walls: 2.13 2.14 ... 2.19
#   n=15 mean 2.159 s, median 2.160 s (min 2.13, max 2.19)
set -euo pipefail
build=${1:?usage: repeat.sh BUILD_DIR [RUNS]}
runs=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
walls=""
for _ in $(seq 1 "$runs"); do
	line=$(/usr/bin/python3 "$here/rollout.py" "$build" | grep "rollout wall time")
	# "... (median of 2.15, 2.15, 2.16, 2.18, 2.18)"
	walls="$walls $(echo "$line" | sed 's/.*median of //; s/)//; s/,//g')"
done
echo "walls:$(echo $walls | tr ' ' '\n' | sort -n | tr '\n' ' ')"
echo $walls | tr ' ' '\n' | sort -n | awk '{a[NR] = $1; s += $1}
	END {printf "n=%d mean %.3f s, median %.3f s (min %.2f, max %.2f)\n",
	     NR, s / NR, (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2),
	     a[1], a[NR]}'
