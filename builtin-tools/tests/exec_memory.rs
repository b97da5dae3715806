//! `exec` reading a 500 MB flood keeps its memory bounded. Alone in its own test binary,
//! so the process's peak memory belongs to this one test.

use builtin_tools::Workspace;
use builtin_tools::shell::{Exec, ExecArgs, ExecConfig, exec};
use tool_core::ToolContext;

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
    let tool = Exec::new(ExecConfig::default()).expect("the default configuration is valid");
    let before = peak_kib();
    let args = ExecArgs {
        command: "yes | head -c 500M".into(),
        working_dir: None,
        timeout_secs: Some(120),
        env: None,
    };
    let out = exec(&ws, &tool, args, &ToolContext::new("flood"))
        .await
        .expect("the command runs");
    let grown = peak_kib().saturating_sub(before);
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
