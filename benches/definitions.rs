//! Rendering tool definitions: what an agent loop pays each turn to send its tools to a
//! provider. The registry holds the 14 tools of the dialect test corpus (primitives,
//! options, enums of every representation, maps, recursion, bounds, …) and renders each
//! tool once per set of options; `first_render` measures that first, uncached rendering.

use std::hint::black_box;

use agent_tools::{DefinitionOptions, Dialect, Strict};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../tests/dialects/corpus.rs"]
mod corpus;

fn definitions(c: &mut Criterion) {
    let registry = corpus::registry();
    let mut group = c.benchmark_group("definitions");
    let cases = [
        (
            "openai_chat_strict",
            DefinitionOptions::new(Dialect::OpenAiChat).strict(Strict::Always),
        ),
        (
            "openai_chat_plain",
            DefinitionOptions::new(Dialect::OpenAiChat).strict(Strict::Never),
        ),
        ("anthropic", DefinitionOptions::new(Dialect::Anthropic)),
        ("gemini", DefinitionOptions::new(Dialect::Gemini)),
        ("mcp", DefinitionOptions::new(Dialect::Mcp)),
    ];
    for (name, options) in cases {
        group.bench_function(name, |b| {
            b.iter(|| black_box(registry.definitions_with(black_box(options))))
        });
    }
    group.finish();
}

/// The first rendering, before the registry caches it: every corpus tool transformed.
fn first_render(c: &mut Criterion) {
    let registry = corpus::registry();
    let specs: Vec<_> = registry.tools().iter().map(|tool| tool.spec().clone()).collect();
    let mut group = c.benchmark_group("first_render");
    let cases = [
        (
            "openai_chat_strict",
            DefinitionOptions::new(Dialect::OpenAiChat).strict(Strict::Always),
        ),
        ("gemini", DefinitionOptions::new(Dialect::Gemini)),
    ];
    for (name, options) in cases {
        group.bench_function(name, |b| {
            b.iter(|| {
                for spec in &specs {
                    black_box(options.render(spec));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, definitions, first_render);
criterion_main!(benches);
