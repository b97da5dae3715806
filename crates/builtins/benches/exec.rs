//! What `exec` adds to running a command: `exec` of `true` through the registry — guard,
//! temp dir, process group, parent-death signal, PID namespace, Landlock and seccomp,
//! output capture — against `sh_c_true`, a bare `sh -c true` spawned with Tokio and
//! waited for, as any agent framework must at least do. `exec_true_no_namespace` keeps
//! background processes (no PID namespace), `exec_true_unsandboxed` has neither
//! namespace nor sandbox: the differences are what those layers cost.

use std::hint::black_box;
use std::sync::Arc;

use agent_tools_builtins::Builtins;
use agent_tools_builtins::Workspace;
use agent_tools_builtins::{ExecConfig, ExecSandbox};
use agent_tools_core::{ToolCall, ToolRegistry};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

fn registry(workspace: &Workspace, sandbox: ExecSandbox, keep_background: bool) -> ToolRegistry {
    let mut config = ExecConfig::default();
    config.sandbox = sandbox;
    config.keep_background = keep_background;
    let builtins = Builtins::builder(workspace.clone())
        .exec(config)
        .build()
        .expect("valid configuration");
    let registry = ToolRegistry::new();
    Arc::new(builtins).register_all(&registry).expect("registers");
    registry
}

fn exec(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = tempfile::tempdir().expect("a temp dir");
    let workspace = Workspace::open(dir.path()).expect("opens");
    let sandboxed = registry(&workspace, ExecSandbox::Landlock, false);
    let no_namespace = registry(&workspace, ExecSandbox::Landlock, true);
    let unsandboxed = registry(&workspace, ExecSandbox::None, true);
    let arguments = json!({"command": "true"});
    for registry in [&sandboxed, &no_namespace, &unsandboxed] {
        let result = runtime.block_on(registry.call(ToolCall::new("c", "exec", arguments.clone())));
        assert!(!result.is_error(), "{}", result.text());
    }

    let mut group = c.benchmark_group("exec");
    let cases = [
        ("exec_true", &sandboxed),
        ("exec_true_no_namespace", &no_namespace),
        ("exec_true_unsandboxed", &unsandboxed),
    ];
    for (name, registry) in cases {
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter(|| async {
                black_box(registry.call(ToolCall::new("c", "exec", arguments.clone())).await)
            });
        });
    }
    group.bench_function("sh_c_true", |b| {
        b.to_async(&runtime).iter(|| async {
            let output = tokio::process::Command::new("/bin/sh")
                .args(["-c", "true"])
                .current_dir(dir.path())
                .output()
                .await
                .expect("sh runs");
            black_box(output)
        });
    });
    group.finish();
}

criterion_group!(benches, exec);
criterion_main!(benches);
