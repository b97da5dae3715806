//! Mounting remote MCP tools: a "remote" registry served over streamable HTTP on
//! 127.0.0.1, mounted into a separate "local" registry.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_tools_core::{
    ToolCall, ToolContext, ToolError, ToolOutput, ToolRegistry,
    audit::Outcome,
    context::{CancellationToken, Progress, ProgressReporter},
    tool::{DynamicTool, ToolMeta},
};
use agent_tools_mcp::{
    HttpOptions, HttpServer, McpHandler, McpMount, McpServer, MountError, MountMcp as _, MountOptions,
    ServeError, serve_http,
};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Bounds every wait in these tests; nothing should come near it.
const PATIENCE: Duration = Duration::from_secs(10);

/// What the remote tools saw.
#[derive(Default)]
struct Seen {
    echo_calls: AtomicUsize,
    /// Notified when `hang` starts.
    hang_started: Notify,
    /// Notified when `hang` sees its call cancelled.
    hang_cancelled: Notify,
    /// Notified when the local side got `slow_progress`'s report.
    progress_arrived: Notify,
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// The remote registry: a few tools covering each kind of result.
fn remote_registry(seen: &Arc<Seen>) -> ToolRegistry {
    let remote = ToolRegistry::builder().no_default_timeout().build();
    let counter = seen.clone();
    remote
        .register(
            DynamicTool::from_meta(
                ToolMeta::new("echo", "Repeat the text.")
                    .title("Echo")
                    .read_only(true),
                object(json!({"text": {"type": "string"}}), &["text"]),
                move |args: Value, _ctx: ToolContext| {
                    counter.echo_calls.fetch_add(1, Ordering::SeqCst);
                    async move {
                        let text = args["text"].as_str().unwrap_or_default().to_owned();
                        Ok::<_, ToolError>(
                            ToolOutput::text(text.clone()).with_structured(json!({"echoed": text})),
                        )
                    }
                },
            )
            .output_schema(object(json!({"echoed": {"type": "string"}}), &["echoed"])),
        )
        .unwrap();
    remote
        .register(DynamicTool::from_meta(
            ToolMeta::new("fail", "Always fail.")
                .destructive(true)
                .idempotent(true),
            json!({"type": "object", "properties": {}}),
            |_: Value, _: ToolContext| async { Ok::<_, ToolError>(ToolOutput::error("it failed remotely")) },
        ))
        .unwrap();
    remote
        .register(DynamicTool::new(
            "picky",
            "Reject arguments it does not know (its schema allows them).",
            json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            |args: Value, _: ToolContext| async move {
                let unknown: Vec<String> = args
                    .as_object()
                    .into_iter()
                    .flat_map(|map| map.keys())
                    .filter(|key| *key != "n")
                    .cloned()
                    .collect();
                if unknown.is_empty() {
                    Ok("fine".to_owned())
                } else {
                    Err(ToolError::invalid_arguments(format!(
                        "unknown argument `{}`",
                        unknown.join("`, `")
                    )))
                }
            },
        ))
        .unwrap();
    let cancelled = seen.clone();
    remote
        .register(DynamicTool::new(
            "hang",
            "Wait until cancelled.",
            json!({"type": "object"}),
            move |_: Value, ctx: ToolContext| {
                let seen = cancelled.clone();
                async move {
                    seen.hang_started.notify_one();
                    ctx.cancelled().await;
                    seen.hang_cancelled.notify_one();
                    Err::<String, _>(ToolError::cancelled())
                }
            },
        ))
        .unwrap();
    let progress = seen.clone();
    remote
        .register(DynamicTool::new(
            "slow_progress",
            "Report progress, then finish once it has arrived.",
            json!({"type": "object"}),
            move |_: Value, ctx: ToolContext| {
                let seen = progress.clone();
                async move {
                    ctx.report_progress(1.0, Some(2.0), Some("half way"));
                    // The reports travel apart from the result; finish after they arrived.
                    let _ = tokio::time::timeout(PATIENCE, seen.progress_arrived.notified()).await;
                    Ok::<_, ToolError>("done")
                }
            },
        ))
        .unwrap();
    remote
        .register(DynamicTool::new(
            "delete_everything",
            "Filtered out by the tests.",
            json!({"type": "object"}),
            |_: Value, _: ToolContext| async { Ok::<_, ToolError>("deleted") },
        ))
        .unwrap();
    // 63 characters: valid remotely, too long with the prefix.
    remote
        .register(DynamicTool::new(
            "a".repeat(63),
            "A long name.",
            json!({"type": "object"}),
            |_: Value, _: ToolContext| async { Ok::<_, ToolError>("long") },
        ))
        .unwrap();
    remote
}

fn options() -> MountOptions {
    MountOptions::new()
        .prefix("r_")
        .filter(|name| !name.starts_with("delete_"))
}

async fn serve(remote: &ToolRegistry) -> HttpServer {
    serve_http(remote.clone(), "127.0.0.1:0").await.unwrap()
}

/// The remote registry of test tools, served on a free port.
async fn start_remote() -> (Arc<Seen>, ToolRegistry, HttpServer) {
    let seen = Arc::new(Seen::default());
    let remote = remote_registry(&seen);
    let server = serve(&remote).await;
    (seen, remote, server)
}

/// Mounts `server` into `local` with [`options`].
async fn mount(local: &ToolRegistry, server: &HttpServer) -> McpMount {
    local
        .mount_mcp(McpServer::http(server.url()), options())
        .await
        .unwrap()
}

async fn call(local: &ToolRegistry, name: &str, arguments: Value) -> agent_tools_core::ToolResult {
    bounded(local.call(ToolCall::new("c1", name, arguments))).await
}

pub(crate) async fn bounded<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(PATIENCE, future)
        .await
        .expect("finished within the test's patience")
}

/// Waits (polling the registry's changes) until `done` holds.
pub(crate) async fn until(local: &ToolRegistry, done: impl Fn(&ToolRegistry) -> bool) {
    let mut changes = local.changes();
    bounded(async {
        while !done(local) {
            assert!(changes.changed().await, "the registry is gone");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imports_tools_with_prefix_filter_annotations_and_schemas() {
    let (_seen, remote, server) = start_remote().await;
    let local = ToolRegistry::new();
    let mount = local
        .mount_mcp(
            McpServer::http(server.url()),
            options().timeout(Duration::from_secs(7)),
        )
        .await
        .unwrap();

    let mut names = mount.tool_names();
    names.sort();
    assert_eq!(
        names,
        ["r_echo", "r_fail", "r_hang", "r_picky", "r_slow_progress"]
    );
    let mut local_names = local.names();
    local_names.sort();
    assert_eq!(local_names, names);
    let skipped = mount.skipped();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].0, "a".repeat(63));
    assert!(skipped[0].1.contains("64 characters"), "{}", skipped[0].1);

    let echo = local.get("r_echo").unwrap();
    let spec = echo.spec();
    assert_eq!(spec.meta.description, "Repeat the text.");
    assert_eq!(spec.title(), Some("Echo"));
    assert_eq!(spec.meta.annotations.read_only, Some(true));
    assert_eq!(
        spec.input_schema,
        remote.get("echo").unwrap().spec().input_schema,
        "the schema as served"
    );
    assert_eq!(
        spec.output_schema,
        remote.get("echo").unwrap().spec().output_schema
    );
    assert_eq!(spec.meta.timeout, Some(Duration::from_secs(7)));
    let fail = local.get("r_fail").unwrap();
    assert_eq!(fail.spec().meta.annotations.destructive, Some(true));
    assert_eq!(fail.spec().meta.annotations.idempotent, Some(true));
    assert_eq!(fail.spec().meta.annotations.read_only, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_round_trip() {
    let (seen, _remote, server) = start_remote().await;
    let local = ToolRegistry::new();
    let _mount = mount(&local, &server).await;

    let result = call(&local, "r_echo", json!({"text": "hi"})).await;
    assert_eq!(result.outcome, Outcome::Ok, "{}", result.text());
    assert_eq!(result.text(), "hi");
    assert_eq!(result.output.structured, Some(json!({"echoed": "hi"})));

    // A remote `isError` result stays an error.
    let result = call(&local, "r_fail", json!({})).await;
    assert!(result.is_error());
    assert_eq!(result.outcome, Outcome::Error);
    assert_eq!(result.text(), "it failed remotely");

    // Our validation, against the schema as served, stops bad arguments before they go out.
    let calls_before = seen.echo_calls.load(Ordering::SeqCst);
    let result = call(&local, "r_echo", json!({"text": 5})).await;
    assert_eq!(result.outcome, Outcome::InvalidArguments, "{}", result.text());
    assert!(result.text().contains("text"), "{}", result.text());
    assert_eq!(seen.echo_calls.load(Ordering::SeqCst), calls_before, "not sent");

    // Arguments the schema allows but the remote tool refuses: the remote's message.
    let result = call(&local, "r_picky", json!({"n": 1, "m": 2})).await;
    assert!(result.is_error());
    assert!(
        result.text().contains("unknown argument `m`"),
        "{}",
        result.text()
    );
    let result = call(&local, "r_picky", json!({"n": 1})).await;
    assert_eq!(result.text(), "fine");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_json_rpc_error_becomes_an_error_result() {
    let (_seen, remote, server) = start_remote().await;
    let local = ToolRegistry::new();
    let _mount = mount(&local, &server).await;
    // Hold the tool, so the call goes out whatever list_changed does meanwhile.
    let echo = local.get("r_echo").unwrap();
    remote.unregister("echo").unwrap();
    let error = bounded(echo.call(json!({"text": "hi"}), ToolContext::new("c1")))
        .await
        .unwrap_err();
    let message = error.message();
    assert!(message.contains(&server.url()), "{message}");
    assert!(message.contains("unknown tool `echo`"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_cancels_the_remote_call() {
    let (seen, _remote, server) = start_remote().await;
    let local = ToolRegistry::new();
    let _mount = local
        .mount_mcp(
            McpServer::http(server.url()),
            options().timeout(Duration::from_millis(300)),
        )
        .await
        .unwrap();

    let started = Instant::now();
    let result = call(&local, "r_hang", json!({})).await;
    assert_eq!(result.outcome, Outcome::Timeout, "{}", result.text());
    assert!(started.elapsed() < Duration::from_secs(3));
    bounded(seen.hang_started.notified()).await;
    bounded(seen.hang_cancelled.notified()).await;

    // The caller's cancellation reaches the remote too.
    let token = CancellationToken::new();
    let call = local.call(ToolCall::new("c2", "r_hang", json!({})).with_cancellation(token.clone()));
    let cancel = async {
        seen.hang_started.notified().await;
        token.cancel();
    };
    let (result, ()) = bounded(async { tokio::join!(call, cancel) }).await;
    assert_eq!(result.outcome, Outcome::Cancelled, "{}", result.text());
    bounded(seen.hang_cancelled.notified()).await;
    assert_eq!(call_echo(&local).await.text(), "hi");
}

async fn call_echo(local: &ToolRegistry) -> agent_tools_core::ToolResult {
    call(local, "r_echo", json!({"text": "hi"})).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_progress_reaches_the_caller() {
    let (seen, _remote, server) = start_remote().await;
    let local = ToolRegistry::new();
    let _mount = mount(&local, &server).await;

    let reports = Arc::new(Mutex::new(Vec::<Progress>::new()));
    let sink = reports.clone();
    let arrived = seen.clone();
    let reporter = ProgressReporter::new(move |progress| {
        sink.lock().unwrap().push(progress);
        arrived.progress_arrived.notify_one();
    });
    let result =
        bounded(local.call(ToolCall::new("c1", "r_slow_progress", json!({})).with_progress(reporter))).await;
    assert_eq!(result.text(), "done");
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].progress, 1.0);
    assert_eq!(reports[0].total, Some(2.0));
    assert_eq!(reports[0].message.as_deref(), Some("half way"));
}

/// A server that reports progress many times and answers at once: every report reaches
/// the caller, in order, before the result (rmcp hands each notification to a task of its
/// own, which used to reorder them and lose the last ones).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_progress_arrives_complete_and_in_order() {
    const REPORTS: u32 = 300;
    let remote = ToolRegistry::new();
    let flood = DynamicTool::new(
        "flood",
        "Report progress, fast.",
        json!({"type": "object"}),
        |_: Value, ctx: ToolContext| async move {
            for step in 1..=REPORTS {
                ctx.report_progress(f64::from(step), Some(f64::from(REPORTS)), None);
            }
            Ok::<_, ToolError>("done")
        },
    );
    remote.register(flood).unwrap();
    let server = serve(&remote).await;
    let local = ToolRegistry::new();
    let _mount = mount(&local, &server).await;
    for round in 0..3 {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let reporter =
            ProgressReporter::new(move |progress: Progress| sink.lock().unwrap().push(progress.progress));
        let call = ToolCall::new(format!("c{round}"), "r_flood", json!({})).with_progress(reporter);
        let result = bounded(local.call(call)).await;
        assert_eq!(result.text(), "done");
        let seen = seen.lock().unwrap();
        let expected: Vec<f64> = (1..=REPORTS).map(f64::from).collect();
        assert_eq!(
            *seen, expected,
            "round {round}: complete and in order when the result came"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follows_list_changed() {
    let (_seen, remote, server) = start_remote().await;
    let local = ToolRegistry::new();
    let mount = mount(&local, &server).await;

    remote
        .register(DynamicTool::new(
            "added",
            "Arrived later.",
            json!({"type": "object"}),
            |_: Value, _: ToolContext| async { Ok::<_, ToolError>("added here") },
        ))
        .unwrap();
    until(&local, |local| local.contains("r_added")).await;
    assert!(mount.tool_names().contains(&"r_added".to_owned()));
    assert_eq!(call(&local, "r_added", json!({})).await.text(), "added here");
    // Filtered names stay out when the list changes.
    remote
        .register(DynamicTool::new(
            "delete_more",
            "Filtered.",
            json!({"type": "object"}),
            |_: Value, _: ToolContext| async { Ok::<_, ToolError>("") },
        ))
        .unwrap();
    remote.unregister("added").unwrap();
    until(&local, |local| !local.contains("r_added")).await;
    assert!(!mount.tool_names().contains(&"r_added".to_owned()));
    assert!(!local.contains("r_delete_more"));
    assert!(local.contains("r_echo"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_server_gives_errors_and_the_next_call_reconnects() {
    let (seen, remote, server) = start_remote().await;
    let addr: SocketAddr = server.local_addr();
    let local = ToolRegistry::builder().default_timeout(PATIENCE * 2).build();
    let _mount = mount(&local, &server).await;
    assert_eq!(call_echo(&local).await.text(), "hi");

    // A call in flight when the server goes away ends promptly, with an error.
    let local_for_hang = local.clone();
    let hanging = tokio::spawn(async move {
        local_for_hang
            .call(ToolCall::new("c2", "r_hang", json!({})))
            .await
    });
    bounded(seen.hang_started.notified()).await;
    server.shutdown();
    bounded(server.wait()).await.unwrap();
    let started = Instant::now();
    let result = bounded(hanging).await.unwrap();
    assert!(result.is_error());
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );

    // Later calls too, promptly, saying what happens next.
    let started = Instant::now();
    let result = call_echo(&local).await;
    assert!(result.is_error());
    assert!(result.text().contains("is not available"), "{}", result.text());
    assert!(
        result.text().contains("restarted on the next call"),
        "{}",
        result.text()
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );

    // The server is back on the same port: the next call reconnects.
    let _server = serve_http(remote.clone(), addr).await.unwrap();
    let result = call_echo(&local).await;
    assert_eq!(result.outcome, Outcome::Ok, "{}", result.text());
    assert_eq!(result.text(), "hi");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unmount_removes_the_tools() {
    let (_seen, _remote, server) = start_remote().await;
    let local = ToolRegistry::new();
    local
        .register(DynamicTool::new(
            "mine",
            "A local tool.",
            json!({"type": "object"}),
            |_: Value, _: ToolContext| async { Ok::<_, ToolError>("") },
        ))
        .unwrap();
    let mount = mount(&local, &server).await;
    let echo = local.get("r_echo").unwrap();
    assert_eq!(local.len(), 6);
    bounded(mount.unmount()).await;
    assert_eq!(local.names(), ["mine"]);
    let error = bounded(echo.call(json!({"text": "hi"}), ToolContext::new("c1")))
        .await
        .unwrap_err();
    assert!(error.message().contains("unmounted"), "{}", error.message());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mount_failures_name_the_server() {
    let (_seen, _remote, server) = start_remote().await;

    // A name a local tool already has.
    let local = ToolRegistry::new();
    local
        .register(DynamicTool::new(
            "r_echo",
            "Mine.",
            json!({"type": "object"}),
            |_: Value, _: ToolContext| async { Ok::<_, ToolError>("") },
        ))
        .unwrap();
    let error = local
        .mount_mcp(McpServer::http(server.url()), options())
        .await
        .unwrap_err();
    assert!(matches!(error, MountError::Registry { .. }), "{error}");
    assert!(error.to_string().contains("r_echo"), "{error}");
    assert_eq!(local.names(), ["r_echo"], "nothing mounted");

    // Nobody listening.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let url = format!("http://{closed}/mcp");
    let error = bounded(local.mount_mcp(McpServer::http(url.clone()), MountOptions::new()))
        .await
        .unwrap_err();
    assert!(matches!(error, MountError::Connect { .. }), "{error}");
    assert!(error.to_string().contains(&url), "{error}");

    // A command that does not exist.
    let error = bounded(local.mount_mcp(
        McpServer::stdio("/nonexistent/mcp-server", ["--stdio"]),
        MountOptions::new(),
    ))
    .await
    .unwrap_err();
    assert!(matches!(error, MountError::Connect { .. }), "{error}");
    assert!(
        error.to_string().contains("/nonexistent/mcp-server --stdio"),
        "{error}"
    );
    // The cause is kept as a source, and the message, which tells it, is not repeated.
    let mut causes = std::iter::successors(std::error::Error::source(&error), |cause| cause.source());
    let not_found = causes.any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
    });
    assert!(not_found, "{error:?}");
    assert!(error.to_string().contains("cannot start it: "), "{error}");
    assert_eq!(agent_tools_core::error::error_chain(&error), error.to_string());
}

/// The Python MCP server (`test_support::mcp_server`, 2025 protocol, no
/// `server/discover`, so the client falls back to `initialize`) with these tools: `hello`
/// answers with the process id, `crash` exits mid-call, `grow` adds a tool and sends
/// `list_changed`; `bad_schema` has a schema our registry cannot use. `None` when python3
/// is missing (the test is skipped).
fn python_server() -> Option<McpServer> {
    let config = json!({
        "tools": [
            {"name": "hello", "description": "Say hello.", "annotations": {"readOnlyHint": true},
             "inputSchema": {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}},
            {"name": "bad_schema", "description": "Unusable.", "inputSchema": {"type": "string"}},
            {"name": "crash", "description": "Exit mid-call.", "inputSchema": {"type": "object"}},
            {"name": "grow", "description": "Add a tool.", "inputSchema": {"type": "object"}},
        ],
        "list_changed": true,
        "hello_pid": true,
    });
    let python = test_support::mcp_server::python()?;
    Some(McpServer::stdio(
        python,
        test_support::mcp_server::arguments(&config, &[]),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_server_is_mounted_followed_and_restarted() {
    let Some(server) = python_server() else {
        return;
    };
    let local = ToolRegistry::new();
    let mount = local
        .mount_mcp(
            server.env("PYTHONDONTWRITEBYTECODE", "1"),
            MountOptions::new().prefix("py_"),
        )
        .await
        .unwrap();
    let mut names = mount.tool_names();
    names.sort();
    assert_eq!(names, ["py_crash", "py_grow", "py_hello"]);
    assert_eq!(mount.skipped().len(), 1);
    assert_eq!(mount.skipped()[0].0, "bad_schema");
    assert_eq!(
        local.get("py_hello").unwrap().spec().meta.annotations.read_only,
        Some(true)
    );

    let first = call(&local, "py_hello", json!({"who": "you"})).await;
    assert!(first.text().starts_with("hello you from "), "{}", first.text());

    // list_changed of the 2025 protocol, sent on the session itself.
    assert_eq!(call(&local, "py_grow", json!({})).await.text(), "grown");
    until(&local, |local| local.contains("py_grown")).await;
    assert_eq!(call(&local, "py_grown", json!({})).await.text(), "I grew");

    // The process dies mid-call: that call fails promptly, the next one starts a new
    // process.
    let started = Instant::now();
    let result = call(&local, "py_crash", json!({})).await;
    assert!(result.is_error());
    assert!(result.text().contains("is not available"), "{}", result.text());
    assert!(started.elapsed() < Duration::from_secs(5));
    let second = call(&local, "py_hello", json!({"who": "you"})).await;
    assert!(second.text().starts_with("hello you from "), "{}", second.text());
    assert_ne!(first.text(), second.text(), "a new process");

    bounded(mount.unmount()).await;
    assert!(local.is_empty());
    bounded(exited(pid_of(&second.text()))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_registry_ends_the_server() {
    let Some(server) = python_server() else {
        return;
    };
    let local = ToolRegistry::new();
    let mount = local.mount_mcp(server, MountOptions::new()).await.unwrap();
    let hello = call(&local, "hello", json!({"who": "you"})).await;
    let pid = pid_of(&hello.text());
    // The handle going away leaves the tools mounted...
    drop(mount);
    assert_eq!(
        call(&local, "hello", json!({"who": "you"})).await.text(),
        hello.text()
    );
    // ...and nothing but the registry keeps the connection alive.
    drop(local);
    bounded(exited(pid)).await;
}

/// The process id at the end of `hello`'s answer.
fn pid_of(hello: &str) -> u32 {
    hello.rsplit(' ').next().and_then(|pid| pid.parse().ok()).unwrap()
}

/// Waits until process `pid` is gone (Linux: its `/proc` entry disappears once reaped).
async fn exited(pid: u32) {
    let proc_dir = std::path::PathBuf::from(format!("/proc/{pid}"));
    if !std::path::Path::new("/proc/self").exists() {
        return; // No /proc to look at.
    }
    while proc_dir.exists() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A server that requires a bearer token: mounted with it, refused without it or with
/// another; and one that would be open to the network is not started without a token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bearer_token_guards_an_http_server() {
    let seen = Arc::new(Seen::default());
    let remote = remote_registry(&seen);
    let options_with_token = HttpOptions::new().bearer_token("s3cret-token");
    let server = McpHandler::new(remote.clone())
        .serve_http_with("127.0.0.1:0", options_with_token.clone())
        .await
        .unwrap();

    let local = ToolRegistry::new();
    let with_token = McpServer::http(server.url()).bearer_token("s3cret-token");
    assert!(!format!("{with_token:?}").contains("s3cret"), "{with_token:?}");
    let mount = bounded(local.mount_mcp(with_token, options())).await.unwrap();
    let result = call(&local, "r_echo", json!({"text": "authorized"})).await;
    assert_eq!(result.text(), "authorized");
    mount.unmount().await;

    for server in [
        McpServer::http(server.url()),
        McpServer::http(server.url()).bearer_token("s3cret-tokeN"),
    ] {
        let error = bounded(local.mount_mcp(server, options())).await.unwrap_err();
        assert!(
            matches!(error, MountError::Connect { .. } | MountError::Handshake { .. }),
            "{error}"
        );
        assert!(error.to_string().ends_with("the server answered 401 Unauthorized: it needs a bearer token (McpServer::bearer_token), or refused the one given"), "{error}");
    }
    assert_eq!(seen.echo_calls.load(Ordering::SeqCst), 1);

    let open = McpHandler::new(remote.clone()).serve_http("0.0.0.0:0").await;
    let error = open.expect_err("no server open to the network without a token");
    assert!(matches!(error, ServeError::Unauthenticated(_)), "{error}");
    // With a token, the server answers to any host name, here `0.0.0.0`.
    let guarded = McpHandler::new(remote)
        .serve_http_with("0.0.0.0:0", options_with_token)
        .await
        .unwrap();
    assert!(guarded.url().starts_with("http://0.0.0.0:"));
    let server = McpServer::http(guarded.url()).bearer_token("s3cret-token");
    let mount = bounded(local.mount_mcp(server, options())).await.unwrap();
    assert_eq!(
        call(&local, "r_echo", json!({"text": "any host"})).await.text(),
        "any host"
    );
    mount.unmount().await;
}

/// The local registry's policy governs mounted tools like its own: a refused call is not
/// sent to the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mounted_tools_are_governed_by_the_local_policy() {
    let (seen, _remote, server) = start_remote().await;
    let policy = agent_tools_core::policy::Policy::builder()
        .mode(agent_tools_core::policy::PolicyMode::ReadOnly)
        .deny("r_echo(text: secret*)")
        .build()
        .unwrap();
    let local = ToolRegistry::builder().policy(policy).build();
    let _mount = mount(&local, &server).await;

    let refused = call(&local, "r_echo", json!({"text": "secret plans"})).await;
    assert_eq!(refused.outcome, Outcome::Denied, "{}", refused.text());
    assert_eq!(seen.echo_calls.load(Ordering::SeqCst), 0, "not sent");
    let ran = call(&local, "r_echo", json!({"text": "hi"})).await;
    assert_eq!(
        ran.outcome,
        Outcome::Ok,
        "the server marks echo read-only: {}",
        ran.text()
    );
    assert_eq!(seen.echo_calls.load(Ordering::SeqCst), 1);
    // `fail` is not read-only: read_only mode refuses it before it is sent.
    let refused = call(&local, "r_fail", json!({})).await;
    assert_eq!(refused.outcome, Outcome::Denied, "{}", refused.text());
    assert!(
        refused.text().contains("policy mode `read_only`"),
        "{}",
        refused.text()
    );
}

/// Refuses every call of `r_echo`.
struct NoEcho;

impl agent_tools_core::hooks::Hook for NoEcho {
    fn before_call<'a>(
        &'a self,
        call: &'a agent_tools_core::hooks::HookCall<'a>,
    ) -> agent_tools_core::tool::BoxFuture<'a, agent_tools_core::hooks::BeforeCall> {
        let answer = if call.spec.meta.name == "r_echo" {
            agent_tools_core::hooks::BeforeCall::Deny("no echoes".into())
        } else {
            agent_tools_core::hooks::BeforeCall::Continue
        };
        Box::pin(async move { answer })
    }
}

/// Hooks see mounted tools' calls like local ones: a refused call is not sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_apply_to_mounted_tools() {
    let (seen, _remote, server) = start_remote().await;
    let local = ToolRegistry::builder().hook(NoEcho).build();
    let _mount = mount(&local, &server).await;
    let refused = call(&local, "r_echo", json!({"text": "hi"})).await;
    assert_eq!(refused.outcome, Outcome::Denied);
    assert_eq!(refused.text(), "no echoes");
    assert_eq!(seen.echo_calls.load(Ordering::SeqCst), 0, "not sent");
}
