-- put.lua - unconditional PUT (no resourceVersion) of a small Pod to
-- drover: every request replaces the object and is acknowledged only
-- once SQLite has synced it. The body carries a per-thread counter in an
-- annotation so that each PUT is a real change, even if the server ever
-- skipped no-op updates as Kubernetes does. Env: BENCH_POD (the name),
-- BENCH_NODE (its spec.nodeName, as it was created: an update may not
-- change it).
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")

local name = os.getenv("BENCH_POD") or "bench-put"
local node = os.getenv("BENCH_NODE") or "bench-node"
local nthreads = 0
local seq = 0

local report_setup = setup
function setup(thread)
	nthreads = nthreads + 1
	thread:set("tid", nthreads)
	report_setup(thread)
end

function init_request(args)
	wrk.method = "PUT"
	wrk.headers["Content-Type"] = "application/json"
end

function request()
	seq = seq + 1
	local body = string.format(
		'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s",' ..
		'"annotations":{"bench/seq":"%d-%d"}},"spec":{"nodeName":"%s",' ..
		'"containers":[{"name":"c","image":"busybox:1"}]}}', name, tid,
		seq, node)
	return wrk.format(nil, nil, nil, body)
end
