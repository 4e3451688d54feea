-- etcd_post.lua - POST of a fixed JSON body to etcd's v3 gRPC-JSON
-- gateway (/v3/kv/put or /v3/kv/range, the URL given to wrk). Env:
-- BENCH_BODY, e.g. {"key":"<base64>","value":"<base64>"}. An etcd put
-- always makes a new revision, so a fixed body is a real write each time.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")

function init_request(args)
	wrk.method = "POST"
	wrk.body = os.getenv("BENCH_BODY")
	wrk.headers["Content-Type"] = "application/json"
end
