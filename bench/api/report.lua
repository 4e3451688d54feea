-- report.lua - shared by the wrk scripts of bench/api: counts the
-- responses whose status is not 2xx (wrk's own "Non-2xx or 3xx" counter
-- lets 3xx through) and prints one machine-readable line at the end:
--   RESULT rps=.. p50_ms=.. p99_ms=.. requests=.. non2xx=.. errors=..
local threads = {}

function setup(thread)
	table.insert(threads, thread)
end

function init(args)
	non2xx = 0
	if init_request then init_request(args) end
end

function response(status, headers, body)
	if status < 200 or status > 299 then
		non2xx = non2xx + 1
		if non2xx == 1 then
			io.stderr:write("first non-2xx: " .. status .. " " ..
				string.sub(body or "", 1, 300) .. "\n")
		end
	end
end

function done(summary, latency, requests)
	local bad = 0
	for _, t in ipairs(threads) do
		bad = bad + t:get("non2xx")
	end
	local e = summary.errors
	io.write(string.format(
		"RESULT rps=%.1f p50_ms=%.3f p99_ms=%.3f requests=%d non2xx=%d errors=%d\n",
		summary.requests / (summary.duration / 1e6),
		latency:percentile(50) / 1000, latency:percentile(99) / 1000,
		summary.requests, bad,
		e.connect + e.read + e.write + e.timeout))
end
