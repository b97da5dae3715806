//! Converting hostile pages with `web_fetch`: each nested page of
//! `test_support::hostile_pages` (10^5 deep), the flat page of 10^6 elements and the
//! page of megabyte attributes, to Markdown — and, for scale, a real article.
//!
//! Each page is served by an HTTP server on loopback and fetched through the registry as
//! a user's call is: JSON arguments, validation against the schema, the request (the SSRF
//! guard off for loopback), the download, the conversion on the blocking pool, the
//! paging and the result. So the figures hold the download of the page over loopback as
//! well as its conversion; `flat-raw` (the flat page as sent, unconverted) shows about
//! what the fetch alone costs for 8 MB.
//!
//! `cargo bench -p agent-tools-builtins --bench html`. Each conversion takes up to seconds, so
//! the samples are few.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use agent_tools_builtins::web::FetchConfig;
use agent_tools_builtins::{Builtins, Workspace};
use agent_tools_core::{ToolCall, ToolRegistry, ToolResult};
use axum::body::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};

use test_support::hostile_pages;
use test_support::page_server;

const ARTICLE: &str = include_str!("../tests/fixtures/web/article.html");
/// The most characters `web_fetch` returns in one call.
const MAX_CHARS: usize = 200_000;
/// Room for the largest page (8 MB), so that none is cut before it is converted.
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// A loopback server of the pages and a registry whose `web_fetch` may reach it.
struct Harness {
    base: String,
    registry: ToolRegistry,
    _temp: tempfile::TempDir,
}

impl Harness {
    fn new(runtime: &tokio::runtime::Runtime, pages: HashMap<String, Bytes>) -> Self {
        // The server task lives on in the multi-threaded runtime after `block_on` returns.
        let base = runtime.block_on(page_server::serve_pages(pages));

        let temp = tempfile::tempdir().expect("a temporary directory");
        let workspace = Workspace::open(temp.path()).expect("the workspace opens");
        let fetch = FetchConfig::default()
            .allow_private_network(true)
            .max_body_bytes(MAX_BODY_BYTES);
        let builtins = Builtins::builder(workspace)
            .fetch(fetch)
            .build()
            .expect("the configuration is valid");
        let registry = ToolRegistry::new();
        Arc::new(builtins)
            .register_all(&registry)
            .expect("the tools register");
        Self {
            base,
            registry,
            _temp: temp,
        }
    }

    async fn fetch(&self, name: &str, format: &str, start_char: usize) -> ToolResult {
        let arguments = page_server::fetch_arguments(&self.base, name, format, MAX_CHARS, start_char);
        self.registry
            .call(ToolCall::new("c", "web_fetch", arguments))
            .await
    }
}

/// The page fetched whole and converted: its content, not an error.
fn fetched(runtime: &tokio::runtime::Runtime, harness: &Harness, name: &str, format: &str) -> String {
    let result = runtime.block_on(harness.fetch(name, format, 0));
    let text = result.text();
    assert!(!result.is_error(), "{name} as {format}: {text:.500}");
    assert!(
        !text.contains("Body: truncated"),
        "{name} as {format}: {text:.500}"
    );
    text
}

/// The page's marker is in its Markdown (in the last part, if the content is longer than
/// one call returns).
fn check_marker(runtime: &tokio::runtime::Runtime, harness: &Harness, name: &str, marker: &str) {
    let text = fetched(runtime, harness, name, "markdown");
    let text = match page_server::total_chars(&text) {
        Some(total) => {
            let last = runtime.block_on(harness.fetch(name, "markdown", total.saturating_sub(MAX_CHARS)));
            assert!(!last.is_error(), "{name}: {:.500}", last.text());
            last.text()
        }
        None => text,
    };
    assert!(text.contains(marker), "{name}: {text:.1000}");
}

fn hostile_pages(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let mut pages = hostile_pages::nested_pages();
    pages.push(hostile_pages::flat_page());
    pages.push(hostile_pages::huge_attributes_page());
    let mut served = HashMap::from([("article".to_owned(), Bytes::from_static(ARTICLE.as_bytes()))]);
    for page in &pages {
        eprintln!("{}: {} bytes", page.name, page.html.len());
        served.insert(page.name.to_owned(), Bytes::from(page.html.clone()));
    }
    let harness = Harness::new(&runtime, served);
    let harness = &harness;

    fetched(&runtime, harness, "article", "markdown");
    let mut group = c.benchmark_group("html");
    group.sample_size(10).warm_up_time(Duration::from_millis(1));
    group.bench_function("article", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(harness.fetch("article", "markdown", 0).await) })
    });
    for page in &pages {
        check_marker(&runtime, harness, page.name, page.marker);
        let name = page.name;
        group.bench_function(name, |b| {
            b.to_async(&runtime)
                .iter(|| async { black_box(harness.fetch(name, "markdown", 0).await) })
        });
    }
    let raw = fetched(&runtime, harness, "flat", "raw");
    assert!(raw.contains("Title: Hostile\n"), "flat as raw: {raw:.500}");
    group.bench_function("flat-raw", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(harness.fetch("flat", "raw", 0).await) })
    });
    group.finish();
}

criterion_group!(benches, hostile_pages);
criterion_main!(benches);
