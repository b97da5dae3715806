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

use agent_tools_builtins::memory::{MemoryStore, NewMemory};
use agent_tools_core::{ToolCall, ToolRegistry, ToolResult};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;

/// Memories in the search corpus.
const CORPUS: u64 = 100_000;
/// The corpus's version: bump when the generator changes, to build it again.
const VERSION: &str = "v3";

#[path = "support/corpus.rs"]
mod corpus;
use corpus::{QUERIES, Rng, memory_text, registry, sqlite_corpus};

fn search(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let store = sqlite_corpus(&runtime, "memory.db", VERSION, CORPUS);
    // The workspace is only what the builder needs; the store lives outside it.
    let temp = tempfile::tempdir().expect("a temporary directory");
    let registry = registry(temp.path(), store);
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
