//! `exec` reading a 500 MB flood keeps its memory bounded. Alone in its own test binary,
//! so the process's peak memory belongs to this one test. The command is called through
//! the registry, as a user's call is.

use std::sync::Arc;

use agent_tools_builtins::{Builtins, Workspace};
use agent_tools_core::{ToolCall, ToolRegistry};
use serde_json::json;

/// The process's peak resident memory (`VmHWM`) in KiB.
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .expect("a VmHWM line");
    line.split_whitespace()
        .nth(1)
        .and_then(|kib| kib.parse().ok())
        .expect("a number")
}

#[tokio::test]
async fn a_flood_of_output_does_not_grow_memory() {
    let temp = tempfile::tempdir().expect("a temporary directory");
    let ws = Workspace::open(temp.path()).expect("the workspace opens");
    let builtins = Builtins::new(ws).expect("the default configuration is valid");
    // `exec` brings its own time limit (11 minutes), which the registry takes over its
    // default (60 s): the command's `timeout_secs` is the one that counts.
    let registry = ToolRegistry::new();
    Arc::new(builtins)
        .register_all(&registry)
        .expect("the tools register");
    let arguments = json!({"command": "yes | head -c 500M", "timeout_secs": 120});
    let before = peak_kib();
    let result = registry.call(ToolCall::new("flood", "exec", arguments)).await;
    let grown = peak_kib().saturating_sub(before);
    let out = result.text();
    assert!(!result.is_error(), "the command runs: {out:.300}");
    assert!(
        out.starts_with("exit code: 0\n--- stdout ---\ny\ny\n"),
        "{}",
        &out[..40]
    );
    assert!(out.contains(" bytes omitted ...]"), "{}", out.len());
    assert!(out.len() < 31 * 1024, "{}", out.len());
    assert!(
        grown < 8 * 1024,
        "peak memory grew by {grown} KiB while reading 500 MB"
    );
}
