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

mod address;
pub(crate) mod body;
mod client;
mod config;
mod content;
mod deadline;
mod html;
pub(crate) mod proxy;
mod resolve;
mod search;
pub(crate) mod ssrf_guard;
mod web_fetch;

pub use client::{FetchError, Fetched, Fetcher};
pub use config::FetchConfig;
pub use content::FetchFormat;
pub(crate) use search::web_search;
pub use search::{BRAVE_ENDPOINT, SearchConfig, Searcher, WebSearchArgs};
pub(crate) use web_fetch::web_fetch;
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

#[cfg(test)]
mod tests;
