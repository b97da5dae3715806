#!/usr/bin/env bash
# What defining one tool costs at build time, by dependency: for each row, a ten-line
# program that defines one tool and calls it, as a fresh project with its own empty
# target directory; printed are the packages it builds (`cargo tree -e normal`, the
# program included) and the wall-clock time of its clean `cargo build` (debug).
#
#   benches/build_cost.sh            # every row, a b c d e (about fifteen minutes of two cores)
#   benches/build_cost.sh ac         # only rows a and c (also `a c` or `a,c`)
#
#   a  agent-tools-sdk (the facade), default features: the core
#   b  agent-tools-sdk with `builtins` and `mcp`: every built-in tool, served over MCP
#   c  agent-tools-core + agent-tools-macros, what `#[tool]` and `ToolRegistry` need
#   d  rmcp 3.11 (server, macros, transport-io): the same tool with rmcp's `#[tool]`,
#      served over stdio, since an rmcp tool is called by an MCP client
#   e  agent-tools-cli, the command line (`cargo install agent-tools-cli`): its own
#      binary rather than the ten-line program
#
# The agent-tools crates are path dependencies on the checkout this script is in. The
# projects start from its Cargo.lock, so the packages they share with it have the
# versions it is tested with. Everything is downloaded before the clock starts (into the
# shared CARGO_HOME; the rows that need nothing new stay offline), so the time is
# compilation only. The projects are outside the repository, so its .cargo/config.toml
# (less debug info) does not apply: each builds as a user's project would. Jobs are
# cargo's default, or CARGO_BUILD_JOBS.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

if [ "$#" -eq 0 ]; then
    rows=abcde
else
    rows=$(printf '%s' "$*" | tr -d ' ,')
fi
case $rows in
    *[!abcde]* | '')
        echo "usage: $0 [ROWS]   ROWS: letters of a b c d e (default: all)" >&2
        exit 2
        ;;
esac

# A cached compiler (sccache and the like) would make a clean build no measure at all.
unset RUSTC_WRAPPER CARGO_BUILD_RUSTC_WRAPPER
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A TOML string holding the path $1.
toml_path() {
    local path=${1//\\/\\\\}
    printf '"%s"' "${path//\"/\\\"}"
}

# Writes row $1's project into directory $2.
write_project() {
    local row=$1 dir=$2 dependencies krate
    case $row in
        a) dependencies="agent-tools-sdk = { path = $(toml_path "$repo") }" krate=agent_tools ;;
        b) dependencies="agent-tools-sdk = { path = $(toml_path "$repo"), features = [\"builtins\", \"mcp\"] }" krate=agent_tools ;;
        c) dependencies="agent-tools-core = { path = $(toml_path "$repo/crates/core") }
agent-tools-macros = { path = $(toml_path "$repo/crates/macros") }" krate=agent_tools_core ;;
        e) dependencies="agent-tools-cli = { path = $(toml_path "$repo/crates/cli") }" ;;
        d) dependencies='rmcp = { version = "3.11", default-features = false, features = ["server", "macros", "transport-io"] }
serde = { version = "1", features = ["derive"] }' ;;
    esac
    mkdir -p "$dir/src"
    # Every row runs its tool on Tokio; all four libraries depend on it anyway.
    cat > "$dir/Cargo.toml" <<EOF
[package]
name = "build-cost-$row"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
$dependencies
tokio = { version = "1", features = ["rt", "macros"] }

# Not part of any workspace that happens to enclose the temporary directory.
[workspace]
EOF
    if [ "$row" = e ]; then
        # The command line's own package is built, from the checkout (as `cargo install
        # --path crates/cli` would, but in debug like the other rows); this project is
        # only where the build runs from, outside the repository's configuration.
        echo 'fn main() {}' > "$dir/src/main.rs"
    elif [ "$row" = d ]; then
        cat > "$dir/src/main.rs" <<'EOF'
use rmcp::{ServiceExt, handler::server::wrapper::Parameters, schemars, tool, tool_router};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs { a: i64, b: i64 }

#[derive(Clone)]
struct Calculator;

#[tool_router(server_handler)]
impl Calculator {
    /// Add two numbers.
    #[tool]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String { (a + b).to_string() }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    Calculator.serve(rmcp::transport::stdio()).await?.waiting().await?;
    Ok(())
}
EOF
    else
        # `tool` comes from the facade, or from agent-tools-macros next to agent-tools-core.
        local macro=$krate
        [ "$row" = c ] && macro=agent_tools_macros
        cat > "$dir/src/main.rs" <<EOF
use $krate::{ToolCall, ToolRegistry};
use $macro::tool;

/// Add two numbers.
#[tool]
async fn add(a: i64, b: i64) -> String { (a + b).to_string() }

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = ToolRegistry::new();
    registry.register(AddTool).unwrap();
    println!("{}", registry.call(ToolCall::new("1", "add", r#"{"a": 2, "b": 3}"#)).await.text());
}
EOF
    fi
    cp "$repo/Cargo.lock" "$dir/Cargo.lock"
}

# shellcheck disable=SC2016 # backticks for Markdown, not commands
declare -A label=(
    [a]='`agent-tools-sdk` (default features)'
    [b]='`agent-tools-sdk`, features `builtins`, `mcp`'
    [c]='`agent-tools-core` + `agent-tools-macros`'
    [d]='`rmcp` 3.11 (`server`, `macros`, `transport-io`)'
    [e]='`agent-tools-cli` (the `agent-tools` binary)'
)
declare -A crates seconds

for row in $(printf '%s' "$rows" | fold -w1 | awk '!seen[$0]++'); do
    dir="$work/$row"
    write_project "$row" "$dir"
    cd "$dir"
    export CARGO_TARGET_DIR="$dir/target"
    echo "build_cost: row $row: fetching" >&2
    cargo fetch --offline --quiet 2>/dev/null || cargo fetch --quiet
    # Distinct packages, by name and version (a package's later appearances in the tree
    # are marked `(*)`, proc macros `(proc-macro)`).
    if [ "$row" = e ]; then
        tree=(--manifest-path "$repo/crates/cli/Cargo.toml" -p agent-tools-cli)
    else
        tree=()
    fi
    crates[$row]=$(cargo tree --offline "${tree[@]}" -e normal --prefix none --format '{p}' \
        | awk '{ print $1, $2 }' | sort -u | wc -l)
    echo "build_cost: row $row: building (${crates[$row]} crates)" >&2
    start=$EPOCHREALTIME
    if [ "$row" = e ]; then
        cargo build --offline --quiet --manifest-path "$repo/crates/cli/Cargo.toml" --bin agent-tools
    else
        cargo build --offline --quiet
    fi
    end=$EPOCHREALTIME
    seconds[$row]=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
    # The program must also do what it says: the call returns the sum. (The rmcp server
    # would wait for a client.)
    if [ "$row" != d ] && [ "$row" != e ] && [ "$("$CARGO_TARGET_DIR/debug/build-cost-$row")" != 5 ]; then
        echo "build_cost: row $row's program did not print 5" >&2
        exit 1
    fi
    rm -rf "$CARGO_TARGET_DIR"
    cd "$repo"
done

echo
echo "$(rustc --version), ${CARGO_BUILD_JOBS:-$(nproc)} jobs"
echo
echo "| dependency | crates | clean build |"
echo "|---|---|---|"
for row in a b c d e; do
    [ -n "${seconds[$row]:-}" ] || continue
    echo "| ($row) ${label[$row]} | ${crates[$row]} | ${seconds[$row]} s |"
done
if [ -n "${seconds[a]:-}" ] && [ -n "${seconds[c]:-}" ]; then
    awk -v ca="${crates[a]}" -v cc="${crates[c]}" -v ta="${seconds[a]}" -v tc="${seconds[c]}" \
        'BEGIN { printf "\n(a) / (c): %.2f× the crates, %.2f× the clean build time\n", ca / cc, ta / tc }'
fi
