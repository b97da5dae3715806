//! The end of an HTTP session ends it in the registry: a tool that started a process for
//! the session, to live until the session ends ([`ToolContext::session_ended`]), sees it
//! end when the client sends `DELETE`, and the other sessions' processes stay.

use std::time::{Duration, Instant};

use agent_tools_core::{ToolContext, ToolError, ToolRegistry, tool::DynamicTool};
use agent_tools_mcp::serve_http;
use serde_json::json;

use crate::session_client::Session;

/// Starts `sleep` and kills it when the call's session ends; answers `pid=<pid>;`.
fn start_sleeper() -> DynamicTool {
    DynamicTool::new(
        "start",
        "Start a process that lives as long as the session.",
        json!({"type": "object"}),
        |_, ctx: ToolContext| async move {
            let mut child = tokio::process::Command::new("sleep")
                .arg("1000")
                .kill_on_drop(true)
                .spawn()
                .map_err(|error| ToolError::new(error.to_string()))?;
            let pid = child.id().unwrap_or_default();
            let ended = ctx.session_ended();
            tokio::spawn(async move {
                ended.cancelled().await;
                let _ = child.kill().await;
            });
            Ok::<_, ToolError>(format!("pid={pid};"))
        },
    )
}

/// Calls `start` in `session` and returns the pid of the process it started.
async fn start(session: &Session<'_>) -> u32 {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "start", "arguments": {}}});
    let body = session.send(call).await;
    let pid = body.split("pid=").nth(1).and_then(|rest| rest.split(';').next());
    pid.and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {body}"))
}

/// Whether `pid` is a live `sleep` (not gone, not a zombie).
fn sleeping(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // `pid (comm) state …`: the state follows the last parenthesis.
    stat.contains("(sleep)")
        && stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
}

async fn until_gone(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while sleeping(pid) {
        assert!(Instant::now() < deadline, "process {pid} outlived its session");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_sessions_delete_ends_what_its_tools_kept_for_it() {
    let registry = ToolRegistry::new();
    registry.register(start_sleeper()).unwrap();
    let server = serve_http(registry, "127.0.0.1:0").await.unwrap();
    let client = reqwest::Client::new();
    let one = Session::open(&client, server.url()).await;
    let two = Session::open(&client, server.url()).await;
    let (first, second) = (start(&one).await, start(&two).await);
    assert!(sleeping(first) && sleeping(second));
    one.end().await;
    until_gone(first).await;
    assert!(sleeping(second), "another session's process ended too");
    two.end().await;
    until_gone(second).await;
}
