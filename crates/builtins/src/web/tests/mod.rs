//! Tests of the web tools against real HTTP servers on 127.0.0.1 (axum, one per test,
//! on a port the kernel picks). Nothing here talks to any other address: hosts that
//! would resolve elsewhere are refused before a connection is made.

mod content;
mod proxy;
mod search;
mod ssrf_guard;
mod tls;

use std::net::SocketAddr;
use std::time::Duration;

use agent_tools_core::{ToolContext, ToolOutput};
use axum::Router;

use super::{FetchConfig, FetchFormat, Fetcher, WebFetchArgs, web_fetch};

/// Serves `app` on a fresh loopback port until the test's runtime ends.
async fn serve(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// A fetcher with the guard off, for tests of content handling on loopback servers.
fn open_fetcher() -> Fetcher {
    Fetcher::new(FetchConfig::default().allow_private_network(true)).unwrap()
}

/// A fetcher with a short timeout, for tests that expect no answer.
fn short_fetcher(config: FetchConfig) -> Fetcher {
    Fetcher::new(config.timeout(Duration::from_secs(5))).unwrap()
}

/// The context of a call made directly, without a registry: no deadline of its own.
fn ctx() -> ToolContext {
    ToolContext::new("test")
}

fn args(url: &str) -> WebFetchArgs {
    WebFetchArgs {
        url: url.to_owned(),
        format: None,
        max_chars: None,
        start_char: None,
    }
}

/// `web_fetch` of `url` in `format`, as its text or its error message.
async fn fetch_as(fetcher: &Fetcher, url: &str, format: FetchFormat) -> Result<String, String> {
    let args = WebFetchArgs {
        format: Some(format),
        ..args(url)
    };
    web_fetch(fetcher, args, &ctx())
        .await
        .map(|output: ToolOutput| output.text_content())
        .map_err(|error| error.to_string())
}

#[test]
fn the_tools_can_run_on_any_thread() {
    fn send<T: Send>(_: &T) {}
    fn shared<T: Send + Sync + Clone>() {}
    shared::<Fetcher>();
    shared::<super::Searcher>();
    let fetcher = open_fetcher();
    send(&web_fetch(&fetcher, args("http://example.com/"), &ctx()));
    let searcher = super::Searcher::new(super::SearchConfig::new("key")).unwrap();
    let query = super::WebSearchArgs {
        query: "q".into(),
        count: None,
        offset: None,
    };
    send(&super::web_search(&searcher, query));
}
