# What benches/serve_load.sh, serve_alternate.sh and serve_callgrind.sh share, sourced
# from the repository's root: the servers they build, the `echo` call, a process's CPU
# time, a scratch directory and servers cleaned up on exit, a free loopback port, posting
# a JSON-RPC message, waiting for a server to answer, and running wrk until its threads
# have sent their share. Each script sets `scratch` (a temporary directory) before
# running wrk.

python=target/py-tools/bin/python
# Ours (the command line as shipped plus `echo`) and rmcp's own server, built in release.
ours=target/release/examples/serve_echo
rmcp_server=target/bench-tools/rmcp-server/release/serve-load-rmcp

# Builds both servers (and py-tools, for the port and the report).
build_servers() {
    [ -x "$python" ] || scripts/py-tools
    cargo build --release --quiet -p agent-tools-cli --example serve_echo
    CARGO_TARGET_DIR=target/bench-tools/rmcp-server cargo build --release --quiet --locked \
        --manifest-path benches/serve_load/rmcp_server/Cargo.toml
}

# The `echo` call every script sends.
echo_arguments='{"message":"hello"}'

# The CPU seconds (user + system) process $1 has used.
cpu_seconds() {
    awk -v tick="$(getconf CLK_TCK)" '{ print ($14 + $15) / tick }' "/proc/$1/stat"
}

# Makes `scratch`, a temporary directory, and `pids`, the servers started in the
# background; on exit the servers are stopped and the directory removed.
clean_up_on_exit() {
    scratch=$(mktemp -d)
    pids=()
    trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$scratch"' EXIT
}

free_port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

headers=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'
    -H 'MCP-Protocol-Version: 2025-11-25')
initialize='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"serve_load","version":"1"}}}'

# Posts one JSON-RPC message ($2) to the server on port $1 (more curl options after).
post() {
    local port=$1 body=$2
    shift 2
    curl -sf -X POST "${headers[@]}" "$@" -d "$body" "http://127.0.0.1:$port/mcp"
}

# Waits until the server on port $1 answers an `initialize`, for up to $2 tenths of a
# second (default 200: 20 s; a server under valgrind starts slowly).
wait_ready() {
    for _ in $(seq 1 "${2:-200}"); do
        post "$1" "$initialize" -o /dev/null && return 0
        sleep 0.1
    done
    echo "the server on port $1 did not come up" >&2
    return 1
}

# Runs wrk with $1 threads and $2 connections, script $3, on URL $4, and prints the
# script's JSON line; the script's arguments follow, after the stop files' prefix it is
# given first. wrk runs for its whole -d even after every thread stopped at its count, so
# it is ended (SIGINT: it reports and exits) once every thread has said it stopped.
run_wrk() {
    local threads=$1 connections=$2 script=$3 url=$4 wrk_pid
    shift 4
    rm -f "$scratch"/stopped.*
    wrk -t "$threads" -c "$connections" -d 10m --timeout 30s -s "$script" "$url" -- \
        "$scratch/stopped" "$@" >"$scratch/wrk.out" &
    wrk_pid=$!
    while kill -0 "$wrk_pid" 2>/dev/null &&
        [ "$(find "$scratch" -maxdepth 1 -name 'stopped.*' | wc -l)" -lt "$threads" ]; do
        sleep 0.01
    done
    kill -INT "$wrk_pid" 2>/dev/null || true
    wait "$wrk_pid" || true
    tail -n 1 "$scratch/wrk.out"
}
