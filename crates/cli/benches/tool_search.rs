//! Tool search at scale, all figures in one run:
//!
//! - **payload**: the bytes of the tool list a request carries (and tokens at 4 bytes
//!   each) for the built-in tools plus two mounted servers — `agent-tools serve` as a
//!   stdio child (`inner_`) and the official TypeScript everything server (`ev_`) — with
//!   every tool loaded and with everything deferred, per dialect;
//! - **recall@5** of the queries in `support/tool_catalog.rs` over the built-in tools, the
//!   everything server and 1,000 look-alike tools;
//! - **latency** (criterion): a `tool_search` call through the registry over 1,000
//!   deferred tools, and the first search of a new tool set, which builds the index.
//!
//! Needs Node 22 and the everything server in `target/npm-tools` (`scripts/npm-tools`).

use std::hint::black_box;

use agent_tools::{DefinitionOptions, Dialect, ToolCall, ToolRegistry, ToolSearchMode};
use criterion::{BatchSize, Criterion};
use serde_json::json;

#[path = "../../../tests/support/everything.rs"]
mod everything;
#[path = "../../../benches/support/tool_catalog.rs"]
mod tool_catalog;

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
    tool_catalog::mount(&registry, &everything::everything_server(), "ev_").await;
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
    let registry = tool_catalog::gateway(dir, &everything::everything_server()).await;
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
