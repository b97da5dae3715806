//! `web_fetch` under hostile pages: every page of `support/hostile_pages.rs` (nesting
//! 10^5 deep of each kind of element, a flat page of 10^6 elements, megabyte attributes)
//! and a tag of 10^5 attributes, served by a real HTTP server on loopback and fetched
//! through a registry in every format, as a model would call it.
//!
//! Each call must end with the page's content or a clear message within the call's
//! timeout, the process must survive it (a stack overflow aborts this binary, which the
//! test run shows), and the conversion must leave the async workers free: the runtime
//! here has one thread, shared with the server and the registry's timers.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use agent_tools::builtins::Builtins;
use agent_tools::builtins::Workspace;
use agent_tools::builtins::web::FetchConfig;
use agent_tools::{ToolCall, ToolRegistry, ToolResult, audit::Outcome};

use test_support::hostile_pages;
use test_support::page_server;

use hostile_pages::HostilePage;

/// The registry's timeout for each call.
const CALL_TIMEOUT: Duration = Duration::from_secs(90);
/// The fetch's own time limit, download and conversion included (the default).
const FETCH_TIMEOUT: Duration = Duration::from_secs(30);
/// What a call says when the conversion ran out of time.
const GAVE_UP: &str = "gave up converting the page after";
const FORMATS: [&str; 3] = ["markdown", "text", "raw"];
const MAX_CHARS: usize = 200_000;

/// A loopback server of pages by name and a registry with the built-in tools, the SSRF
/// guard off for loopback.
struct Harness {
    _temp: tempfile::TempDir,
    base: String,
    registry: ToolRegistry,
}

impl Harness {
    async fn new(pages: Vec<HostilePage>, fetch: FetchConfig, timeout: Duration) -> Self {
        let pages: HashMap<String, _> = pages
            .into_iter()
            .map(|page| (page.name.to_owned(), page.html.into()))
            .collect();
        let base = page_server::serve_pages(pages).await;

        let temp = tempfile::tempdir().unwrap();
        let workspace = Workspace::open(temp.path()).unwrap();
        let builtins = Builtins::builder(workspace)
            .fetch(fetch.allow_private_network(true))
            .build()
            .unwrap();
        let registry = ToolRegistry::builder().default_timeout(timeout).build();
        Arc::new(builtins).register_all(&registry).unwrap();
        Self {
            _temp: temp,
            base,
            registry,
        }
    }

    async fn fetch(&self, name: &str, format: &str) -> ToolResult {
        self.fetch_from(name, format, 0).await
    }

    async fn fetch_from(&self, name: &str, format: &str, start_char: usize) -> ToolResult {
        let arguments = page_server::fetch_arguments(&self.base, name, format, MAX_CHARS, start_char);
        self.registry
            .call(ToolCall::new("c", "web_fetch", arguments))
            .await
    }
}

/// The call ended within its timeout, by itself, with content or the conversion's own
/// message; returns whether it was content.
fn assert_ended_well(result: &ToolResult, what: &str) -> bool {
    let text = result.text();
    assert!(
        result.duration < CALL_TIMEOUT,
        "{what}: took {:?}",
        result.duration
    );
    assert!(
        matches!(result.outcome, Outcome::Ok | Outcome::Error),
        "{what}: {:?}: {text:.300}",
        result.outcome
    );
    if result.is_error() {
        assert!(text.contains(GAVE_UP), "{what}: {text:.300}");
        assert!(
            text.contains("format \"raw\" returns the page as sent") || what.ends_with("raw"),
            "{what}: {text}"
        );
    }
    !result.is_error()
}

/// Every page in every format: content with the page's title and its own text (read on
/// to the last part where it is not in the first), or the conversion's message.
async fn fetch_all(pages: Vec<HostilePage>, content_required: bool) {
    let markers: Vec<(&'static str, &'static str)> =
        pages.iter().map(|page| (page.name, page.marker)).collect();
    let harness = Harness::new(pages, FetchConfig::default().timeout(FETCH_TIMEOUT), CALL_TIMEOUT).await;
    for (name, marker) in markers {
        for format in FORMATS {
            let what = format!("{name} as {format}");
            let result = harness.fetch(name, format).await;
            let converted = assert_ended_well(&result, &what);
            assert!(converted || !content_required, "{what}: {}", result.text());
            if !converted {
                continue;
            }
            let text = result.text();
            assert!(text.contains("Title: Hostile\n"), "{what}: {text:.500}");
            if format == "raw" {
                continue;
            }
            match page_server::total_chars(&text) {
                // Reading on costs a second conversion: once per page, in Markdown.
                Some(total) if total > MAX_CHARS => {
                    if format == "markdown" {
                        let last = harness.fetch_from(name, format, total - MAX_CHARS).await;
                        assert!(assert_ended_well(&last, &what), "{what}: {}", last.text());
                        assert!(last.text().contains(marker), "{what}: {:.1000}", last.text());
                    }
                }
                _ => assert!(text.contains(marker), "{what}: {text:.1000}"),
            }
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn deeply_nested_pages_of_every_kind_convert_without_overflow() {
    fetch_all(hostile_pages::nested_pages(), true).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_flat_page_of_a_million_elements_ends_in_time() {
    fetch_all(vec![hostile_pages::flat_page()], false).await;
}

#[tokio::test(flavor = "current_thread")]
async fn megabyte_attributes_are_dropped_not_converted() {
    let page = hostile_pages::huge_attributes_page();
    let harness = Harness::new(
        vec![page],
        FetchConfig::default().timeout(FETCH_TIMEOUT),
        CALL_TIMEOUT,
    )
    .await;
    for format in ["markdown", "text"] {
        let result = harness.fetch("huge-attributes", format).await;
        assert!(assert_ended_well(&result, format), "{}", result.text());
        let text = result.text();
        assert!(text.contains("bottom of the page"), "{text:.1000}");
        assert!(!text.contains("AAAA"), "{format}: {text:.1000}");
        assert!(text.contains("Content: "), "{text:.300}");
    }
    let raw = harness.fetch("huge-attributes", "raw").await;
    assert!(assert_ended_well(&raw, "raw"));
    assert!(raw.text().contains("Title: Hostile\n"), "{:.300}", raw.text());
}

/// One tag of 10^5 attributes: the tokenizer checks each against those before it
/// (quadratic), so it cannot finish in time. The call must still end at the fetch's time
/// limit with the message, and the runtime's single thread must stay free meanwhile: a
/// ticker on it never waits long between ticks, as it would if the conversion ran there.
#[tokio::test(flavor = "current_thread")]
async fn a_page_that_cannot_convert_in_time_ends_at_the_deadline_with_the_workers_free() {
    let attributes: String = (0..100_000).map(|i| format!(" a{i}=\"\"")).collect();
    let slow = HostilePage {
        name: "many-attributes",
        html: format!(
            "<html><head><title>Slow</title></head><body><div{attributes}>text</div></body></html>"
        ),
        marker: "text",
    };
    let fetch_timeout = Duration::from_secs(5);
    let harness = Harness::new(
        vec![slow],
        FetchConfig::default().timeout(fetch_timeout),
        CALL_TIMEOUT,
    )
    .await;
    let done = Arc::new(AtomicBool::new(false));
    let ticker = tokio::spawn({
        let done = Arc::clone(&done);
        async move {
            let mut longest = Duration::ZERO;
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(10)).await;
                longest = longest.max(last.elapsed());
                last = Instant::now();
            }
            longest
        }
    });
    let slow = harness.fetch("many-attributes", "markdown").await;
    done.store(true, Ordering::Relaxed);
    let longest_wait = ticker.await.unwrap();
    assert!(slow.is_error(), "{}", slow.text());
    assert!(slow.text().contains(GAVE_UP), "{}", slow.text());
    assert!(slow.duration < fetch_timeout * 2, "{:?}", slow.duration);
    assert!(
        longest_wait < fetch_timeout / 2,
        "the runtime thread was blocked for {longest_wait:?}"
    );
    // Raw needs only the title, which is in the head, before the slow tag.
    let raw = harness.fetch("many-attributes", "raw").await;
    assert!(raw.text().contains("Title: Slow\n"), "{:.300}", raw.text());
}
