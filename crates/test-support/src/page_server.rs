//! A loopback HTTP server of HTML pages by name, and the `web_fetch` arguments that fetch
//! them, for the facade's `hostile_web` test and `crates/builtins/benches/html.rs`: both fetch
//! hostile pages through a registry as a model would.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

type Pages = Arc<HashMap<String, Bytes>>;

/// Serves `pages` (name → HTML) at `http://127.0.0.1:PORT/NAME` from a task of the current
/// runtime; returns `http://127.0.0.1:PORT`. A name it does not have is a 404.
pub async fn serve_pages(pages: HashMap<String, Bytes>) -> String {
    let app = Router::new()
        .route("/{name}", get(serve_page))
        .with_state(Arc::new(pages));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().expect("its address"));
    tokio::spawn(async move { axum::serve(listener, app).await.expect("the server runs") });
    base
}

/// Bytes are shared, not copied, per request: the pages are megabytes.
async fn serve_page(State(pages): State<Pages>, Path(name): Path<String>) -> Response {
    match pages.get(&name) {
        Some(page) => ([(CONTENT_TYPE, "text/html; charset=utf-8")], page.clone()).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// `web_fetch`'s arguments for page `name` of the server at `base`: `max_chars`
/// characters of it in `format`, from `start_char`.
pub fn fetch_arguments(base: &str, name: &str, format: &str, max_chars: usize, start_char: usize) -> Value {
    json!({
        "url": format!("{base}/{name}"),
        "format": format,
        "max_chars": max_chars,
        "start_char": start_char,
    })
}

/// The length of the converted content, from the header's `Content:` line, when it is
/// longer than one call returns.
pub fn total_chars(text: &str) -> Option<usize> {
    let line = text.lines().find(|line| line.starts_with("Content: "))?;
    let total = line.split(" of ").nth(1)?;
    total.split([';', ' ']).next()?.parse().ok()
}
