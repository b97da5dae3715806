//! An MCP `tools/call` round trip over stdio: rmcp's client talking to `agent-tools serve`
//! as a child process, calling `read_file` on a small file — against `in_process`, the
//! same call through `ToolRegistry::call` with the same built-in tools. The difference is
//! what the protocol costs: JSON-RPC framing both ways, two pipe hops, the server's
//! dispatch.

use std::hint::black_box;

use agent_tools::builtin_tools::{self, BuiltinConfig};
use agent_tools::mcp::rmcp::ServiceExt as _;
use agent_tools::mcp::rmcp::model::CallToolRequestParams;
use agent_tools::mcp::rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use agent_tools::{ToolCall, ToolRegistry};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

fn round_trip(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let workspace = tempfile::tempdir().expect("a temp dir");
    std::fs::write(workspace.path().join("hello.txt"), "hello\nworld\n").expect("writes");
    let arguments = json!({"path": "hello.txt"});

    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools")).configure(|command| {
        command
            .arg("--workspace")
            .arg(workspace.path())
            .arg("serve")
            .stderr(std::process::Stdio::null());
    });
    let client = runtime.block_on(async {
        let transport = TokioChildProcess::new(command).expect("agent-tools starts");
        ().serve(transport).await.expect("handshake")
    });
    let params = CallToolRequestParams::new("read_file")
        .with_arguments(arguments.as_object().cloned().expect("an object"));
    let first = runtime
        .block_on(client.peer().call_tool(params.clone()))
        .expect("a result");
    assert_eq!(first.is_error, Some(false), "{first:?}");

    let registry = ToolRegistry::new();
    builtin_tools::register_all(
        &registry,
        Some(workspace.path().to_path_buf()),
        &BuiltinConfig::default(),
    )
    .expect("built-ins register");

    let mut group = c.benchmark_group("mcp");
    group.bench_function("stdio_round_trip", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(client.peer().call_tool(params.clone()).await.expect("a result")) });
    });
    group.bench_function("in_process", |b| {
        b.to_async(&runtime).iter(|| async {
            let call = ToolCall::new("call_1", "read_file", arguments.clone());
            black_box(registry.call(call).await)
        });
    });
    group.finish();
    runtime.block_on(async { drop(client.cancel().await) });
}

criterion_group!(benches, round_trip);
criterion_main!(benches);
