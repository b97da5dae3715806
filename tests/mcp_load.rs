//! The MCP server under load (issue 8): the built-in tools served over streamable HTTP on
//! 127.0.0.1 in process, 100 concurrent `tools/call`s from four rmcp clients, every one
//! answered correctly and audited once.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use agent_tools::builtin_tools::{self, BuiltinConfig};
use agent_tools::mcp::rmcp::model::{CallToolRequestParams, CallToolResult};
use agent_tools::mcp::rmcp::service::RunningService;
use agent_tools::mcp::rmcp::transport::StreamableHttpClientTransport;
use agent_tools::mcp::rmcp::{RoleClient, ServiceExt as _};
use agent_tools::{AuditEvent, JsonlAudit, Outcome, ToolRegistry};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

const CALLS: usize = 100;
const CLIENTS: usize = 4;

fn text(result: &CallToolResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|part| part.as_text().map(|text| text.text.as_str()))
        .collect();
    texts.join("\n")
}

/// Call `i`: its tool, its arguments (different for every call, so the audit lines can
/// be told apart), and a piece of text its result must contain.
fn planned(i: usize) -> (&'static str, Value, String) {
    match i % 5 {
        0 => (
            "write_file",
            json!({"path": format!("out/f-{i}.txt"), "content": format!("content {i}\n")}),
            format!("Created `out/f-{i}.txt`"),
        ),
        1 => (
            "read_file",
            json!({"path": format!("in/r-{}.txt", i % 10), "limit": 100 + i}),
            format!("text of file {}", i % 10),
        ),
        2 => (
            "memory_write",
            json!({"content": format!("fact number {i}"), "key": format!("fact-{i}")}),
            format!("key `fact-{i}`"),
        ),
        3 => (
            "list_dir",
            json!({"path": "in", "limit": 100 + i}),
            "r-9.txt".to_owned(),
        ),
        _ => (
            "file_search",
            json!({"pattern": format!("file {}", i % 10), "path": "in", "literal": true, "max_results": 100 + i}),
            format!("r-{}.txt", i % 10),
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_calls_over_http_all_succeed_and_are_audited() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("in")).unwrap();
    for n in 0..10 {
        std::fs::write(ws.join(format!("in/r-{n}.txt")), format!("text of file {n}\n")).unwrap();
    }
    let audit_path = dir.path().join("audit.jsonl");
    let registry = ToolRegistry::builder()
        .default_timeout(Duration::from_secs(60))
        .audit(JsonlAudit::open(&audit_path).unwrap())
        .build();
    let mut config = BuiltinConfig::default();
    config.memory.path = Some(dir.path().join("memory.db"));
    builtin_tools::register_all(&registry, Some(ws.clone()), &config).unwrap();
    let server = agent_tools::mcp::serve_http(registry, "127.0.0.1:0")
        .await
        .unwrap();
    assert!(server.url().starts_with("http://127.0.0.1:"));

    let mut clients: Vec<Client> = Vec::new();
    for _ in 0..CLIENTS {
        let transport = StreamableHttpClientTransport::from_uri(server.url());
        clients.push(().serve(transport).await.unwrap());
    }
    let started = Instant::now();
    let tasks: Vec<_> = (0..CALLS)
        .map(|i| {
            let peer = clients[i % CLIENTS].peer().clone();
            let (name, arguments, _) = planned(i);
            let params =
                CallToolRequestParams::new(name).with_arguments(arguments.as_object().unwrap().clone());
            tokio::spawn(async move { peer.call_tool(params).await })
        })
        .collect();
    for (i, task) in tasks.into_iter().enumerate() {
        let (name, _, expected) = planned(i);
        let result = task
            .await
            .unwrap()
            .unwrap_or_else(|error| panic!("call {i} ({name}): {error}"));
        let shown = text(&result);
        assert_eq!(result.is_error, Some(false), "call {i} ({name}) failed: {shown}");
        assert!(
            shown.contains(&expected),
            "call {i} ({name}): expected {expected:?} in {shown:?}"
        );
    }
    eprintln!("{CALLS} calls over {CLIENTS} clients in {:?}", started.elapsed());
    for i in (0..CALLS).filter(|i| i % 5 == 0) {
        let written = std::fs::read_to_string(ws.join(format!("out/f-{i}.txt"))).unwrap();
        assert_eq!(written, format!("content {i}\n"));
    }
    for client in clients {
        client.cancel().await.unwrap();
    }
    drop(server);

    // One whole line per call. Call ids are MCP request ids, which repeat across
    // clients, so lines are matched to calls by tool and arguments.
    let log = std::fs::read_to_string(&audit_path).unwrap();
    let mut audited = HashSet::new();
    for line in log.lines() {
        let event: AuditEvent = serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}"));
        assert_eq!(event.outcome, Outcome::Ok, "{line}");
        assert!(
            audited.insert((event.tool, event.arguments.to_string())),
            "audited twice: {line}"
        );
    }
    let expected: HashSet<(String, String)> = (0..CALLS)
        .map(|i| {
            let (name, arguments, _) = planned(i);
            (name.to_owned(), arguments.to_string())
        })
        .collect();
    assert_eq!(log.lines().count(), CALLS);
    assert_eq!(audited.len(), expected.len());
    assert_eq!(audited, expected);
}
