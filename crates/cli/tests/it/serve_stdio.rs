//! `agent-tools serve` over stdio on one thread: the session is read, dispatched and
//! answered on the main thread, with pipes (rmcp's client, as Python's, Rust's and Go's
//! process APIs give them) and Unix socket pairs (what Node gives a child) on the reactor —
//! which is what makes a small call's round trip cheap; `benches/mcp.rs` measures it —
//! and calls a client sends at once still run at once.

use std::io::{BufRead as _, BufReader, Write as _};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use agent_tools::mcp::rmcp::model::CallToolRequestParams;
use agent_tools::mcp::rmcp::service::RunningService;
use agent_tools::mcp::rmcp::transport::TokioChildProcess;
use agent_tools::mcp::rmcp::{RoleClient, ServiceExt as _};
use serde_json::{Value, json};

use mcp_text::text;
use test_support::mcp_text;

type Client = RunningService<RoleClient, ()>;

/// `agent-tools serve` over a fresh workspace in `dir`, and its process id.
async fn serve(dir: &Path) -> (Client, u32) {
    let workspace = dir.join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("hello.txt"), "hello\n").unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command
        .arg("--workspace")
        .arg(&workspace)
        .arg("--memory-db")
        .arg(dir.join("memory.db"))
        .arg("serve")
        .kill_on_drop(true);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = transport.id().expect("the server runs");
    (().serve(transport).await.unwrap(), pid)
}

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments.as_object().cloned().unwrap())
}

/// The names of process `pid`'s threads.
fn threads(pid: u32) -> Vec<String> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap();
    tasks
        .map(|task| std::fs::read_to_string(task.unwrap().path().join("comm")).unwrap())
        .map(|name| name.trim_end().to_owned())
        .collect()
}

#[tokio::test]
async fn a_stdio_session_is_served_on_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let (client, pid) = serve(dir.path()).await;
    let tools = client.peer().list_all_tools().await.unwrap();
    assert!(tools.iter().any(|tool| tool.name == "read_file"), "{tools:?}");
    let invalid = client
        .peer()
        .call_tool(params("read_file", json!({"path": 1})))
        .await
        .unwrap();
    assert_eq!(invalid.is_error, Some(true), "{invalid:?}");
    // No tool body has run yet: an `fn` tool's would start a thread of the blocking pool.
    let threads = threads(pid);
    assert_eq!(
        threads.len(),
        1,
        "stdio is served on the main thread alone: {threads:?}"
    );
    client.cancel().await.unwrap();
}

/// Whether process `pid`'s descriptor `fd` is non-blocking (`flags:` of its fdinfo, octal;
/// `O_NONBLOCK` is 04000 on Linux).
fn nonblocking(pid: u32, fd: u32) -> bool {
    let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{fd}")).unwrap();
    let flags = info
        .lines()
        .find_map(|line| line.strip_prefix("flags:"))
        .and_then(|flags| u32::from_str_radix(flags.trim(), 8).ok())
        .unwrap();
    flags & 0o4000 != 0
}

#[test]
fn unix_socket_pairs_are_served_on_the_reactor_on_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    let (to_server, server_in) = UnixStream::pair().unwrap();
    let (from_server, server_out) = UnixStream::pair().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .arg("--workspace")
        .arg(&workspace)
        .arg("--memory-db")
        .arg(dir.path().join("memory.db"))
        .arg("serve")
        .stdin(Stdio::from(OwnedFd::from(server_in)))
        .stdout(Stdio::from(OwnedFd::from(server_out)))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    from_server
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut answers = BufReader::new(&from_server);
    let mut ask = |request: Value| {
        writeln!(&to_server, "{request}").unwrap();
        let mut line = String::new();
        answers.read_line(&mut line).expect("an answer within 30 s");
        serde_json::from_str::<Value>(&line).unwrap()
    };
    let initialized = ask(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}),
    );
    assert_eq!(initialized["result"]["serverInfo"]["name"], "agent-tools");
    writeln!(
        &to_server,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    let tools = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert!(
        tools["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool["name"] == "read_file")
    );

    let pid = child.id();
    assert!(
        nonblocking(pid, 0) && nonblocking(pid, 1),
        "the sockets are on the reactor"
    );
    let threads = threads(pid);
    assert_eq!(
        threads.len(),
        1,
        "stdio is served on the main thread alone: {threads:?}"
    );
    to_server.shutdown(std::net::Shutdown::Write).unwrap();
    assert!(child.wait().unwrap().success(), "serve ends with its input");
}

#[tokio::test]
async fn calls_sent_at_once_run_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (client, _) = serve(dir.path()).await;
    let release = dir.path().join("ws/release");
    let waiting = params(
        "exec",
        json!({"command": "while [ ! -e release ]; do sleep 0.01; done; echo released", "timeout_secs": 60}),
    );
    let peer = client.peer().clone();
    let mut waiting = tokio::spawn(async move { peer.call_tool(waiting).await });

    // While the command waits, the same session answers other calls: a sync tool on the
    // blocking pool, and another process.
    let meanwhile = async {
        let read = client
            .peer()
            .call_tool(params("read_file", json!({"path": "hello.txt"})));
        let echo = client
            .peer()
            .call_tool(params("exec", json!({"command": "echo meanwhile"})));
        (read.await.unwrap(), echo.await.unwrap())
    };
    let (read, echo) = tokio::time::timeout(Duration::from_secs(30), meanwhile)
        .await
        .expect("other calls are answered while the first one waits");
    assert!(text(&read).contains("hello"), "{read:?}");
    assert!(text(&echo).contains("meanwhile"), "{echo:?}");
    assert!(!waiting.is_finished(), "the first command is still waiting");

    std::fs::write(&release, "").unwrap();
    let released = tokio::time::timeout(Duration::from_secs(30), &mut waiting)
        .await
        .expect("the first command ends once released")
        .unwrap()
        .unwrap();
    assert!(text(&released).contains("released"), "{released:?}");
    client.cancel().await.unwrap();
}
