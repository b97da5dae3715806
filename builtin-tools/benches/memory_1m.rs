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
use std::path::{Path, PathBuf};
use std::sync::Arc;

use builtin_tools::memory::{MemoryStore, NewMemory};
use builtin_tools::{Builtins, Workspace};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use tokio::runtime::Runtime;
use tool_core::{ToolCall, ToolRegistry, ToolResult};

#[path = "support/corpus.rs"]
mod corpus;
use corpus::{QUERIES, Rng, memory_text, tags};

#[path = "../../tests/support/postgres.rs"]
mod postgres;

/// Memories in each store.
const CORPUS: u64 = 1_000_000;
/// Written next to the SQLite file once it is complete; bump when the generator changes.
const MARKER: &str = "memory-1m.db.complete-v1";
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
    let sqlite = sqlite_corpus(&runtime);
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

fn registry(workspace: &Path, store: MemoryStore) -> ToolRegistry {
    let workspace = Workspace::open(workspace).expect("the workspace opens");
    let builtins = Builtins::builder(workspace)
        .memory(store)
        .build()
        .expect("the configuration is valid");
    let registry = ToolRegistry::new();
    Arc::new(builtins)
        .register_all(&registry)
        .expect("the tools register");
    registry
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
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("a client connects");
    tokio::spawn(connection);
    client
        .batch_execute("TRUNCATE agent_tools_memories")
        .await
        .expect("the table empties");
    let started = std::time::Instant::now();
    let writers = (0..WRITERS).map(|writer| {
        let store = store.clone();
        tokio::spawn(async move {
            let mut rng = Rng(1000 + writer);
            for _ in 0..CORPUS / WRITERS {
                let memory =
                    NewMemory::new(memory_text(&mut rng), None, &tags(&mut rng)).expect("a valid memory");
                store.write(memory).await.expect("the memory is written");
            }
        })
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

/// The SQLite corpus, built unless complete.
fn sqlite_corpus(runtime: &Runtime) -> MemoryStore {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../bench-data");
    let path = dir.join("memory-1m.db");
    if !dir.join(MARKER).exists() {
        for stale in ["memory-1m.db", "memory-1m.db-wal", "memory-1m.db-shm"] {
            let _ = std::fs::remove_file(dir.join(stale));
        }
        let store = MemoryStore::open(&path).expect("the corpus database opens");
        let started = std::time::Instant::now();
        runtime.block_on(async {
            let mut rng = Rng(42);
            for _ in 0..CORPUS {
                let memory =
                    NewMemory::new(memory_text(&mut rng), None, &tags(&mut rng)).expect("a valid memory");
                store.write(memory).await.expect("the memory is written");
            }
        });
        eprintln!("built {CORPUS} memories in SQLite in {:.1?}", started.elapsed());
        std::fs::write(dir.join(MARKER), "").expect("the marker is written");
    }
    MemoryStore::open(&path).expect("the corpus database opens")
}

criterion_group!(benches, search);
criterion_main!(benches);
