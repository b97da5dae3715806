//! Dispatch overhead: `ToolRegistry::call` of a small tool with a three-field argument
//! struct, from the JSON text a provider sends to the result — lookup, parsing,
//! validation, deserialization, the guarded call (timeout, cancellation, panic catching)
//! and output conversion.

use std::hint::black_box;

use agent_tools::{AuditEvent, AuditSink, ToolCall, ToolRegistry, tool};
use criterion::{Criterion, criterion_group, criterion_main};
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `lookup`.
#[derive(Deserialize, JsonSchema)]
struct LookupArgs {
    /// What to look up.
    key: String,
    /// How many results.
    limit: u32,
    /// Whether to include archived entries.
    archived: bool,
}

/// Look up a key.
#[tool(read_only)]
async fn lookup(args: LookupArgs) -> String {
    if args.archived {
        args.key
    } else {
        format!("{}:{}", args.key, args.limit)
    }
}

/// An audit sink that only counts, to measure building and redacting the event.
struct CountingSink(std::sync::atomic::AtomicU64);

impl AuditSink for CountingSink {
    fn record(&self, event: &AuditEvent) {
        black_box(event);
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

const ARGUMENTS: &str = r#"{"key": "user:42", "limit": 10, "archived": false}"#;

fn dispatch(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut group = c.benchmark_group("dispatch");

    let registry = ToolRegistry::new();
    registry.register(LookupTool).expect("registers");
    group.bench_function("call", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = registry.call(ToolCall::new("call_1", "lookup", ARGUMENTS)).await;
            black_box(result)
        });
    });

    let audited = ToolRegistry::builder()
        .audit(CountingSink(std::sync::atomic::AtomicU64::new(0)))
        .build();
    audited.register(LookupTool).expect("registers");
    group.bench_function("call_audited", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = audited.call(ToolCall::new("call_1", "lookup", ARGUMENTS)).await;
            black_box(result)
        });
    });

    group.bench_function("call_invalid", |b| {
        b.to_async(&runtime).iter(|| async {
            let arguments = r#"{"key": 42, "limit": -1, "archive": true}"#;
            let result = registry.call(ToolCall::new("call_1", "lookup", arguments)).await;
            black_box(result)
        });
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
