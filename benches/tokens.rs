//! What result budgets cost: counting a megabyte of text in OpenAI's `o200k_base`
//! (`tokens/o200k_base_1mb_*`) and by the estimate the other dialects use
//! (`tokens/estimate_1mb`), on prose-like text and on source code; and fitting a 10 MB
//! result to a 25,000-token budget through `ToolRegistry::call`
//! (`fit/10mb_to_25k_*`), where counting stops at the budget, against the same call
//! without a budget (`fit/10mb_no_budget`).

use std::hint::black_box;

use agent_tools::dialect::DefinitionOptions;
use agent_tools::tokens::TokenCounting;
use agent_tools::tool::DynamicTool;
use agent_tools::{Dialect, ToolCall, ToolError, ToolOutput, ToolRegistry};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;

const MB: usize = 1_000_000;

fn prose() -> String {
    let words = "the quick brown fox jumps over the lazy dog while agents call tools ";
    words.repeat(MB / words.len() + 1)[..MB].to_owned()
}

fn code() -> String {
    let source = include_str!("../crates/core/src/registry/dispatch.rs");
    let text = source.repeat(MB / source.len() + 1);
    let mut end = MB;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

fn counting(c: &mut Criterion) {
    let mut group = c.benchmark_group("tokens");
    group.throughput(Throughput::Bytes(MB as u64));
    group.sample_size(20);
    let (prose, code) = (prose(), code());
    // The first count loads the tables; not part of what is measured.
    black_box(TokenCounting::O200kBase.count("warm up"));
    group.bench_function("o200k_base_1mb_prose", |b| {
        b.iter(|| TokenCounting::O200kBase.count(black_box(&prose)))
    });
    group.bench_function("o200k_base_1mb_code", |b| {
        b.iter(|| TokenCounting::O200kBase.count(black_box(&code)))
    });
    group.bench_function("estimate_1mb", |b| {
        b.iter(|| TokenCounting::Estimate.count(black_box(&prose)))
    });
    group.finish();
}

fn registry(budget: Option<usize>) -> ToolRegistry {
    let mut builder = ToolRegistry::builder().max_output_bytes(64 * MB);
    if let Some(tokens) = budget {
        builder = builder.max_result_tokens(tokens);
    }
    let registry = builder.build();
    let text: String = (0..110_000)
        .map(|n| format!("line {n:06}: lorem ipsum dolor sit amet consectetur adipiscing elit\n"))
        .collect();
    let big = DynamicTool::new("big", "Returns 10 MB.", json!({"type": "object"}), move |_, _| {
        let text = text.clone();
        async move { Ok::<_, ToolError>(ToolOutput::text(text)) }
    });
    registry.register(big).unwrap();
    registry
}

fn fitting(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("fit");
    group.sample_size(20);
    let budgeted = registry(Some(25_000));
    let unlimited = registry(None);
    for (name, dialect) in [
        ("openai", Dialect::OpenAiResponses),
        ("anthropic", Dialect::Anthropic),
    ] {
        let call = ToolCall::new("1", "big", "{}").with_definition_options(DefinitionOptions::new(dialect));
        group.bench_function(format!("10mb_to_25k_{name}"), |b| {
            b.iter(|| runtime.block_on(budgeted.call(call.clone())))
        });
    }
    let call = ToolCall::new("1", "big", "{}");
    group.bench_function("10mb_no_budget", |b| {
        b.iter(|| runtime.block_on(unlimited.call(call.clone())))
    });
    group.finish();
}

criterion_group!(benches, counting, fitting);
criterion_main!(benches);
