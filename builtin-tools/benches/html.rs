//! Converting hostile pages, as `web_fetch` does after the download: each nested page of
//! `tests/support/hostile_pages.rs` (10^5 deep), the flat page of 10^6 elements and the
//! page of megabyte attributes, to Markdown — and, for scale, a real article.
//!
//! `cargo bench -p builtin-tools --bench html`. Each conversion takes up to seconds, so
//! the samples are few.

use std::hint::black_box;
use std::time::Duration;

use builtin_tools::web::__fuzz::render_body;
use builtin_tools::web::FetchFormat;
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../../tests/support/hostile_pages.rs"]
mod hostile_pages;

const ARTICLE: &str = include_str!("../tests/fixtures/web/article.html");

fn convert(html: &str, format: FetchFormat) -> (Option<String>, String) {
    render_body(Some("text/html"), html.as_bytes(), "https://example.com/", format).expect("HTML is textual")
}

fn hostile_pages(c: &mut Criterion) {
    let mut group = c.benchmark_group("html");
    group.sample_size(10).warm_up_time(Duration::from_millis(1));
    group.bench_function("article", |b| {
        b.iter(|| black_box(convert(ARTICLE, FetchFormat::Markdown)))
    });
    let mut pages = hostile_pages::nested_pages();
    pages.push(hostile_pages::flat_page());
    pages.push(hostile_pages::huge_attributes_page());
    for page in &pages {
        eprintln!("{}: {} bytes", page.name, page.html.len());
        let (_, text) = convert(&page.html, FetchFormat::Markdown);
        assert!(text.contains(page.marker), "{}: {text:.200}", page.name);
        group.bench_function(page.name, |b| {
            b.iter(|| black_box(convert(&page.html, FetchFormat::Markdown)))
        });
    }
    let flat = hostile_pages::flat_page();
    group.bench_function("flat-raw", |b| {
        b.iter(|| black_box(convert(&flat.html, FetchFormat::Raw)))
    });
    group.finish();
}

criterion_group!(benches, hostile_pages);
criterion_main!(benches);
