//! A session's request ids: a request whose id is that of a request still in flight in
//! the same session is refused at once, and the request in flight still gets its own
//! response. Before, the second request took the first one's route (rmcp routes a
//! session's responses by JSON-RPC id) and the first HTTP request never got an answer.

use std::sync::Arc;
use std::time::Duration;

use agent_tools_core::{ToolContext, ToolError, ToolRegistry, tool::DynamicTool};
use agent_tools_mcp::serve_http;
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::session_client::Session;

/// Long enough for any of these answers on a loaded machine; a response that has not
/// come by then is one that never will.
const ANSWER_DEADLINE: Duration = Duration::from_secs(20);

/// `wait`: says it started, then answers `released` once the test releases it.
fn waiting_tool(started: Arc<Notify>, release: Arc<Notify>) -> DynamicTool {
    DynamicTool::new(
        "wait",
        "Wait until released.",
        json!({"type": "object"}),
        move |_, _: ToolContext| {
            let (started, release) = (started.clone(), release.clone());
            async move {
                started.notify_one();
                release.notified().await;
                Ok::<_, ToolError>("released")
            }
        },
    )
}

fn call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {}}})
}

async fn answered(response: impl Future<Output = String>) -> String {
    tokio::time::timeout(ANSWER_DEADLINE, response)
        .await
        .expect("the request was never answered")
}

#[tokio::test]
async fn a_repeated_id_in_flight_is_refused_and_the_first_request_still_gets_its_answer() {
    let (started, release) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let registry = ToolRegistry::new();
    registry
        .register(waiting_tool(started.clone(), release.clone()))
        .unwrap();
    let server = serve_http(registry, "127.0.0.1:0").await.unwrap();
    let client = reqwest::Client::new();
    let session = Session::open(&client, server.url()).await;

    let first = session.send(call(7, "wait"));
    let repeated = async {
        started.notified().await; // The first call is running, so its id is in flight.
        let refusal = answered(session.send(call(7, "wait"))).await;
        release.notify_one();
        refusal
    };
    let (first, refusal) = tokio::join!(answered(first), repeated);
    assert!(
        refusal.contains("-32600") && refusal.contains("request id 7 is already in use"),
        "{refusal}"
    );
    assert!(!refusal.contains("released"), "{refusal}");
    assert!(
        first.contains("released") && first.contains(r#""id":7"#),
        "{first}"
    );

    // Its response sent, the id is free again in the session.
    let again = async {
        started.notified().await;
        release.notify_one();
    };
    let (reused, ()) = tokio::join!(answered(session.send(call(7, "wait"))), again);
    assert!(reused.contains("released"), "{reused}");
}
