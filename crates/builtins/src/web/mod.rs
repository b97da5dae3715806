//! The web tools: `web_fetch` reads a URL, `web_search` asks the Brave Search API.
//!
//! A fetch is driven by the model, and so by whatever text the model last read: a page
//! can ask it to fetch `http://169.254.169.254/latest/meta-data/` or an admin panel on
//! the local network. [`Fetcher`] therefore reaches only public internet addresses
//! unless configured otherwise. The guard judges IP literals in the URL before any
//! request, and host names inside the HTTP client's own resolver: checking a name and
//! letting the client resolve it again would let a DNS server answer the check with a
//! public address and the connection with `127.0.0.1` (DNS rebinding), so there is one
//! resolution, and its checked answer is what the client connects to. Redirects are
//! followed by hand so that every hop is judged the same way.
//!
//! Bodies are read as a stream and capped after decompression; pages are reduced to
//! their main content (Readability) and converted to Markdown, so that a model spends
//! its context on the article, not on navigation and scripts.
//!
//! With the `shell` feature alone this module holds only what `exec`'s network allow-list
//! shares with it: the SSRF guard (`ssrf_guard`, `address`), the guarded proxy (`proxy`,
//! `client_hello`) and [`FetchConfig`]; the tools come with the `web` feature.

mod address;
#[cfg(feature = "web")]
pub(crate) mod body;
#[cfg(feature = "web")]
mod client;
mod client_hello;
mod config;
#[cfg(feature = "web")]
mod content;
#[cfg(feature = "web")]
mod deadline;
#[cfg(feature = "web")]
mod html;
pub(crate) mod proxy;
#[cfg(feature = "web")]
mod resolve;
#[cfg(feature = "web")]
mod search;
pub(crate) mod ssrf_guard;
#[cfg(feature = "web")]
mod web_fetch;

#[cfg(feature = "web")]
pub use client::{FetchError, Fetched, Fetcher};
pub use config::FetchConfig;
#[cfg(feature = "web")]
pub use content::FetchFormat;
#[cfg(feature = "web")]
pub(crate) use search::web_search;
#[cfg(feature = "web")]
pub use search::{BRAVE_ENDPOINT, SearchConfig, Searcher, WebSearchArgs};
#[cfg(feature = "web")]
pub(crate) use web_fetch::web_fetch;
#[cfg(feature = "web")]
pub use web_fetch::{DEFAULT_MAX_CHARS, WebFetchArgs};

/// Entry point for the `html_markdown` fuzz target (`fuzz/`), not part of the API: the
/// body conversion of `web_fetch` without the network, which is otherwise reachable
/// only through a fetch. Compiled only by `cargo fuzz` (`cfg(fuzzing)`).
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod __fuzz {
    use super::FetchFormat;
    use super::content::{BodyKind, classify, render};
    use super::deadline::Deadline;

    /// Classifies `body` as `web_fetch` does and, when it is textual, renders it in
    /// `format`: the title and text the model would read.
    pub fn render_body(
        content_type: Option<&str>,
        body: &[u8],
        url: &str,
        format: FetchFormat,
    ) -> Option<(Option<String>, String)> {
        match classify(content_type, body) {
            BodyKind::Image(_) | BodyKind::Binary(_) => None,
            kind => {
                let rendered = render(&kind, body, content_type, url, format, &Deadline::none()).ok()?;
                Some((rendered.title, rendered.text))
            }
        }
    }
}

#[cfg(all(test, feature = "web"))]
mod tests;
