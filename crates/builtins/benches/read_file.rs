//! `read_file` of a 10 MB text file: the first page (2000 numbered lines) and the count
//! of every line after it, streamed, as a model's first look at a large log.
//!
//! Each call goes through the registry as a user's call does: JSON arguments, validation
//! against the schema, the sync body on the blocking pool, the output limit and the
//! result.

use std::hint::black_box;
use std::sync::Arc;

use agent_tools_builtins::{Builtins, Workspace};
use agent_tools_core::{ToolCall, ToolRegistry};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

fn read_large_file(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let temp = tempfile::tempdir().expect("a temporary directory");
    let line = "2026-11-29T12:00:00Z INFO request handled in 12ms path=/api/v1/items status=200\n";
    let text = line.repeat(10 * 1024 * 1024 / line.len());
    std::fs::write(temp.path().join("big.log"), &text).expect("the file is written");
    let ws = Workspace::open(temp.path()).expect("the workspace opens");
    let builtins = Builtins::new(ws).expect("the default configuration is valid");
    let registry = ToolRegistry::new();
    Arc::new(builtins)
        .register_all(&registry)
        .expect("the tools register");
    let read = |arguments: Value| {
        let registry = &registry;
        async move { registry.call(ToolCall::new("c", "read_file", arguments)).await }
    };
    let first_page = json!({"path": "big.log"});
    let last_page = json!({"path": "big.log", "offset": 120_000});
    for arguments in [&first_page, &last_page] {
        let result = runtime.block_on(read(arguments.clone()));
        assert!(!result.is_error(), "the file reads: {}", result.text());
    }

    let mut group = c.benchmark_group("read_file");
    group.bench_function("10mb_first_page", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(read(first_page.clone()).await) })
    });
    group.bench_function("10mb_last_page", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(read(last_page.clone()).await) })
    });
    group.finish();
}

criterion_group!(benches, read_large_file);
criterion_main!(benches);
