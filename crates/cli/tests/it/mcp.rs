//! `agent-tools serve` as a real child process, driven by rmcp's client: over stdio and
//! over streamable HTTP on 127.0.0.1, against a local web server standing in for the
//! web, a chat model, a search API and a media webhook.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agent_tools::builtins::{self, BuiltinConfig};
use agent_tools::mcp::rmcp::model::{CallToolRequestParams, CallToolResult, ClientRequest, Request};
use agent_tools::mcp::rmcp::service::{PeerRequestOptions, RunningService};
use agent_tools::mcp::rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use agent_tools::mcp::rmcp::transport::{
    ConfigureCommandExt as _, StreamableHttpClientTransport, TokioChildProcess,
};
use agent_tools::mcp::rmcp::{RoleClient, ServiceExt as _};
use agent_tools::{
    ToolRegistry,
    audit::{AuditEvent, JsonlAudit, Outcome},
};
use axum::Router;
use axum::routing::{get, post};
use rustix::process::{Pid, Signal, kill_process};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, BufReader};

use mcp_text::text;
use test_support::mcp_text;

use test_support::processes;

type Client = RunningService<RoleClient, ()>;

/// A 1×1 PNG.
const PNG: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\xda\x63\x64\x60\xf8\x5f\x0f\x00\x02\x87\x01\x80\xeb\x47\xba\x92\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

/// The outside world on 127.0.0.1: a page, a search API, a chat model, a webhook.
struct World {
    base: String,
    webhook_posts: Arc<AtomicUsize>,
}

async fn world() -> World {
    let webhook_posts = Arc::new(AtomicUsize::new(0));
    let posts = webhook_posts.clone();
    let page = "<html><head><title>Greeting</title></head><body><article><h1>Greeting</h1>\
                <p>Hello from the local test server, with enough words to count as content.</p>\
                </article></body></html>";
    let search = json!({"web": {"results": [
        {"title": "The Rust Programming Language", "url": "https://www.rust-lang.org/", "description": "A language."}
    ]}});
    let chat = json!({"choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "sub-agent finished"}}]});
    let router = Router::new()
        .route(
            "/page.html",
            get(move || async move { axum::response::Html(page) }),
        )
        .route("/search", get(move || async move { json_response(&search) }))
        .route(
            "/v1/chat/completions",
            post(move || async move { json_response(&chat) }),
        )
        .route(
            "/hook",
            post(move || async move {
                posts.fetch_add(1, Ordering::SeqCst);
                json_response(&json!({"ok": true}))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    World { base, webhook_posts }
}

fn json_response(value: &Value) -> ([(&'static str, &'static str); 1], String) {
    ([("content-type", "application/json")], value.to_string())
}

/// A workspace with a config pointing every outside service at `world`.
struct Setup {
    dir: tempfile::TempDir,
    config: PathBuf,
    audit: PathBuf,
}

impl Setup {
    fn new(world: &World) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("ws");
        std::fs::create_dir(&workspace).unwrap();
        std::fs::write(workspace.join("dot.png"), PNG).unwrap();
        let config = dir.path().join("agent-tools.toml");
        let base = &world.base;
        let text = format!(
            "[web]\nallow_private_network = true\nsearch_endpoint = \"{base}/search\"\n\n\
             [subagents]\nbase_url = \"{base}/v1\"\nmodel = \"test\"\napi_key_env = \"TEST_MODEL_KEY\"\n\n\
             [media]\nwebhook_url = \"{base}/hook\"\n"
        );
        std::fs::write(&config, text).unwrap();
        let audit = dir.path().join("audit.jsonl");
        Self { dir, config, audit }
    }

    fn workspace(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    /// `agent-tools --workspace … --config … --audit-log … serve EXTRA…`
    fn command(&self, extra: &[&str]) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"));
        command
            .arg("--workspace")
            .arg(self.workspace())
            .arg("--config")
            .arg(&self.config)
            .arg("--audit-log")
            .arg(&self.audit)
            .arg("--memory-db")
            .arg(self.dir.path().join("memory.db"))
            .arg("serve")
            .args(extra)
            .env("BRAVE_API_KEY", "test-key")
            .env("TEST_MODEL_KEY", "test-key")
            .kill_on_drop(true);
        command
    }
}

async fn connect_stdio(setup: &Setup) -> Client {
    let command = setup.command(&[]).configure(|command| {
        command.stderr(Stdio::null());
    });
    ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap()
}

/// Starts `serve --http 127.0.0.1:0` and reads the URL it announces on stderr.
async fn start_http(setup: &Setup) -> (tokio::process::Child, String) {
    start_http_with(setup.command(&["--http", "127.0.0.1:0"])).await
}

/// Starts a `serve --http …` command and reads the URL it announces on stderr.
async fn start_http_with(mut command: tokio::process::Command) -> (tokio::process::Child, String) {
    let mut child = command
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("serve exited before announcing its URL");
        if let Some((_, url)) = line.split_once(" tools at ") {
            break url.trim().to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
    client.peer().call_tool(params).await.unwrap()
}

/// Calls that must succeed, with a piece of text each result must contain.
async fn assert_ok(client: &Client, name: &str, arguments: Value, expected: &str) -> CallToolResult {
    let result = call(client, name, arguments).await;
    let shown = text(&result);
    assert_eq!(result.is_error, Some(false), "{name} failed: {shown}");
    assert!(
        shown.contains(expected),
        "{name}: expected {expected:?} in {shown:?}"
    );
    result
}

async fn tool_names(client: &Client) -> Vec<String> {
    let tools = client.list_all_tools().await.unwrap();
    tools.into_iter().map(|tool| tool.name.to_string()).collect()
}

async fn every_family_works(client: &Client, world: &World) {
    let names = tool_names(client).await;
    for expected in [
        "screenshot",
        "read_file",
        "exec",
        "web_fetch",
        "web_search",
        "spawn",
        "memory_write",
        "send_media",
        "view_image",
        "update_plan",
    ] {
        assert!(
            names.iter().any(|name| name == expected),
            "{expected} missing from {names:?}"
        );
    }

    // Files.
    let write = json!({"path": "notes.md", "content": "# Notes\nhello world\n"});
    assert_ok(client, "write_file", write, "notes.md").await;
    let edit = json!({"path": "notes.md", "old_text": "hello world", "new_text": "hello MCP"});
    assert_ok(client, "edit_file", edit, "+hello MCP").await;
    assert_ok(client, "read_file", json!({"path": "notes.md"}), "hello MCP").await;
    assert_ok(client, "list_dir", json!({}), "notes.md").await;
    assert_ok(client, "file_search", json!({"pattern": "MCP"}), "notes.md").await;
    let image = call(client, "read_file", json!({"path": "dot.png"})).await;
    let image = image
        .content
        .iter()
        .find_map(|part| part.as_image())
        .expect("an image part");
    assert_eq!(image.mime_type, "image/png");
    // Small enough for any provider: view_image sends the same file.
    let viewed = call(client, "view_image", json!({"path": "dot.png"})).await;
    let viewed = viewed
        .content
        .iter()
        .find_map(|part| part.as_image())
        .expect("an image part");
    assert_eq!((&viewed.mime_type, &viewed.data), (&image.mime_type, &image.data));

    // Shell, web, memory, sub-agents, media, plans.
    assert_ok(
        client,
        "exec",
        json!({"command": "echo from-the-shell"}),
        "from-the-shell",
    )
    .await;
    let page = format!("{}/page.html", world.base);
    assert_ok(
        client,
        "web_fetch",
        json!({"url": page}),
        "Hello from the local test server",
    )
    .await;
    assert_ok(client, "web_search", json!({"query": "rust"}), "rust-lang.org").await;
    let memory = json!({"content": "The MCP test prefers tabs.", "key": "style"});
    assert_ok(client, "memory_write", memory, "style").await;
    assert_ok(
        client,
        "memory_search",
        json!({"query": "tabs"}),
        "prefers «tabs»",
    )
    .await;
    assert_ok(
        client,
        "spawn",
        json!({"task": "Say hello.", "label": "greeter"}),
        "greeter",
    )
    .await;
    assert_ok(client, "send_media", json!({"paths": ["dot.png"]}), "dot.png").await;
    let plan = json!({"plan": [{"step": "Check every family", "status": "in_progress"}]});
    let plan = assert_ok(client, "update_plan", plan, "[~] Check every family").await;
    let structured = plan.structured_content.expect("the plan as structured content");
    assert_eq!(structured["plan"][0]["status"], "in_progress");
    // Screenshots: a page rendered by headless Chromium, returned as an image part (this
    // step is skipped, saying so, where Chromium is not installed; CI fails instead).
    if test_support::require_chromium().is_some() {
        let shot = json!({"target": "url", "url": page, "width": 320, "height": 240, "save_to": "shot.png"});
        let shot = assert_ok(client, "screenshot", shot, "shot.png").await;
        assert!(
            shot.content.iter().any(|part| part.as_image().is_some()),
            "no image part"
        );
    }
    assert_eq!(world.webhook_posts.load(Ordering::SeqCst), 1);
}

async fn bad_calls_are_reported(client: &Client) {
    // Invalid arguments: an `isError` result naming each problem.
    let result = call(client, "read_file", json!({"path": 7, "limit": 0})).await;
    assert_eq!(result.is_error, Some(true));
    let message = text(&result);
    assert!(message.contains("`/path`: expected string"), "{message}");
    assert!(message.contains("`/limit`"), "{message}");

    // An unknown tool: a JSON-RPC error that suggests the right name.
    let params = CallToolRequestParams::new("read_fiel");
    let error = client.peer().call_tool(params).await.unwrap_err().to_string();
    assert!(error.contains("read_file"), "{error}");
}

/// A long `exec` cancelled by the client: the command is killed, and the audit log
/// records the call as cancelled.
async fn cancelling_stops_a_long_exec(client: &Client, setup: &Setup) {
    let sleeper = processes::marker();
    let arguments = json!({"command": format!("exec sleep {sleeper}"), "timeout_secs": 600});
    let params = CallToolRequestParams::new("exec").with_arguments(arguments.as_object().cloned().unwrap());
    let request = ClientRequest::CallToolRequest(Request::new(params));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    poll("the command to start", || {
        (!processes::processes_with(&sleeper).is_empty()).then_some(())
    })
    .await;

    handle.cancel(Some("test".into())).await.unwrap();
    poll("the command to be killed", || {
        processes::processes_with(&sleeper).is_empty().then_some(())
    })
    .await;
    poll("the audit line of the cancelled call", || {
        let log = std::fs::read_to_string(&setup.audit).ok()?;
        log.lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .find(|event| event["tool"] == "exec" && event["outcome"] == "cancelled")
    })
    .await;
}

/// Polls `check` every 20 ms for up to 20 s.
async fn poll<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    for _ in 0..1000 {
        if let Some(value) = check() {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_serves_every_builtin_family() {
    let world = world().await;
    let setup = Setup::new(&world);
    let client = connect_stdio(&setup).await;
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "agent-tools");
    every_family_works(&client, &world).await;
    bad_calls_are_reported(&client).await;
    cancelling_stops_a_long_exec(&client, &setup).await;
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_serves_every_builtin_family_and_stops_on_sigterm() {
    let world = world().await;
    let setup = Setup::new(&world);
    let (mut server, url) = start_http(&setup).await;
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let client = ().serve(StreamableHttpClientTransport::from_uri(url)).await.unwrap();
    every_family_works(&client, &world).await;
    bad_calls_are_reported(&client).await;
    cancelling_stops_a_long_exec(&client, &setup).await;
    client.cancel().await.unwrap();

    let pid = Pid::from_raw(i32::try_from(server.id().unwrap()).unwrap()).unwrap();
    kill_process(pid, Signal::TERM).unwrap();
    let status = tokio::time::timeout(Duration::from_secs(20), server.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status:?}");
}

/// `serve --http` on every interface: refused without `--token-env`; with it, only
/// clients that send the token get in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serving_the_network_needs_a_bearer_token() {
    let world = world().await;
    let setup = Setup::new(&world);
    let everywhere = ["--http", "0.0.0.0:0"];
    let refused = setup.command(&everywhere).output().await.unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("refusing to serve 0.0.0.0:") && stderr.contains("pass --token-env NAME"),
        "{stderr}"
    );
    let with_token = ["--http", "0.0.0.0:0", "--token-env", "MCP_TEST_TOKEN"];
    let unset = setup
        .command(&with_token)
        .env_remove("MCP_TEST_TOKEN")
        .output()
        .await
        .unwrap();
    assert_eq!(unset.status.code(), Some(2), "{unset:?}");
    let stderr = String::from_utf8_lossy(&unset.stderr);
    assert!(stderr.contains("$MCP_TEST_TOKEN is not set"), "{stderr}");

    let mut command = setup.command(&with_token);
    command.env("MCP_TEST_TOKEN", "tok-123");
    let (mut server, url) = start_http_with(command).await;
    // Reached by another name than the one bound: with a token, any host name is served.
    let url = url.replace("0.0.0.0", "127.0.0.1");
    let config = StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header("tok-123");
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
    assert_ok(&client, "list_dir", json!({}), "dot.png").await;
    client.cancel().await.unwrap();
    let anonymous = ().serve(StreamableHttpClientTransport::from_uri(url)).await;
    assert!(anonymous.is_err(), "a client without the token got in");
    server.kill().await.unwrap();
}

/// `serve --mount`: two other `agent-tools serve`s behind ours — one started as a stdio
/// child over its own workspace (`inner_`), one already serving HTTP with a bearer token
/// (`remote_`) — with every call in our audit log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_mounts_other_servers_as_a_gateway() {
    let world = world().await;
    let setup = Setup::new(&world);
    let inner = tempfile::tempdir().unwrap();
    std::fs::write(inner.path().join("inner.txt"), "from the inner workspace\n").unwrap();
    let inner_command = format!(
        "inner='{}' --workspace '{}' serve",
        env!("CARGO_BIN_EXE_agent-tools"),
        inner.path().display()
    );
    let remote_setup = Setup::new(&world);
    std::fs::write(remote_setup.workspace().join("remote.txt"), "over HTTP\n").unwrap();
    let mut remote = remote_setup.command(&["--http", "127.0.0.1:0", "--token-env", "REMOTE_TOKEN"]);
    remote.env("REMOTE_TOKEN", "remote-secret");
    let (_remote, url) = start_http_with(remote).await;
    let remote_mount = format!("remote={url}");

    // Without the remote's token, the gateway does not start.
    let refused = setup.command(&["--mount", &remote_mount]).output().await.unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("cannot mount `remote`") && stderr.contains("401 Unauthorized"),
        "{stderr}"
    );

    let mounts = [
        "--mount",
        &inner_command,
        "--mount",
        &remote_mount,
        "--mount-token-env",
        "remote=GATEWAY_REMOTE_TOKEN",
    ];
    let command = setup.command(&mounts).configure(|command| {
        command
            .env("GATEWAY_REMOTE_TOKEN", "remote-secret")
            .stderr(Stdio::null());
    });
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();

    let names = tool_names(&client).await;
    for expected in ["read_file", "inner_read_file", "inner_exec", "remote_read_file"] {
        assert!(
            names.iter().any(|name| name == expected),
            "{expected} missing from {names:?}"
        );
    }
    let remote_read = json!({"path": "remote.txt"});
    assert_ok(&client, "remote_read_file", remote_read, "over HTTP").await;

    let inner_read = json!({"path": "inner.txt"});
    assert_ok(&client, "inner_read_file", inner_read, "from the inner workspace").await;
    let outer_read = call(&client, "read_file", json!({"path": "inner.txt"})).await;
    assert_eq!(
        outer_read.is_error,
        Some(true),
        "the outer workspace has no inner.txt"
    );
    // The gateway validates before forwarding, with the inner tool's schema.
    let invalid = call(&client, "inner_read_file", json!({"path": 1})).await;
    assert!(
        text(&invalid).contains("`/path`: expected string"),
        "{}",
        text(&invalid)
    );
    client.cancel().await.unwrap();

    let log = std::fs::read_to_string(&setup.audit).unwrap();
    let tools: Vec<String> = log
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["tool"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        tools,
        [
            "remote_read_file",
            "inner_read_file",
            "read_file",
            "inner_read_file"
        ]
    );
}

/// A mounted stdio server killed mid-call: the call in flight ends with an error at once,
/// and the next call starts a new server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_server_that_dies_is_restarted_on_the_next_call() {
    use agent_tools::ToolCall;
    use agent_tools::mcp::{McpServer, MountMcp as _, MountOptions};

    let inner = tempfile::tempdir().unwrap();
    // The server is killed mid-`exec`, which leaves that call's temporary directory
    // behind; it goes in `inner`, not the machine's /tmp.
    let temp = inner.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let server = McpServer::stdio(env!("CARGO_BIN_EXE_agent-tools"), ["serve"])
        .current_dir(inner.path())
        .env("TMPDIR", &temp);
    let registry = ToolRegistry::new();
    let mount = registry
        .mount_mcp(server, MountOptions::new().prefix("inner_"))
        .await
        .unwrap();
    assert!(mount.tool_names().contains(&"inner_exec".to_owned()));

    // The server is the test's child running in `inner`; a call proves it is the one
    // serving the mount. (Its commands run in a PID namespace, so `$PPID` cannot tell.)
    let cwd = inner.path().canonicalize().unwrap();
    let server_pid = |registry: ToolRegistry| {
        let cwd = cwd.clone();
        async move {
            let call = ToolCall::new("pid", "inner_exec", json!({"command": "true"}));
            let result = registry.call(call).await;
            assert!(!result.is_error(), "{}", result.text());
            let servers = processes::children_in(std::process::id(), &cwd);
            assert_eq!(servers.len(), 1, "one mounted server: {servers:?}");
            servers[0]
        }
    };
    let first = server_pid(registry.clone()).await;

    let long = tokio::spawn({
        let registry = registry.clone();
        async move {
            let call = ToolCall::new(
                "long",
                "inner_exec",
                json!({"command": "touch started; sleep 60"}),
            );
            registry.call(call).await
        }
    });
    let started = inner.path().join("started");
    poll("the long call to be running", || started.exists().then_some(())).await;
    kill_process(Pid::from_raw(first).unwrap(), Signal::KILL).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(10), long)
        .await
        .expect("the call in flight must end when its server dies")
        .unwrap();
    assert!(result.is_error());
    assert!(result.text().contains("not available"), "{}", result.text());

    let second = server_pid(registry.clone()).await;
    assert_ne!(first, second);
    mount.unmount().await;
    assert!(!registry.contains("inner_exec"));
}

/// The MCP server under load: 100 concurrent calls from four clients over HTTP.
const LOAD_CALLS: usize = 100;
const LOAD_CLIENTS: usize = 4;

/// Call `i`: its tool, its arguments (different for every call, so the audit lines can
/// be told apart), and a piece of text its result must contain.
fn planned_load_call(i: usize) -> (&'static str, Value, String) {
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
    builtins::register_all(&registry, Some(ws.clone()), &config).unwrap();
    let server = agent_tools::mcp::serve_http(registry, "127.0.0.1:0")
        .await
        .unwrap();
    assert!(server.url().starts_with("http://127.0.0.1:"));

    let mut clients: Vec<Client> = Vec::new();
    for _ in 0..LOAD_CLIENTS {
        let transport = StreamableHttpClientTransport::from_uri(server.url());
        clients.push(().serve(transport).await.unwrap());
    }
    let started = Instant::now();
    let tasks: Vec<_> = (0..LOAD_CALLS)
        .map(|i| {
            let peer = clients[i % LOAD_CLIENTS].peer().clone();
            let (name, arguments, _) = planned_load_call(i);
            let params =
                CallToolRequestParams::new(name).with_arguments(arguments.as_object().unwrap().clone());
            tokio::spawn(async move { peer.call_tool(params).await })
        })
        .collect();
    for (i, task) in tasks.into_iter().enumerate() {
        let (name, _, expected) = planned_load_call(i);
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
    eprintln!(
        "{LOAD_CALLS} calls over {LOAD_CLIENTS} clients in {:?}",
        started.elapsed()
    );
    for i in (0..LOAD_CALLS).filter(|i| i % 5 == 0) {
        let written = std::fs::read_to_string(ws.join(format!("out/f-{i}.txt"))).unwrap();
        assert_eq!(written, format!("content {i}\n"));
    }
    for client in clients {
        client.cancel().await.unwrap();
    }
    drop(server);

    // One whole line per call, matched to its call by tool and arguments.
    let log = std::fs::read_to_string(&audit_path).unwrap();
    let mut audited = HashSet::new();
    let mut ids = HashSet::new();
    for line in log.lines() {
        let event: AuditEvent = serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}"));
        assert_eq!(event.outcome, Outcome::Ok, "{line}");
        // Each HTTP session has its own session id, so (session, call id) is unique.
        let session = event.session_id.clone().unwrap_or_default();
        assert!(session.starts_with("http-"), "{line}");
        assert!(
            ids.insert((session, event.call_id.clone())),
            "id seen twice: {line}"
        );
        assert!(
            audited.insert((event.tool, event.arguments.to_string())),
            "audited twice: {line}"
        );
    }
    let expected: HashSet<(String, String)> = (0..LOAD_CALLS)
        .map(|i| {
            let (name, arguments, _) = planned_load_call(i);
            (name.to_owned(), arguments.to_string())
        })
        .collect();
    assert_eq!(log.lines().count(), LOAD_CALLS);
    assert_eq!(audited.len(), expected.len());
    assert_eq!(audited, expected);
}

/// `serve` reads its stdin on Tokio's pipe driver when it is a pipe; a stdin that is a
/// regular file (a recorded session replayed) takes the blocking path instead, and is
/// served to its end all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_answers_a_stdin_that_is_a_file_and_exits_at_its_end() {
    let workspace = tempfile::tempdir().unwrap();
    let session = workspace.path().join("session.jsonl");
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "file", "version": "1"}}});
    std::fs::write(&session, format!("{initialize}\n")).unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .arg("--workspace")
        .arg(workspace.path())
        .arg("serve")
        .stdin(std::fs::File::open(&session).unwrap())
        .stderr(Stdio::null())
        .output();
    let output = tokio::time::timeout(Duration::from_secs(30), output)
        .await
        .expect("serve exits at the end of its stdin")
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let answer: Value = serde_json::from_slice(output.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
}
