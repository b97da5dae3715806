-- wrk script for benches/serve_load.sh: POSTs one `tools/call` per request, each with a
-- JSON-RPC id of its own (a session's requests must not share one), and stops each
-- thread after its share of the requests, so every server answers the same count.
--
-- Arguments (after `--`): the path a thread's stop file starts with (it creates PATH.N
-- when it has stopped), requests per thread, the tool's name, its arguments as JSON, and
-- optionally the session id to send.
-- Prints one line of JSON: requests, seconds, p50/p99 latency in µs, and failures
-- (connection errors, non-2xx statuses, and 2xx answers without a successful result).
--
-- wrk runs for its whole `-d` even when every thread has stopped, and its own duration
-- says so; the script therefore times the requests itself (first request to last answer,
-- CLOCK_MONOTONIC) and ends wrk with SIGINT once every thread's file exists.

local common = require("benches/serve_load/common")
setup = common.setup

function init(args)
    stopped_file = common.stop_file(args)
    quota = tonumber(args[2])
    tool = args[3]
    arguments = args[4]
    answered = 0
    failed = 0
    sent = 0
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
    wrk.headers["Accept"] = "application/json, text/event-stream"
    wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
    if args[5] ~= nil and args[5] ~= "" then
        wrk.headers["Mcp-Session-Id"] = args[5]
    end
end

function request()
    if sent == 0 then
        started = common.now()
    end
    sent = sent + 1
    local id = thread_number * 1000000000 + sent
    local body = string.format(
        '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}',
        id, tool, arguments)
    return wrk.format(nil, nil, nil, body)
end

function response(status, headers, body)
    answered = answered + 1
    if status < 200 or status > 299 or not string.find(body, '"result"', 1, true)
        or string.find(body, '"isError":true', 1, true) then
        failed = failed + 1
    end
    if answered == quota then
        finished = common.now()
        common.stop(stopped_file)
    end
end

function done(summary, latency, requests)
    local failures = summary.errors.connect + summary.errors.read + summary.errors.write
        + summary.errors.timeout
    local answered_in_all, first, last = 0, math.huge, 0
    for _, thread in ipairs(common.threads) do
        failures = failures + thread:get("failed")
        answered_in_all = answered_in_all + thread:get("answered")
        first = math.min(first, thread:get("started") or math.huge)
        last = math.max(last, thread:get("finished") or 0)
    end
    io.write(string.format(
        '{"requests":%d,"seconds":%f,"p50_us":%d,"p99_us":%d,"failures":%d}\n',
        answered_in_all, last - first, latency:percentile(50.0), latency:percentile(99.0),
        failures))
end
