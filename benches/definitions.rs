//! Rendering tool definitions: what an agent loop pays each turn to send its tools to a
//! provider. The registry holds the 14 tools of the dialect test corpus (primitives,
//! options, enums of every representation, maps, recursion, bounds, …) and renders each
//! tool once per set of options; `first_render` measures that first, uncached rendering.

use std::hint::black_box;

use agent_tools::{
    Dialect,
    dialect::{DefinitionOptions, Strict},
};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../tests/it/dialects/corpus.rs"]
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

/// 100 tools (the corpus under eight prefixes, cut to 100) in every dialect: what a large
/// agent pays for its first turn (`uncached`) and for every turn after (`cached`).
fn hundred_tools(c: &mut Criterion) {
    let corpus = corpus::registry();
    let registry = agent_tools::ToolRegistry::new();
    for copy in 0..8 {
        registry
            .merge(&corpus.with_prefix(&format!("t{copy}_")).expect("valid names"))
            .expect("distinct names");
    }
    let names = registry.names();
    let hundred: Vec<&str> = names.iter().take(100).map(String::as_str).collect();
    let registry = registry.subset(&hundred).expect("registered");
    let specs: Vec<_> = registry.tools().iter().map(|tool| tool.spec().clone()).collect();
    assert_eq!(specs.len(), 100);

    let mut group = c.benchmark_group("definitions_100");
    for dialect in Dialect::ALL {
        let options = DefinitionOptions::new(dialect).strict(Strict::Auto);
        group.bench_function(format!("{}/uncached", dialect.id()), |b| {
            b.iter(|| {
                for spec in &specs {
                    black_box(options.render(spec));
                }
            })
        });
        group.bench_function(format!("{}/cached", dialect.id()), |b| {
            b.iter(|| black_box(registry.definitions_with(black_box(options))))
        });
    }
    group.finish();
}

criterion_group!(benches, definitions, first_render, hundred_tools);
criterion_main!(benches);
