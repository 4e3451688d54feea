-- get.lua - GET of one object (the URL given to wrk); the bearer token
-- comes from wrk -H. Only the status check of report.lua is added.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
