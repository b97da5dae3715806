//! What `exec` adds to running a command: `exec` of `true` through the registry — guard,
//! temp dir, process group, parent-death signal, Landlock sandbox, output capture —
//! against `sh_c_true`, a bare `sh -c true` spawned with Tokio and waited for, as any
//! agent framework must at least do.

use std::hint::black_box;
use std::sync::Arc;

use builtin_tools::Builtins;
use builtin_tools::shell::{ExecConfig, ExecSandbox};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use tool_core::{ToolCall, ToolRegistry, Workspace};

fn registry(workspace: &Workspace, sandbox: ExecSandbox) -> ToolRegistry {
    let mut config = ExecConfig::default();
    config.sandbox = sandbox;
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
    let sandboxed = registry(&workspace, ExecSandbox::Landlock);
    let unsandboxed = registry(&workspace, ExecSandbox::None);
    let arguments = json!({"command": "true"});
    for registry in [&sandboxed, &unsandboxed] {
        let result = runtime.block_on(registry.call(ToolCall::new("c", "exec", arguments.clone())));
        assert!(!result.is_error(), "{}", result.text());
    }

    let mut group = c.benchmark_group("exec");
    for (name, registry) in [("exec_true", &sandboxed), ("exec_true_unsandboxed", &unsandboxed)] {
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
