#!/usr/bin/env bash
# Instructions per served call, ours against rmcp's own server: each server runs under
# valgrind's callgrind, wrk (benches/serve_load/call.lua) sends it CALLS `tools/call`s of
# `echo` on 4 keep-alive connections, and the script prints the instructions counted from
# the first call to the last, divided by the calls. Unlike requests/s this does not move
# with the machine's other load, so it tells where a served call's work changed; a
# profile of the same run is left in target/serve-callgrind/callgrind.SERVER for
# `callgrind_annotate`.
#
#   benches/serve_callgrind.sh              # 2,000 calls each, about a minute
#   CALLS=500 benches/serve_callgrind.sh
#
# Needs valgrind and wrk (sudo apt-get install -y valgrind wrk) and the servers that
# benches/serve_load.sh builds (it builds them too).
set -euo pipefail
cd "$(dirname "$0")/.."

CALLS=${CALLS:-2000}
python=target/py-tools/bin/python
for program in valgrind callgrind_control wrk; do
    if ! command -v "$program" >/dev/null; then
        echo "serve_callgrind.sh needs $program: sudo apt-get install -y valgrind wrk" >&2
        exit 1
    fi
done
[ -x "$python" ] || scripts/py-tools
cargo build --release --quiet -p agent-tools-cli --example serve_echo
CARGO_TARGET_DIR=target/bench-tools/rmcp-server cargo build --release --quiet --locked \
    --manifest-path benches/serve_load/rmcp_server/Cargo.toml
out=target/serve-callgrind
mkdir -p "$out"
scratch=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null
    rm -rf "$scratch"
}
trap cleanup EXIT

initialize='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"serve_callgrind","version":"1"}}}'

# Runs server $1 (the command after it, with its port where it says PORT) under callgrind
# and prints its instructions per call.
measure() {
    local name=$1 port profile argument command=()
    shift
    port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    for argument in "$@"; do command+=("${argument//PORT/$port}"); done
    profile="$out/callgrind.$name"
    rm -f "$profile"*
    valgrind --tool=callgrind --callgrind-out-file="$profile" "${command[@]}" >/dev/null 2>"$scratch/valgrind.err" &
    server=$!
    # Valgrind starts slowly; the server is ready when it answers an `initialize`.
    for _ in $(seq 1 600); do
        curl -sf -X POST -H 'Content-Type: application/json' \
            -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-11-25' \
            -d "$initialize" "http://127.0.0.1:$port/mcp" -o /dev/null && break
        sleep 0.1
    done
    callgrind_control --zero "$server" >/dev/null 2>&1
    rm -f "$scratch"/stopped.*
    wrk -t 1 -c 4 -d 10m --timeout 60s -s benches/serve_load/call.lua "http://127.0.0.1:$port/mcp" -- \
        "$scratch/stopped" "$CALLS" echo '{"message":"hello"}' "" >"$scratch/wrk.out" &
    local wrk_pid=$!
    while kill -0 "$wrk_pid" 2>/dev/null && [ ! -e "$scratch/stopped.1" ]; do sleep 0.05; done
    kill -INT "$wrk_pid" 2>/dev/null || true
    wait "$wrk_pid" || true
    callgrind_control --dump "$server" >/dev/null 2>&1
    # The dump is written by the server's next scheduling; wait for its summary line.
    for _ in $(seq 1 200); do
        grep -qs '^summary:' "$profile".* && break
        sleep 0.05
    done
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=
    local instructions
    instructions=$(awk '/^summary:/ { print $2 }' "$profile".* | sort -n | tail -n 1)
    printf '| %s | %s | %s |\n' "$name" "$CALLS" "$((instructions / CALLS))"
}

echo "| server | calls | instructions per call |"
echo "|---|---|---|"
workspace="$scratch/workspace"
mkdir -p "$workspace"
measure agent-tools target/release/examples/serve_echo --workspace "$workspace" serve --http 127.0.0.1:PORT --stateless
measure rmcp target/bench-tools/rmcp-server/release/serve-load-rmcp PORT
