//! What `exec` adds to running a command: `exec` of `true` through the registry — guard,
//! temp dir, process group, parent-death signal, PID namespace, Landlock and seccomp,
//! output capture — against `sh_c_true`, a bare `sh -c true` spawned with Tokio and
//! waited for, as any agent framework must at least do. `exec_true_no_namespace` keeps
//! background processes (no PID namespace), `exec_true_unsandboxed` has neither
//! namespace nor sandbox: the differences are what those layers cost. `exec_true` has the
//! default resource limits (`max_processes`, a cgroup per command where one can be made);
//! `exec_true_no_limits` has none and `exec_true_all_limits` all three (processes, memory,
//! CPU time): what making, joining and removing the cgroups costs.
//!
//! The `background` group measures following a background process through the registry:
//! `output_latency` is the time from the process writing a line (it prints the monotonic
//! clock when it does) to `process_output`, already waiting with `wait_secs`, returning
//! it; `output_nothing_new` is a `process_output` call that finds nothing new and does
//! not wait.

use std::hint::black_box;
use std::sync::Arc;

use agent_tools_builtins::Builtins;
use agent_tools_builtins::Workspace;
use agent_tools_builtins::{ExecConfig, ExecSandbox};
use agent_tools_core::{ToolCall, ToolRegistry};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

fn registry(workspace: &Workspace, sandbox: ExecSandbox, keep_background: bool) -> ToolRegistry {
    registry_with(workspace, sandbox, keep_background, |_| {})
}

fn registry_with(
    workspace: &Workspace,
    sandbox: ExecSandbox,
    keep_background: bool,
    change: impl FnOnce(&mut ExecConfig),
) -> ToolRegistry {
    let mut config = ExecConfig::default();
    config.sandbox = sandbox;
    config.keep_background = keep_background;
    change(&mut config);
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
    let no_limits = registry_with(&workspace, ExecSandbox::Landlock, false, |config| {
        config.max_processes = None;
    });
    let all_limits = registry_with(&workspace, ExecSandbox::Landlock, false, |config| {
        config.max_memory = Some(1 << 30);
        config.max_cpu = Some(std::time::Duration::from_secs(60));
    });
    let arguments = json!({"command": "true"});
    for registry in [&sandboxed, &no_namespace, &unsandboxed, &no_limits, &all_limits] {
        let result = runtime.block_on(registry.call(ToolCall::new("c", "exec", arguments.clone())));
        assert!(!result.is_error(), "{}", result.text());
    }

    let mut group = c.benchmark_group("exec");
    let cases = [
        ("exec_true", &sandboxed),
        ("exec_true_no_namespace", &no_namespace),
        ("exec_true_unsandboxed", &unsandboxed),
        ("exec_true_no_limits", &no_limits),
        ("exec_true_all_limits", &all_limits),
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

/// The monotonic clock (`CLOCK_MONOTONIC`, Python's `time.monotonic_ns`) in nanoseconds.
fn monotonic_ns() -> u128 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    u128::try_from(now.tv_sec).expect("after boot") * 1_000_000_000
        + u128::try_from(now.tv_nsec).expect("within a second")
}

/// The clock reading on the last line of a `process_output` answer.
fn last_stamp(text: &str) -> Option<u128> {
    text.lines().rev().find_map(|line| line.trim().parse().ok())
}

fn background(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = tempfile::tempdir().expect("a temp dir");
    let workspace = Workspace::open(dir.path()).expect("opens");
    let registry = registry(&workspace, ExecSandbox::Landlock, false).session("bench");
    // For every line read, prints the monotonic clock at the moment it writes.
    // One write per line: a reader woken by half a line would find no stamp.
    let stamper = "python3 -u -c 'import sys, time\nfor _ in sys.stdin: sys.stdout.write(\"%d\\n\" % time.monotonic_ns())'";
    let started = runtime.block_on(registry.call(ToolCall::new(
        "c",
        "exec",
        json!({"command": stamper, "background": true}),
    )));
    assert!(started.text().starts_with("started p1"), "{}", started.text());
    let quiet = runtime.block_on(registry.call(ToolCall::new(
        "c",
        "exec",
        json!({"command": "sleep 600", "background": true}),
    )));
    assert!(quiet.text().starts_with("started p2"), "{}", quiet.text());

    let mut group = c.benchmark_group("background");
    group.bench_function("output_latency", |b| {
        b.to_async(&runtime).iter_custom(|iterations| {
            let registry = registry.clone();
            async move {
                let mut total = std::time::Duration::ZERO;
                for _ in 0..iterations {
                    let reader = registry.clone();
                    let waiting = tokio::spawn(async move {
                        let read = json!({"id": "p1", "wait_secs": 10});
                        let text = reader
                            .call(ToolCall::new("c", "process_output", read))
                            .await
                            .text();
                        (monotonic_ns(), text)
                    });
                    let write = json!({"id": "p1", "input": "\n"});
                    let wrote = registry.call(ToolCall::new("c", "process_write", write)).await;
                    assert!(!wrote.is_error(), "{}", wrote.text());
                    let (returned, text) = waiting.await.expect("the reader finishes");
                    let written = last_stamp(&text).unwrap_or_else(|| panic!("no stamp in {text}"));
                    let nanos = returned.saturating_sub(written);
                    assert!(nanos < 60_000_000_000, "a stamp misread: {text}");
                    total += std::time::Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX));
                }
                total
            }
        });
    });
    group.bench_function("output_nothing_new", |b| {
        b.to_async(&runtime).iter(|| async {
            let read = json!({"id": "p2"});
            black_box(registry.call(ToolCall::new("c", "process_output", read)).await)
        });
    });
    group.finish();
}

criterion_group!(benches, exec, background);
criterion_main!(benches);
