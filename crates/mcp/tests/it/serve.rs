//! The server side in process: a registry served over streamable HTTP on 127.0.0.1 to
//! rmcp's own client, for what needs a handle on both ends (list changes, progress).

use std::time::Duration;

use agent_tools_core::{ToolContext, ToolError, ToolRegistry, tool::DynamicTool};
use agent_tools_mcp::{HttpServer, serve_http};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ClientRequest, ProgressNotificationParam, ProtocolVersion, Request,
    ServerNotification, SubscriptionFilter,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt as _, NotificationContext, PeerRequestOptions, RunningService,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::session_client::Session;

/// Passes what the server sends on to the test.
struct Observer {
    protocol: ProtocolVersion,
    list_changed: mpsc::UnboundedSender<()>,
    progress: mpsc::UnboundedSender<ProgressNotificationParam>,
}

impl ClientHandler for Observer {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(self.protocol.clone())
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.list_changed.send(());
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.progress.send(params);
    }
}

struct Connected {
    client: RunningService<RoleClient, Observer>,
    list_changed: mpsc::UnboundedReceiver<()>,
    progress: mpsc::UnboundedReceiver<ProgressNotificationParam>,
    _server: HttpServer,
}

async fn connect(registry: &ToolRegistry, protocol: ProtocolVersion) -> Connected {
    let server = serve_http(registry.clone(), "127.0.0.1:0").await.unwrap();
    let (list_sender, list_changed) = mpsc::unbounded_channel();
    let (progress_sender, progress) = mpsc::unbounded_channel();
    let observer = Observer {
        protocol: protocol.clone(),
        list_changed: list_sender,
        progress: progress_sender,
    };
    // Protocol versions with `initialize` keep a session; later ones start with
    // `server/discover` and are stateless.
    let lifecycle = if protocol.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![protocol.clone()],
        }
    };
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    let client = observer.serve_with_lifecycle(transport, lifecycle).await.unwrap();
    Connected {
        client,
        list_changed,
        progress,
        _server: server,
    }
}

fn echo(name: &str) -> DynamicTool {
    DynamicTool::new(
        name,
        "Echo the text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |args: Value, _ctx: ToolContext| async move { Ok::<_, ToolError>(args["text"].to_string()) },
    )
}

/// Reports progress three times, then finishes.
fn counter() -> DynamicTool {
    DynamicTool::new(
        "count",
        "Count to three.",
        json!({"type": "object"}),
        |_args: Value, ctx: ToolContext| async move {
            for step in 1..=3 {
                ctx.report_progress(f64::from(step), Some(3.0), Some(&format!("step {step}")));
            }
            Ok::<_, ToolError>("counted")
        },
    )
}

async fn next<T>(receiver: &mut mpsc::UnboundedReceiver<T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), receiver.recv())
        .await
        .expect("nothing arrived within 10 s")
        .expect("channel closed")
}

#[tokio::test]
async fn sessions_get_list_changed_when_tools_change() {
    let registry = ToolRegistry::new();
    registry.register(echo("first")).unwrap();
    let mut connected = connect(&registry, ProtocolVersion::LATEST_WITH_INITIALIZE).await;
    let tools = connected.client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);

    registry.register(echo("second")).unwrap();
    next(&mut connected.list_changed).await;
    let tools = connected.client.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.into_iter().map(|tool| tool.name.to_string()).collect();
    assert_eq!(names, ["first", "second"]);

    registry.unregister("first");
    next(&mut connected.list_changed).await;
    assert_eq!(connected.client.list_all_tools().await.unwrap().len(), 1);
}

#[tokio::test]
async fn listeners_get_list_changed_on_the_latest_protocol() {
    let registry = ToolRegistry::new();
    let connected = connect(&registry, ProtocolVersion::LATEST).await;
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut subscription = connected.client.peer().listen(filter).await.unwrap();
    assert_eq!(subscription.acknowledged().tools_list_changed, Some(true));

    registry.register(echo("late")).unwrap();
    let notification = tokio::time::timeout(Duration::from_secs(10), subscription.next())
        .await
        .expect("no notification within 10 s")
        .unwrap();
    assert!(
        matches!(
            notification,
            Some(ServerNotification::ToolListChangedNotification(_))
        ),
        "{notification:?}"
    );
    let tools = connected.client.list_all_tools().await.unwrap();
    assert_eq!(tools[0].name, "late");
}

#[tokio::test]
async fn progress_reaches_the_client_that_asked() {
    let registry = ToolRegistry::new();
    registry.register(counter()).unwrap();
    for protocol in [ProtocolVersion::LATEST_WITH_INITIALIZE, ProtocolVersion::LATEST] {
        let mut connected = connect(&registry, protocol.clone()).await;
        let request = ClientRequest::CallToolRequest(Request::new(CallToolRequestParams::new("count")));
        let handle = connected
            .client
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .unwrap();
        let token = handle.progress_token.clone();
        handle.await_response().await.unwrap();
        for step in 1..=3 {
            let progress = next(&mut connected.progress).await;
            assert_eq!(progress.progress_token, token, "{protocol}");
            assert_eq!(progress.progress, f64::from(step));
            assert_eq!(progress.total, Some(3.0));
            assert_eq!(progress.message.as_deref(), Some(format!("step {step}").as_str()));
        }
    }
}

#[tokio::test]
async fn results_errors_and_unknown_tools_follow_the_spec() {
    let registry = ToolRegistry::new();
    registry.register(echo("echo")).unwrap();
    let connected = connect(&registry, ProtocolVersion::LATEST).await;
    let peer = connected.client.peer();

    let arguments = json!({"text": "hi"}).as_object().cloned();
    let ok = peer
        .call_tool(CallToolRequestParams::new("echo").with_arguments(arguments.unwrap()))
        .await
        .unwrap();
    assert_eq!(ok.is_error, Some(false));
    assert_eq!(ok.content[0].as_text().unwrap().text, "\"hi\"");

    // Invalid arguments are a result the model can read, naming the problem.
    let invalid = peer.call_tool(CallToolRequestParams::new("echo")).await.unwrap();
    assert_eq!(invalid.is_error, Some(true));
    let message = &invalid.content[0].as_text().unwrap().text;
    assert!(
        message.contains("`/text`: required property is missing"),
        "{message}"
    );

    // An unknown tool is a JSON-RPC error, with the registry's suggestion.
    let error = peer
        .call_tool(CallToolRequestParams::new("ecko"))
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(text.contains("ecko") && text.contains("echo"), "{text}");
}

/// A session that ends leaves no task behind waiting for the next registry change,
/// though the registry lives on (as it does behind a long-running HTTP server).
#[tokio::test]
async fn a_finished_session_leaves_no_watcher_behind() {
    use rmcp::ServiceExt as _;

    let registry = ToolRegistry::new();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let handler = agent_tools_mcp::McpHandler::new(registry.clone());
    let server = tokio::spawn(async move {
        let running = handler.serve(server_io).await.unwrap();
        running.waiting().await.unwrap();
    });
    let (list_sender, mut list_changed) = mpsc::unbounded_channel();
    let (progress, _progress) = mpsc::unbounded_channel();
    let observer = Observer {
        protocol: ProtocolVersion::LATEST_WITH_INITIALIZE,
        list_changed: list_sender,
        progress,
    };
    let client = observer
        .serve_with_lifecycle(client_io, ClientLifecycleMode::Initialize)
        .await
        .unwrap();
    // The session's watcher runs: a change reaches the client.
    registry.register(echo("first")).unwrap();
    next(&mut list_changed).await;

    client.cancel().await.unwrap();
    server.await.unwrap();
    let runtime = tokio::runtime::Handle::current();
    for _ in 0..500 {
        if runtime.metrics().num_alive_tasks() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "{} tasks still alive after the session ended",
        runtime.metrics().num_alive_tasks()
    );
}

/// A registry's policy holds for its MCP clients: a refused call is an `isError` result
/// naming the rule, and the tool does not run.
#[tokio::test]
async fn the_registry_policy_refuses_calls_of_mcp_clients() {
    let policy = agent_tools_core::policy::Policy::builder()
        .mode(agent_tools_core::policy::PolicyMode::Bypass)
        .deny("echo(text: secret*)")
        .build()
        .unwrap();
    let registry = ToolRegistry::builder().policy(policy).build();
    registry.register(echo("echo")).unwrap();
    let connected = connect(&registry, ProtocolVersion::LATEST).await;
    let peer = connected.client.peer();
    let call = |text: &str| {
        let arguments = json!({"text": text}).as_object().cloned().unwrap();
        peer.call_tool(CallToolRequestParams::new("echo").with_arguments(arguments))
    };

    let refused = call("secret plans").await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    let message = &refused.content[0].as_text().unwrap().text;
    assert!(
        message.contains("the deny rule `echo(text: secret*)`"),
        "{message}"
    );
    let ran = call("hello").await.unwrap();
    assert_eq!(ran.is_error, Some(false));
}

#[tokio::test]
async fn a_sessions_searches_grow_its_own_list_only() {
    let registry = ToolRegistry::builder().defer_all_except(["plain"]).build();
    registry.register(echo("plain")).unwrap();
    registry.register(echo("weather_forecast")).unwrap();
    registry.register(echo("stock_quote")).unwrap();
    let names = |tools: Vec<rmcp::model::Tool>| -> Vec<String> {
        tools.into_iter().map(|tool| tool.name.to_string()).collect()
    };
    let mut searching = connect(&registry, ProtocolVersion::LATEST_WITH_INITIALIZE).await;
    let other = connect(&registry, ProtocolVersion::LATEST_WITH_INITIALIZE).await;
    assert_eq!(
        names(searching.client.list_all_tools().await.unwrap()),
        ["plain", "tool_search"]
    );

    let mut search = CallToolRequestParams::new("tool_search");
    search.arguments = json!({"query": "weather forecast", "limit": 1})
        .as_object()
        .cloned();
    let found = searching.client.call_tool(search).await.unwrap();
    assert_ne!(found.is_error, Some(true), "{found:?}");
    next(&mut searching.list_changed).await;
    assert_eq!(
        names(searching.client.list_all_tools().await.unwrap()),
        ["plain", "tool_search", "weather_forecast"]
    );
    assert_eq!(
        names(other.client.list_all_tools().await.unwrap()),
        ["plain", "tool_search"]
    );
}

/// Twenty `tools/call`s one after another on one kept-alive connection, as `curl` or a
/// load generator sends them. A response goes out in several writes; with Nagle's
/// algorithm on the server's socket, the last small one waited for the client to
/// acknowledge the first, which a client delays by up to 40 ms on Linux (its shortest
/// delayed ACK) hoping to piggyback on its next request: every request after the first
/// took about 40 ms. So this fails on such a stall: the median must stay far below it
/// (a call here takes about a millisecond; the bound leaves room for a loaded machine).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_on_a_kept_alive_connection_are_answered_without_a_stall() {
    let registry = ToolRegistry::new();
    registry.register(echo("echo")).unwrap();
    for options in [
        agent_tools_mcp::HttpOptions::new(),
        agent_tools_mcp::HttpOptions::new().stateless(),
    ] {
        let server = agent_tools_mcp::McpHandler::new(registry.clone())
            .serve_http_with("127.0.0.1:0", options)
            .await
            .unwrap();
        // One connection, kept alive between requests (reqwest sets TCP_NODELAY on its
        // own side, as curl does).
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .build()
            .unwrap();
        let session = Session::open(&client, server.url()).await;
        let mut latencies = Vec::new();
        for id in 1..=20 {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hi"}}});
            let started = std::time::Instant::now();
            let body = session.send(call).await;
            latencies.push(started.elapsed());
            assert!(body.contains(r#"\"hi\""#), "{body}");
        }
        latencies.sort();
        let median = latencies[latencies.len() / 2];
        assert!(
            median < Duration::from_millis(20),
            "the median request took {median:?} on a kept-alive connection: a response is held \
             back until the client's delayed ACK (TCP_NODELAY not set?); all: {latencies:?}"
        );
    }
}

/// Ending a session (`DELETE` with its id) is answered 200, as the TypeScript SDK's
/// servers answer; the Python SDK logs a failure for anything but 200 or 204.
#[tokio::test]
async fn ending_a_session_is_answered_ok() {
    let server = serve_http(ToolRegistry::new(), "127.0.0.1:0").await.unwrap();
    let client = reqwest::Client::new();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "ender", "version": "1"}}});
    let response = client
        .post(server.url())
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(initialize.to_string())
        .send()
        .await
        .unwrap();
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let ended = client
        .delete(server.url())
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), reqwest::StatusCode::OK);
    // The session is gone.
    let after = client
        .post(server.url())
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), reqwest::StatusCode::NOT_FOUND);
}
