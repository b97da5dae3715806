//! `memory_search` over 1,000,000 memories, on PostgreSQL and on SQLite, in the same run.
//!
//! The corpus is the one of the 100,000-memory benchmark (`support/corpus.rs`), ten
//! times larger, written through `MemoryStore::write` into both stores once and kept:
//! the SQLite file in `target/bench-data/memory-1m.db`, the PostgreSQL cluster (started
//! by this benchmark from Debian's binaries, on a loopback port) in
//! `$TMPDIR/agent-tools-bench-postgres`. Building them takes several minutes the first
//! time; later runs reuse them.
//!
//! Each of the twelve queries is measured on its own (`postgres/<n>`, `sqlite/<n>`),
//! so the median query's time can be read off, and all twelve in rotation
//! (`*/mixed_queries`). Calls go through the registry, as a user's call does.

use std::hint::black_box;

use agent_tools_builtins::memory::MemoryStore;
use agent_tools_core::{ToolCall, ToolRegistry, ToolResult};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

#[path = "support/corpus.rs"]
mod corpus;
use corpus::{QUERIES, fill, registry, sqlite_corpus};

use test_support::postgres;

/// Memories in each store.
const CORPUS: u64 = 1_000_000;
/// The corpus's version: bump when the generator changes, to build it again.
const VERSION: &str = "v2";
/// Writers filling PostgreSQL at once.
const WRITERS: u64 = 16;

fn search(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let server = postgres::PgServer::persistent(std::env::temp_dir().join("agent-tools-bench-postgres"));
    let postgres = runtime.block_on(postgres_corpus(&server.database_named("memory_1m")));
    let sqlite = sqlite_corpus(&runtime, "memory-1m.db", VERSION, CORPUS);
    let temp = tempfile::tempdir().expect("a temporary directory");
    let mut group = c.benchmark_group("memory_search_1m");
    for (name, store) in [("postgres", postgres), ("sqlite", sqlite)] {
        let registry = registry(temp.path(), store);
        let registry = &registry;
        for (n, query) in QUERIES.iter().enumerate() {
            group.bench_function(format!("{name}/{n:02}"), |b| {
                b.to_async(&runtime).iter(|| run_search(registry, query))
            });
        }
        let mut next = 0;
        group.bench_function(format!("{name}/mixed_queries"), |b| {
            b.to_async(&runtime).iter(|| {
                next = (next + 1) % QUERIES.len();
                run_search(registry, QUERIES[next])
            })
        });
    }
    group.finish();
    eprintln!(
        "queries: {}",
        QUERIES
            .iter()
            .enumerate()
            .map(|(n, q)| format!("{n:02} `{q}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

async fn run_search(registry: &ToolRegistry, query: &str) -> ToolResult {
    let arguments = json!({"query": query});
    let result = registry
        .call(ToolCall::new("c", "memory_search", arguments))
        .await;
    assert!(!result.is_error(), "the search runs: {}", result.text());
    black_box(result)
}

/// The PostgreSQL corpus, built unless complete: `WRITERS` tasks write their share of
/// the memories (each from its own seed), then the statistics the planner uses are
/// gathered (autovacuum would, later).
async fn postgres_corpus(url: &str) -> MemoryStore {
    let store = MemoryStore::postgres(url).await.expect("the store connects");
    if store.count().await.expect("the store counts") == CORPUS {
        return store;
    }
    let client = postgres::client(url).await;
    client
        .batch_execute("TRUNCATE agent_tools_memories")
        .await
        .expect("the table empties");
    let started = std::time::Instant::now();
    let writers = (0..WRITERS).map(|writer| {
        let store = store.clone();
        tokio::spawn(async move { fill(&store, CORPUS / WRITERS, 1000 + writer).await })
    });
    for writer in writers.collect::<Vec<_>>() {
        writer.await.expect("the writer finishes");
    }
    client
        .batch_execute("VACUUM ANALYZE agent_tools_memories")
        .await
        .expect("the table is analyzed");
    eprintln!(
        "built {CORPUS} memories in PostgreSQL in {:.1?}",
        started.elapsed()
    );
    store
}

criterion_group!(benches, search);
criterion_main!(benches);
