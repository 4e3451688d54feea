#!/bin/sh
# bench/api/run.sh - drover's API next to etcd's, on 127.0.0.1, in one run:
# GET of one object, durable PUT throughput (wrk), and write -> watch event
# latency (bench/api/watch_latency.py); etcd through its v3 JSON gateway.
# Usage: bench/api/run.sh BUILD_DIR   (BUILD_DIR/drover, a Release build)
# Env: API_BENCH_DURATION (wrk seconds, 10), API_BENCH_THREADS (2),
#      API_BENCH_CONNS (16), API_BENCH_WATCH_N (500).
# Every process started here is stopped by its PID on exit; the temporary
# directory (under $TMPDIR, /tmp by default: it must be a real disk for
# the fsyncs to mean anything) is removed. Needs wrk, etcd-server, curl,
# /usr/bin/python3 with requests (scripts/deps.sh bench).
set -eu
build=${1:?usage: bench/api/run.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
dur=${API_BENCH_DURATION:-10}
thr=${API_BENCH_THREADS:-2}
conns=${API_BENCH_CONNS:-16}
nwatch=${API_BENCH_WATCH_N:-500}
py=/usr/bin/python3

for t in wrk etcd curl "$py"; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "== bench/api: $t not installed (scripts/deps.sh bench): skipped"
		exit 0
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/drover-apibench.XXXXXX")
drover_pid=""
etcd_pid=""
cleanup() {
	for p in $drover_pid $etcd_pid; do
		if kill -0 "$p" 2>/dev/null; then
			kill "$p" 2>/dev/null || true
			# up to 5 s to exit, then SIGKILL (same PID)
			i=0
			while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do
				sleep 0.1
				i=$((i + 1))
			done
			kill -9 "$p" 2>/dev/null || true
		fi
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
	"$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_http() { # URL [curl args]: up to 10 s
	url=$1
	shift
	i=0
	until curl -sf -m 1 -o /dev/null "$@" "$url"; do
		i=$((i + 1))
		if [ $i -ge 100 ]; then
			echo "bench/api: $url did not come up" >&2
			return 1
		fi
		sleep 0.1
	done
}
alive() { # PID NAME: says so if the process died
	if ! kill -0 "$1" 2>/dev/null; then
		wait "$1" 2>/dev/null && rc=0 || rc=$?
		echo "bench/api: $2 (pid $1) DIED, exit status $rc" >&2
		return 1
	fi
}
field() { # KEY LINE -> the value of KEY=... in a RESULT line, or "-"
	v=$(printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p")
	printf '%s' "${v:--}"
}
# wrk with a 5 s grace: the run stops by itself.
run_wrk() { # LABEL SCRIPT URL [wrk args]
	label=$1 script=$2 url=$3
	shift 3
	echo "-- $label: wrk -t$thr -c$conns -d${dur}s -s $(basename "$script") $url" >&2
	BENCH_LUA_DIR=$here timeout -k 2 $((dur + 10)) wrk -t"$thr" -c"$conns" \
		-d"${dur}s" --latency --timeout 5s -s "$script" "$@" "$url" \
		>"$tmp/wrk.out" 2>"$tmp/wrk.err" || true
	grep -v '^RESULT' "$tmp/wrk.out" | sed -n '/Requests\/sec/p;/Non-2xx/p' >&2
	cat "$tmp/wrk.err" >&2
	grep '^RESULT' "$tmp/wrk.out" || echo "RESULT failed=1"
}

# -- drover
dport=$(free_port)
mkdir "$tmp/drover"
# Plain HTTP (--insecure-http), as etcd is reached below: the same work
# for both, without TLS.
"$build/drover" serve --runtime none --data-dir "$tmp/drover" \
	--node-name bench-node --listen "127.0.0.1:$dport" --insecure-http \
	>"$tmp/drover.log" 2>&1 &
drover_pid=$!
i=0
until [ -s "$tmp/drover/token" ] || [ $i -ge 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
token=$(cat "$tmp/drover/token")
auth="Authorization: Bearer $token"
durl="http://127.0.0.1:$dport"
wait_http "$durl/version" -H "$auth"
apps="$durl/apis/apps/v1/namespaces/default"
core="$durl/api/v1/namespaces/default"
post() { # URL JSON
	code=$(curl -s -m 10 -o "$tmp/post.out" -w '%{http_code}' -H "$auth" \
		-H 'Content-Type: application/json' -d "$2" "$1")
	[ "$code" = 201 ] || { echo "POST $1: $code $(cat "$tmp/post.out")" >&2; exit 1; }
}
post "$apps/deployments" '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:1"}]}}}}'
# Bound at its creation, as put.lua's body says: a pod's update may not
# change spec.nodeName, so a PUT without the node the scheduler chose
# would be refused (422), as Kubernetes refuses it.
pod='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bench-put"},"spec":{"nodeName":"bench-node","containers":[{"name":"c","image":"busybox:1"}]}}'
post "$core/pods" "$pod"
rv_of() { # URL -> metadata.resourceVersion
	curl -s -m 10 -H "$auth" "$1" | "$py" -c \
		'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])'
}
sleep 0.5 # let the controllers settle the new Deployment

# -- etcd: one member, its default fsync behaviour, its own data dir
eport=$(free_port)
pport=$(free_port)
eurl="http://127.0.0.1:$eport"
etcd --name apibench --data-dir "$tmp/etcd" \
	--listen-client-urls "$eurl" --advertise-client-urls "$eurl" \
	--listen-peer-urls "http://127.0.0.1:$pport" \
	--initial-advertise-peer-urls "http://127.0.0.1:$pport" \
	--initial-cluster "apibench=http://127.0.0.1:$pport" \
	>"$tmp/etcd.log" 2>&1 &
etcd_pid=$!
wait_http "$eurl/health"
b64() { printf '%s' "$1" | base64 -w0; }
ekey=$(b64 bench-put)
# the same bytes as drover's PUT body, as the value
eput="{\"key\":\"$ekey\",\"value\":\"$(b64 "$pod")\"}"
curl -sf -m 10 -o /dev/null -d "$eput" "$eurl/v3/kv/put"

echo "== bench/api: $("$build/drover" version 2>/dev/null | head -1 || true)," \
	"$(etcd --version | head -1); wrk -t$thr -c$conns -d${dur}s; watch N=$nwatch"

# 1. GET of one object
dget=$(run_wrk "drover GET deployment" "$here/get.lua" "$apps/deployments/web" -H "$auth")
alive $drover_pid drover || true
eget=$(BENCH_BODY="{\"key\":\"$ekey\"}" run_wrk "etcd range (linearizable)" \
	"$here/etcd_post.lua" "$eurl/v3/kv/range")

# 2. durable PUT
rv0=$(rv_of "$core/pods/bench-put" || echo 0)
dput=$(BENCH_POD=bench-put BENCH_NODE=bench-node run_wrk "drover PUT pod" "$here/put.lua" "$core/pods/bench-put" -H "$auth")
alive $drover_pid drover || true
rv1=$(rv_of "$core/pods/bench-put" || echo 0)
eput_r=$(BENCH_BODY="$eput" run_wrk "etcd put" "$here/etcd_post.lua" "$eurl/v3/kv/put")

# 3. write -> watch event (last for drover: a stalled watch must not
#    spoil the other figures)
echo "-- watch latency: watch_latency.py drover|etcd N=$nwatch" >&2
dwatch=$(timeout -k 2 40 "$py" "$here/watch_latency.py" drover "$durl" "$token" "$nwatch" ||
	echo "RESULT failed=1")
alive $drover_pid drover && dalive=yes || dalive=NO
ewatch=$(timeout -k 2 40 "$py" "$here/watch_latency.py" etcd "$eurl" "$nwatch" ||
	echo "RESULT failed=1")
alive $etcd_pid etcd && ealive=yes || ealive=NO

dputs=$(field requests "$dput")
echo
dput_bad=$(field non2xx "$dput")
# rv counts every write of the store (the agent's heartbeat too), so it
# must have grown by at least the PUTs answered
if [ "${dput_bad:-1}" = 0 ] && [ $((rv1 - rv0)) -ge "${dputs:-1}" ] 2>/dev/null; then
	put_ok=ok
else
	put_ok=FAILED
fi
echo "PUT check: drover acknowledged $dputs PUTs ($dput_bad refused);" \
	"bench-put resourceVersion went $rv0 -> $rv1 (each PUT must be one" \
	"committed write): $put_ok"
echo
row() { printf '%-38s | %14s | %14s\n' "$1" "$2" "$3"; }
row "metric (127.0.0.1, -t$thr -c$conns ${dur}s)" drover etcd
row "--------------------------------------" "--------------" "--------------"
row "GET one object, req/s" "$(field rps "$dget")" "$(field rps "$eget")"
row "GET p50 / p99, ms" "$(field p50_ms "$dget") / $(field p99_ms "$dget")" \
	"$(field p50_ms "$eget") / $(field p99_ms "$eget")"
row "GET non-2xx / socket errors" "$(field non2xx "$dget") / $(field errors "$dget")" \
	"$(field non2xx "$eget") / $(field errors "$eget")"
row "durable PUT, req/s" "$(field rps "$dput")" "$(field rps "$eput_r")"
row "PUT p50 / p99, ms" "$(field p50_ms "$dput") / $(field p99_ms "$dput")" \
	"$(field p50_ms "$eput_r") / $(field p99_ms "$eput_r")"
row "PUT non-2xx / socket errors" "$(field non2xx "$dput") / $(field errors "$dput")" \
	"$(field non2xx "$eput_r") / $(field errors "$eput_r")"
row "write->event p50 / p99, ms (N=$nwatch)" \
	"$(field p50_ms "$dwatch") / $(field p99_ms "$dwatch")" \
	"$(field p50_ms "$ewatch") / $(field p99_ms "$ewatch")"
row "events lost (>1 s) / writes made" "$(field lost "$dwatch") / $(field n "$dwatch")" \
	"$(field lost "$ewatch") / $(field n "$ewatch")"
row "sequential write reply p50 / p99, ms" \
	"$(field reply_p50_ms "$dwatch") / $(field reply_p99_ms "$dwatch")" \
	"$(field reply_p50_ms "$ewatch") / $(field reply_p99_ms "$ewatch")"
row "server still running at the end" "$dalive" "$ealive"
if [ "$dalive" != yes ]; then
	echo
	echo "drover's log (last lines):"
	tail -5 "$tmp/drover.log"
fi
# a PUT figure made of refusals is no figure
[ "$put_ok" = ok ] || exit 1
