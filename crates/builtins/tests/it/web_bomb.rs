//! A compression bomb against `web_fetch`: 1 GiB of `a`, gzipped to about 1 MB, served
//! by a local server. The body must stop at the cap, and memory must stay near the cap:
//! this test binary counts every allocation (`allocations.rs`; no heavy test runs during
//! the measurement) and checks the peak. The page is fetched through the registry, as
//! a user's call is.

use std::convert::Infallible;
use std::sync::Arc;

use crate::allocations;
use agent_tools_builtins::web::FetchConfig;
use agent_tools_builtins::{Builtins, Workspace};
use agent_tools_core::{ToolCall, ToolRegistry};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::header::{CONTENT_ENCODING, CONTENT_TYPE};
use axum::routing::get;
use flate2::{Compress, Compression, FlushCompress};
use futures_util::{StreamExt, stream};
use serde_json::json;

const MIB: usize = 1024 * 1024;

/// 1 GiB of `a` as gzip: one deflate block of 1 MiB of `a` (about 1 KB compressed, ended
/// by a sync flush so that it can be repeated), sent 1024 times. It has no trailer: a
/// client that read it all would fail; one that caps it never gets there.
fn gzip_bomb() -> Body {
    let mut compress = Compress::new(Compression::best(), false);
    let input = vec![b'a'; MIB];
    let mut block = Vec::with_capacity(64 * 1024);
    compress
        .compress_vec(&input, &mut block, FlushCompress::Sync)
        .unwrap();
    assert_eq!(compress.total_in(), MIB as u64, "one call compresses it all");
    assert!(block.len() < 8 * 1024, "{} bytes", block.len());
    let header = Bytes::from_static(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    let blocks = stream::repeat(Bytes::from(block)).take(1024);
    Body::from_stream(
        stream::once(async { header })
            .chain(blocks)
            .map(Ok::<_, Infallible>),
    )
}

#[tokio::test]
async fn web_fetch_stops_a_compression_bomb_at_the_cap_with_bounded_memory() {
    let app = Router::new().route(
        "/bomb",
        get(|| async {
            (
                [(CONTENT_TYPE, "text/plain"), (CONTENT_ENCODING, "gzip")],
                gzip_bomb(),
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/bomb", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let config = FetchConfig::default()
        .allow_private_network(true)
        .max_body_bytes(4 * MIB);
    let temp = tempfile::tempdir().unwrap();
    let builtins = Builtins::builder(Workspace::open(temp.path()).unwrap())
        .fetch(config)
        .build()
        .unwrap();
    let registry = ToolRegistry::new();
    Arc::new(builtins).register_all(&registry).unwrap();
    let arguments = json!({"url": url, "max_chars": 1000});

    let measurement = allocations::measure().await;
    let result = registry.call(ToolCall::new("bomb", "web_fetch", arguments)).await;
    let peak = measurement.peak();
    drop(measurement);
    let text = result.text();

    assert!(!result.is_error(), "{text}");
    assert!(
        text.contains("Body: truncated: the server sent more than 4.0 MB, only that much was read\n"),
        "{text}"
    );
    assert!(text.contains("Content: characters 0-1000 of 4194304;"), "{text}");
    assert!(
        text.contains(&format!("---\n{}\n---", "a".repeat(1000))),
        "{text}"
    );
    // The body, its decoded text and the client's buffers; nowhere near the 1 GiB inflated.
    assert!(peak < 16 * MIB, "peak memory grew by {} MiB", peak / MIB);
}
