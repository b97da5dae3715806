#!/usr/bin/env bash
# Ours (`serve --http --stateless`) against rmcp's own stateless server at one
# concurrency, in alternating rounds. benches/serve_load.sh measures one server's rows
# after another's, so on a machine whose speed drifts during the run (a shared VM's does)
# the server measured while it is fast wins; here both servers run side by side and take
# turns (ours first in odd rounds, rmcp's in even ones), each round the same wrk load of
# `echo` calls. The table gives every round and the totals: requests/s over all rounds
# and CPU seconds per 1,000 calls.
#
#   benches/serve_alternate.sh                        # 4 rounds of 20,000 calls, 16 connections
#   ROUNDS=6 CONCURRENCY=256 benches/serve_alternate.sh
#
# Needs wrk (sudo apt-get install -y wrk); builds the servers of benches/serve_load.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/serve_load/common.sh

REQUESTS=${REQUESTS:-20000}
ROUNDS=${ROUNDS:-4}
CONCURRENCY=${CONCURRENCY:-16}
if ! command -v wrk >/dev/null; then
    echo "serve_alternate.sh needs wrk: sudo apt-get install -y wrk" >&2
    exit 1
fi
build_servers
clean_up_on_exit

mkdir -p "$scratch/workspace"
ours_port=$(free_port)
"$ours" --workspace "$scratch/workspace" --memory-db "$scratch/memory.db" \
    serve --http "127.0.0.1:$ours_port" --stateless >/dev/null 2>&1 &
pids+=($!)
rmcp_port=$(free_port)
"$rmcp_server" "$rmcp_port" >/dev/null 2>&1 &
pids+=($!)
wait_ready "$ours_port"
wait_ready "$rmcp_port"

# One line per round and server for alternate.py: round, name, CPU before, after, report.
names=("agent-tools" "rmcp 3.11.0")
ports=("$ours_port" "$rmcp_port")
for round in $(seq 1 "$ROUNDS"); do
    order=(0 1)
    [ $((round % 2)) = 0 ] && order=(1 0)
    for server in "${order[@]}"; do
        before=$(cpu_seconds "${pids[$server]}")
        report=$(run_wrk 2 "$CONCURRENCY" benches/serve_load/call.lua \
            "http://127.0.0.1:${ports[$server]}/mcp" "$((REQUESTS / 2))" echo "$echo_arguments" "")
        after=$(cpu_seconds "${pids[$server]}")
        printf '%s\t%s\t%s\t%s\t%s\n' "$round" "${names[$server]}" "$before" "$after" "$report"
    done
done >"$scratch/rounds.tsv"
"$python" benches/serve_load/alternate.py "$CONCURRENCY" <"$scratch/rounds.tsv"
