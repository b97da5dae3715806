//! The official TypeScript "everything" server (`@modelcontextprotocol/server-everything`)
//! mounted through `agent-tools serve --mount`, driven by rmcp's client with a person and
//! a model behind it: the server's elicitation and sampling tools are listed (it offers
//! them only to clients that declare those capabilities) and work end to end — its
//! requests cross our server to the client and the answers come back — and progress
//! arrives complete and in order.
//!
//! Needs Node 22 and the server, installed into `target/npm-tools` by `scripts/npm-tools`
//! (which `scripts/test` runs).

// Sampling is deprecated for MCP 2026-07-28 (SEP-2577); this client speaks 2025-11-25.
#![allow(deprecated)]

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tools::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction, Implementation,
};
use agent_tools::mcp::rmcp::service::{RequestContext, RunningService};
use agent_tools::mcp::rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use agent_tools::mcp::rmcp::{ClientHandler, ErrorData as McpError, RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

use test_support::everything::everything_server;

/// Answers forms and sampling requests, and keeps what it was asked.
#[derive(Default)]
struct Person {
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}}, "sampling": {}})).unwrap();
        ClientConfig::new(capabilities, Implementation::new("person", "1"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        self.asked
            .lock()
            .unwrap()
            .push(format!("elicit: {}", serde_json::to_value(&request).unwrap()));
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(json!({"name": "Ada Lovelace", "check": true, "email": "ada@example.com"}));
        Ok(result)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        self.asked
            .lock()
            .unwrap()
            .push(format!("sample: {}", serde_json::to_value(&params).unwrap()));
        let answer =
            json!({"role": "assistant", "content": {"type": "text", "text": "forty-two"}, "model": "m-1"});
        Ok(serde_json::from_value(answer).unwrap())
    }
}

/// Our server with the everything server mounted; `None` when that is not installed (the
/// test is skipped).
async fn serve_with_everything_mounted(person: Person) -> Option<RunningService<RoleClient, Person>> {
    let everything = everything_server()?;
    let workspace = tempfile::tempdir().unwrap();
    let mount = format!("ev={everything}");
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools")).configure(|command| {
        command
            .arg("--workspace")
            .arg(workspace.path())
            .args(["serve", "--mount", &mount])
            .stderr(Stdio::null());
    });
    let transport = TokioChildProcess::new(command).unwrap();
    Some(person.serve(transport).await.unwrap())
}

fn text(result: &CallToolResult) -> String {
    let parts: Vec<String> = result
        .content
        .iter()
        .filter_map(|part| part.as_text().map(|text| text.text.clone()))
        .collect();
    parts.join("\n")
}

async fn call(client: &RunningService<RoleClient, Person>, name: &str, arguments: Value) -> CallToolResult {
    let params =
        CallToolRequestParams::new(name.to_owned()).with_arguments(arguments.as_object().cloned().unwrap());
    client.peer().call_tool(params).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_servers_elicitation_and_sampling_work_through_our_server() {
    let person = Person::default();
    let asked = person.asked.clone();
    let Some(client) = serve_with_everything_mounted(person).await else {
        return;
    };
    let tools = client.peer().list_all_tools().await.unwrap();
    let names: Vec<String> = tools.iter().map(|tool| tool.name.to_string()).collect();
    for expected in [
        "ev_echo",
        "ev_trigger-elicitation-request",
        "ev_trigger-sampling-request",
    ] {
        assert!(
            names.iter().any(|name| name == expected),
            "{expected} missing from {names:?}"
        );
    }

    let result = call(&client, "ev_trigger-elicitation-request", json!({})).await;
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert!(text(&result).contains("Ada Lovelace"), "{}", text(&result));

    let result = call(
        &client,
        "ev_trigger-sampling-request",
        json!({"prompt": "the answer?"}),
    )
    .await;
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert!(text(&result).contains("forty-two"), "{}", text(&result));

    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(
        asked[0].contains("Your full, legal name"),
        "the server's own form reached the person: {}",
        asked[0]
    );
    assert!(asked[1].contains("the answer?"), "{}", asked[1]);
}

/// Read off the wire with a plain JSON-RPC client (rmcp's client hands notifications to a
/// task each, which could reorder what it shows the test).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_servers_progress_arrives_complete_and_in_order() {
    let Some(everything) = everything_server() else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let mount = format!("ev={everything}");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .arg("--workspace")
        .arg(workspace.path())
        .args(["serve", "--mount", &mount])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let steps = 5;
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ev_trigger-long-running-operation",
            "arguments": {"duration": 0.5, "steps": steps},
            "_meta": {"progressToken": "p1"}}}),
    ];
    for message in messages {
        stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }
    let mut progress = Vec::new();
    let result = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the server answers within 30 s")
            .unwrap()
            .expect("the server keeps stdout open");
        let message: Value = serde_json::from_str(&line).unwrap();
        match (message.get("id"), message.get("method").and_then(Value::as_str)) {
            (Some(id), None) if *id == json!(2) => break message,
            (None, Some("notifications/progress")) => progress.push(message["params"]["progress"].as_f64()),
            _ => {}
        }
    };
    assert!(result["result"]["isError"] != json!(true), "{result}");
    assert_eq!(
        progress,
        [1.0, 2.0, 3.0, 4.0, 5.0].map(Some),
        "every step, in order, before the result"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_servers_resource_links_arrive_as_links() {
    let Some(client) = serve_with_everything_mounted(Person::default()).await else {
        return;
    };
    let result = call(&client, "ev_get-resource-links", json!({"count": 2})).await;
    let parts = serde_json::to_value(&result.content).unwrap();
    let links: Vec<&Value> = parts
        .as_array()
        .unwrap()
        .iter()
        .filter(|part| part["type"] == "resource_link")
        .collect();
    assert_eq!(links.len(), 2, "{parts}");
    assert!(
        links
            .iter()
            .all(|link| link["uri"].is_string() && link["name"].is_string()),
        "{parts}"
    );
}
