//! Tool search at scale, all figures in one run:
//!
//! - **payload**: the bytes of the tool list a request carries (and tokens at 4 bytes
//!   each) for the built-in tools plus two mounted servers — `agent-tools serve` as a
//!   stdio child (`inner_`) and the official TypeScript everything server (`ev_`) — with
//!   every tool loaded and with everything deferred, per dialect;
//! - **recall@5** of the queries of `test_support::tool_catalog` over the built-in tools, the
//!   everything server and 1,000 look-alike tools;
//! - **latency** (criterion): a `tool_search` call through the registry over 1,000
//!   deferred tools, and the first search of a new tool set, which builds the index.
//!
//! Needs Node 22 and the everything server in `target/npm-tools` (`scripts/npm-tools`).

use std::hint::black_box;

use agent_tools::{Dialect, ToolCall, ToolRegistry, dialect::DefinitionOptions, search::ToolSearchMode};
use criterion::{BatchSize, Criterion};
use serde_json::json;

use test_support::everything;

/// The shared catalog (`test_support::tool_catalog`) as registries of ours; the support
/// crate depends on no crate of ours, so this glue is the bench's.
mod tool_catalog {
    use std::path::Path;

    use agent_tools::builtins::{self, BuiltinConfig};
    use agent_tools::mcp::{McpServer, MountMcp as _, MountOptions};
    use agent_tools::{ToolCall, ToolError, ToolOutput, ToolRegistry, tool::DynamicTool};
    pub(crate) use test_support::tool_catalog::{QUERIES, payload_bytes};

    /// Recall at `k` of `tool_search` in `registry`: (queries asked, found, misses).
    pub(crate) async fn recall_at(registry: &ToolRegistry, k: u64) -> (usize, usize, Vec<String>) {
        let search = |arguments| async move {
            registry
                .call(ToolCall::new("q", "tool_search", arguments))
                .await
                .text()
        };
        test_support::tool_catalog::recall_at(k, |name| registry.contains(name), search).await
    }

    /// A registry deferring everything, with `count` synthetic tools.
    pub(crate) fn deferred(count: usize) -> ToolRegistry {
        let registry = ToolRegistry::builder().defer_all().build();
        register_synthetic(&registry, count);
        registry
    }

    fn register_synthetic(registry: &ToolRegistry, count: usize) {
        for tool in test_support::tool_catalog::synthetic_tools(count) {
            let tool = DynamicTool::new(tool.name, tool.description, tool.schema, |_, _| async {
                Ok::<_, ToolError>(ToolOutput::text("done"))
            });
            registry.register(tool).expect("the tool registers");
        }
    }

    /// The gateway the recall is measured on, everything deferred: the built-in tools,
    /// the everything server (its stdio command line `everything`) as `ev_`, and the
    /// 1,000 synthetic tools.
    pub(crate) async fn gateway(dir: &Path, everything: &str) -> ToolRegistry {
        let registry = ToolRegistry::builder().defer_all().build();
        builtins(&registry, dir);
        mount(&registry, everything, "ev_").await;
        register_synthetic(&registry, 1000);
        registry
    }

    /// Mounts a stdio server given as one command line of words without quotes.
    pub(crate) async fn mount(registry: &ToolRegistry, command: &str, prefix: &str) {
        let mut words = command.split(' ');
        let program = words.next().unwrap_or_default();
        registry
            .mount_mcp(
                McpServer::stdio(program, words),
                MountOptions::new().prefix(prefix),
            )
            .await
            .expect("the server mounts");
    }

    /// The built-in tools working in `dir`, their memory beside it.
    pub(crate) fn builtins(registry: &ToolRegistry, dir: &Path) {
        let data = dir.join("data");
        let env = move |name: &str| (name == "XDG_DATA_HOME").then(|| data.display().to_string());
        let workspace = dir.join("ws");
        std::fs::create_dir_all(&workspace).expect("a workspace");
        builtins::register_all_with_env(registry, Some(workspace), &BuiltinConfig::default(), &env)
            .expect("the built-in tools register");
    }
}

/// The everything server's command line; the bench needs it (`scripts/npm-tools`).
fn everything_server() -> String {
    everything::everything_server().expect("Node 22 and the everything server: run scripts/npm-tools")
}

async fn payload(dir: &std::path::Path) {
    let registry = ToolRegistry::builder().defer_all().build();
    tool_catalog::builtins(&registry, dir);
    let inner = format!(
        "{} --workspace {} --memory-db {} serve",
        env!("CARGO_BIN_EXE_agent-tools"),
        dir.join("ws").display(),
        dir.join("inner.db").display()
    );
    tool_catalog::mount(&registry, &inner, "inner_").await;
    tool_catalog::mount(&registry, &everything_server(), "ev_").await;
    let tools = registry.len() - 1;
    eprintln!("payload of {tools} tools (built-ins, inner_, ev_); tokens at 4 bytes each:");
    eprintln!("| dialect | all loaded | deferred, native | deferred, local |");
    for dialect in Dialect::ALL {
        let bytes = |mode| {
            let options = DefinitionOptions::new(dialect).tool_search(mode);
            tool_catalog::payload_bytes(&registry.definitions_with(options))
        };
        let cell = |bytes: usize| format!("{bytes} B ({} tokens)", bytes / 4);
        eprintln!(
            "| {dialect} | {} | {} | {} |",
            cell(bytes(ToolSearchMode::LoadAll)),
            cell(bytes(ToolSearchMode::Native)),
            cell(bytes(ToolSearchMode::Local)),
        );
    }
}

async fn recall(dir: &std::path::Path) {
    let registry = tool_catalog::gateway(dir, &everything_server()).await;
    let (asked, found, misses) = tool_catalog::recall_at(&registry, 5).await;
    eprintln!(
        "recall@5 over {} tools: {found}/{asked} = {:.2}; misses: {misses:#?}",
        registry.len() - 1,
        found as f64 / asked as f64
    );
}

fn latency(c: &mut Criterion, runtime: &tokio::runtime::Runtime) {
    let registry = tool_catalog::deferred(1000);
    let queries: Vec<&str> = tool_catalog::QUERIES.iter().map(|(query, _)| *query).collect();
    let call = |registry: ToolRegistry, query: &'static str| async move {
        let result = registry
            .call(ToolCall::new("s", "tool_search", json!({"query": query})))
            .await;
        assert!(!result.is_error(), "{}", result.text());
        black_box(result)
    };
    let mut group = c.benchmark_group("tool_search_1000");
    let mut next = 0;
    group.bench_function("search", |b| {
        b.to_async(runtime).iter(|| {
            next = (next + 1) % queries.len();
            call(registry.clone(), queries[next])
        })
    });
    group.bench_function("first_search_of_a_new_tool_set", |b| {
        b.to_async(runtime).iter_batched(
            || tool_catalog::deferred(1000),
            |registry| call(registry, "delete a Stripe webhook"),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    runtime.block_on(payload(dir.path()));
    runtime.block_on(recall(dir.path()));
    let mut criterion = Criterion::default().configure_from_args();
    latency(&mut criterion, &runtime);
    criterion.final_summary();
}
