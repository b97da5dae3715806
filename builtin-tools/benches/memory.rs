//! The memory tools at scale: `memory_search` over 100,000 memories, and write
//! throughput.
//!
//! The corpus (`support/corpus.rs`) is built once, through `MemoryStore::write`, into
//! `target/bench-data/memory.db`.
//!
//! `memory_search` is called through the registry as a user's call is: JSON arguments,
//! validation against the schema, the tool body, the output limit and the result. The
//! write throughput is the store's own (`MemoryStore::write`), which `memory_write` calls.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

use builtin_tools::memory::{MemoryStore, NewMemory};
use builtin_tools::{Builtins, Workspace};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use tokio::runtime::Runtime;
use tool_core::{ToolCall, ToolRegistry, ToolResult};

/// Memories in the search corpus.
const CORPUS: u64 = 100_000;
/// Written next to the database once it is complete; bump when the generator changes.
const MARKER: &str = "memory.db.complete-v3";

#[path = "support/corpus.rs"]
mod corpus;
use corpus::{QUERIES, Rng, memory_text, tags};

/// The corpus database, built on first use.
fn corpus(runtime: &Runtime) -> MemoryStore {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../bench-data");
    let path = dir.join("memory.db");
    if !dir.join(MARKER).exists() {
        for stale in ["memory.db", "memory.db-wal", "memory.db-shm"] {
            let _ = std::fs::remove_file(dir.join(stale));
        }
        let store = MemoryStore::open(&path).expect("the corpus database opens");
        let started = std::time::Instant::now();
        runtime.block_on(fill(&store, CORPUS));
        eprintln!("built {} memories in {:.1?}", CORPUS, started.elapsed());
        std::fs::write(dir.join(MARKER), "").expect("the marker is written");
    }
    MemoryStore::open(&path).expect("the corpus database opens")
}

async fn fill(store: &MemoryStore, count: u64) {
    let mut rng = Rng(42);
    for _ in 0..count {
        let tags = tags(&mut rng);
        let memory = NewMemory::new(memory_text(&mut rng), None, &tags).expect("a valid memory");
        store.write(memory).await.expect("the memory is written");
    }
}

fn search(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let store = corpus(&runtime);
    // The workspace is only what the builder needs; the store lives outside it.
    let temp = tempfile::tempdir().expect("a temporary directory");
    let workspace = Workspace::open(temp.path()).expect("the workspace opens");
    let builtins = Builtins::builder(workspace)
        .memory(store)
        .build()
        .expect("the configuration is valid");
    let registry = ToolRegistry::new();
    Arc::new(builtins)
        .register_all(&registry)
        .expect("the tools register");
    let registry = &registry;
    let mut group = c.benchmark_group("memory_search_100k");
    let mut next = 0;
    group.bench_function("mixed_queries", |b| {
        b.to_async(&runtime).iter(|| {
            next = (next + 1) % QUERIES.len();
            run_search(registry, QUERIES[next], &[])
        })
    });
    let cases: [(&str, &str, &[&str]); 4] = [
        ("rare_identifier", "OPS-4821", &[]),
        ("two_words", "redis timeout", &[]),
        ("common_word", "test", &[]),
        ("common_word_tagged", "test", &["billing"]),
    ];
    for (name, query, tags) in cases {
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter(|| run_search(registry, query, tags))
        });
    }
    group.finish();
}

async fn run_search(registry: &ToolRegistry, query: &str, tags: &[&str]) -> ToolResult {
    let arguments = json!({"query": query, "tags": tags});
    let result = registry
        .call(ToolCall::new("c", "memory_search", arguments))
        .await;
    assert!(!result.is_error(), "the search runs: {}", result.text());
    black_box(result)
}

fn write(c: &mut Criterion) {
    const BATCH: u64 = 100;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("a runtime");
    let temp = tempfile::tempdir().expect("a temporary directory");
    let store = MemoryStore::open(temp.path().join("memory.db")).expect("the store opens");
    let mut rng = Rng(7);
    let store = &store;
    let mut group = c.benchmark_group("memory_write");
    group.throughput(Throughput::Elements(BATCH));
    group.bench_function("batch_of_100", |b| {
        b.to_async(&runtime).iter_batched(
            || {
                (0..BATCH)
                    .map(|_| NewMemory::new(memory_text(&mut rng), None, &[]).expect("a valid memory"))
                    .collect::<Vec<_>>()
            },
            |batch| async move {
                for memory in batch {
                    store.write(memory).await.expect("the memory is written");
                }
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, search, write);
criterion_main!(benches);
