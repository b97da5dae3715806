-- wrk script for benches/serve_load.sh: opens sessions and leaves them idle. Each
-- session is an `initialize` and, once its answer names the session, the
-- `notifications/initialized` that completes it; each thread stops after its share.
--
-- Arguments (after `--`): the path a thread's stop file starts with (see call.lua),
-- sessions per thread.
-- Prints one line of JSON: sessions completed, and failures.

local common = require("benches/serve_load/common")
setup = common.setup

function init(args)
    stopped_file = common.stop_file(args)
    quota = tonumber(args[2])
    completed = 0
    failed = 0
    -- Sessions whose `initialize` was answered, waiting for their notification.
    ready = {}
    base = {
        ["Content-Type"] = "application/json",
        ["Accept"] = "application/json, text/event-stream",
        ["MCP-Protocol-Version"] = "2025-11-25",
    }
    initialize = wrk.format("POST", nil, base,
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        .. '"capabilities":{},"clientInfo":{"name":"serve_load","version":"1"}}}')
end

function request()
    local session = table.remove(ready)
    if session == nil then
        return initialize
    end
    local headers = {}
    for name, value in pairs(base) do
        headers[name] = value
    end
    headers["Mcp-Session-Id"] = session
    return wrk.format("POST", nil, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}')
end

function response(status, headers, body)
    local session = headers["mcp-session-id"] or headers["Mcp-Session-Id"]
    if status == 200 and session ~= nil then
        table.insert(ready, session)
    elseif status == 202 then
        completed = completed + 1
        if completed == quota then
            common.stop(stopped_file)
        end
    else
        failed = failed + 1
    end
end

function done(summary, latency, requests)
    local completed_sessions, failures = 0, 0
    for _, thread in ipairs(common.threads) do
        completed_sessions = completed_sessions + thread:get("completed")
        failures = failures + thread:get("failed")
    end
    io.write(string.format('{"sessions":%d,"failures":%d}\n', completed_sessions, failures))
end
