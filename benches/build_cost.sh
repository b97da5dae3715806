#!/usr/bin/env bash
# What defining one tool costs at build time, by dependency: for each row, a ten-line
# program that defines one tool and calls it, as a fresh project with its own empty
# target directory; printed are the packages it builds (`cargo tree -e normal`, the
# program included) and the wall-clock time of its clean `cargo build` (debug).
#
#   benches/build_cost.sh            # every row, a b c d (about ten minutes of two cores)
#   benches/build_cost.sh cd         # only rows c and d (also `c d` or `c,d`)
#
#   a  agent-tools, default features
#   b  agent-tools, default-features = false
#   c  tool-core + tool-macros, what `#[tool]` and `ToolRegistry` need
#   d  rmcp 3.11 (server, macros, transport-io): the same tool with rmcp's `#[tool]`,
#      served over stdio, since an rmcp tool is called by an MCP client
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
    rows=abcd
else
    rows=$(printf '%s' "$*" | tr -d ' ,')
fi
case $rows in
    *[!abcd]* | '')
        echo "usage: $0 [ROWS]   ROWS: letters of a b c d (default: all)" >&2
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
        a) dependencies="agent-tools = { path = $(toml_path "$repo") }" krate=agent_tools ;;
        b) dependencies="agent-tools = { path = $(toml_path "$repo"), default-features = false }" krate=agent_tools ;;
        c) dependencies="tool-core = { path = $(toml_path "$repo/tool-core") }
tool-macros = { path = $(toml_path "$repo/tool-macros") }" krate=tool_core ;;
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
    if [ "$row" = d ]; then
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
        # `tool` comes from the facade, or from tool-macros next to tool-core.
        local macro=$krate
        [ "$row" = c ] && macro=tool_macros
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
    [a]='`agent-tools` (default features)'
    [b]='`agent-tools`, `default-features = false`'
    [c]='`tool-core` + `tool-macros`'
    [d]='`rmcp` 3.11 (`server`, `macros`, `transport-io`)'
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
    crates[$row]=$(cargo tree --offline -e normal --prefix none --format '{p}' \
        | awk '{ print $1, $2 }' | sort -u | wc -l)
    echo "build_cost: row $row: building (${crates[$row]} crates)" >&2
    start=$EPOCHREALTIME
    cargo build --offline --quiet
    end=$EPOCHREALTIME
    seconds[$row]=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
    # The program must also do what it says: the call returns the sum. (The rmcp server
    # would wait for a client.)
    if [ "$row" != d ] && [ "$("$CARGO_TARGET_DIR/debug/build-cost-$row")" != 5 ]; then
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
for row in a b c d; do
    [ -n "${seconds[$row]:-}" ] || continue
    echo "| ($row) ${label[$row]} | ${crates[$row]} | ${seconds[$row]} s |"
done
if [ -n "${seconds[b]:-}" ] && [ -n "${seconds[c]:-}" ]; then
    awk -v cb="${crates[b]}" -v cc="${crates[c]}" -v tb="${seconds[b]}" -v tc="${seconds[c]}" \
        'BEGIN { printf "\n(b) / (c): %.2f× the crates, %.2f× the clean build time\n", cb / cc, tb / tc }'
fi
