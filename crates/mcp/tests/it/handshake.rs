//! The handshake a mount makes with a server that has only `initialize` (protocol
//! 2025-11-25): a hand-written streamable HTTP server on 127.0.0.1 that answers as the
//! MCP conformance suite's test servers do, and records what it was sent.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tools_core::ToolRegistry;
use agent_tools_mcp::{McpServer, MountMcp as _, MountOptions};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// Bounds the mount; nothing should come near it.
const PATIENCE: Duration = Duration::from_secs(10);

/// The `params` of every `initialize` the server received.
type Initializes = Arc<Mutex<Vec<Value>>>;

/// One JSON-RPC message posted to the server: `initialize` is recorded and answered with
/// 2025-11-25, notifications are accepted, any other request gets an empty result (as
/// the suite's servers answer `server/discover`).
fn answer(body: &str, initializes: &Initializes) -> Response {
    let Ok(message) = serde_json::from_str::<Value>(body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let Some(id) = message.get("id").cloned() else {
        return StatusCode::ACCEPTED.into_response();
    };
    let result = match message["method"].as_str() {
        Some("initialize") => {
            initializes.lock().unwrap().push(message["params"].clone());
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "initialize-only", "version": "1.0.0"}
            })
        }
        Some("tools/list") => json!({"tools": []}),
        _ => json!({}),
    };
    let response = json!({"jsonrpc": "2.0", "id": id, "result": result});
    ([(header::CONTENT_TYPE, "application/json")], response.to_string()).into_response()
}

/// Serves [`answer`] at `http://127.0.0.1:PORT/mcp` (GET and DELETE: 405, no streams).
async fn initialize_only_server() -> (String, Initializes) {
    let initializes = Initializes::default();
    let recorded = initializes.clone();
    let app = axum::Router::new().route(
        "/mcp",
        post(move |body: String| {
            let recorded = recorded.clone();
            async move { answer(&body, &recorded) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, initializes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefer_initialize_offers_2025_11_25_the_newest_version_with_initialize() {
    let (url, initializes) = initialize_only_server().await;
    let registry = ToolRegistry::new();
    let mount = tokio::time::timeout(
        PATIENCE,
        registry.mount_mcp(McpServer::http(url), MountOptions::new().prefer_initialize()),
    )
    .await
    .expect("mounted within the test's patience")
    .unwrap();
    let initializes = initializes.lock().unwrap().clone();
    assert_eq!(initializes.len(), 1, "{initializes:?}");
    // 2026-07-28 has no `initialize`; offering it there asks a 2025-11-25 server for a
    // version it cannot speak (the conformance suite fails the client for it).
    assert_eq!(initializes[0]["protocolVersion"], "2025-11-25");
    assert_eq!(initializes[0]["clientInfo"]["name"], "agent-tools");
    mount.unmount().await;
}
