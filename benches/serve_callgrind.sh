#!/usr/bin/env bash
# Instructions per served call, ours against rmcp's own server: each server runs under
# valgrind's callgrind, wrk (benches/serve_load/call.lua) sends it CALLS `tools/call`s of
# `echo` on 4 keep-alive connections, and the script prints the instructions counted from
# the first call to the last, divided by the calls. Unlike requests/s this does not move
# with the machine's other load, so it tells where a served call's work changed; a
# profile of the same run is left in target/serve-callgrind/callgrind.SERVER.1 for
# `callgrind_annotate`.
#
#   benches/serve_callgrind.sh              # 2,000 calls each, under a minute once built
#   CALLS=500 benches/serve_callgrind.sh
#
# Needs valgrind and wrk (sudo apt-get install -y valgrind wrk); builds the servers of
# benches/serve_load.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/serve_load/common.sh

CALLS=${CALLS:-2000}
for program in valgrind callgrind_control wrk; do
    if ! command -v "$program" >/dev/null; then
        echo "serve_callgrind.sh needs $program: sudo apt-get install -y valgrind wrk" >&2
        exit 1
    fi
done
build_servers
out=target/serve-callgrind
mkdir -p "$out"
scratch=$(mktemp -d)
server=
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
    rm -rf "$scratch"
}
trap cleanup EXIT

# Runs server $1 (the command after it, with its port where it says PORT) under callgrind
# and prints its instructions per call.
measure() {
    local name=$1 port profile argument command=()
    shift
    port=$(free_port)
    for argument in "$@"; do command+=("${argument//PORT/$port}"); done
    profile="$out/callgrind.$name"
    rm -f "$profile"*
    valgrind --tool=callgrind --callgrind-out-file="$profile" "${command[@]}" >/dev/null 2>"$scratch/valgrind.err" &
    server=$!
    wait_ready "$port" 600
    # Counted from here: the start-up and the first `initialize` are not a call's work.
    callgrind_control --zero "$server" >/dev/null 2>&1
    run_wrk 1 4 benches/serve_load/call.lua "http://127.0.0.1:$port/mcp" "$CALLS" echo "$echo_arguments" "" >/dev/null
    callgrind_control --dump "$server" >/dev/null 2>&1
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=
    # The dump (part 1) holds the calls; the file written at exit only what came after.
    local instructions
    instructions=$(awk '/^summary:/ { print $2 }' "$profile".1)
    printf '| %s | %s | %s |\n' "$name" "$CALLS" "$((instructions / CALLS))"
}

echo "| server | calls | instructions per call |"
echo "|---|---|---|"
workspace="$scratch/workspace"
mkdir -p "$workspace"
measure agent-tools "$ours" --workspace "$workspace" serve --http 127.0.0.1:PORT --stateless
measure rmcp "$rmcp_server" PORT
