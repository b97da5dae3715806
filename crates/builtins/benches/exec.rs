//! What `exec` adds to running a command: `exec` of `true` through the registry — guard,
//! temp dir, process group, parent-death signal, PID namespace, Landlock and seccomp,
//! output capture — against `sh_c_true`, a bare `sh -c true` spawned with Tokio and
//! waited for, as any agent framework must at least do. `exec_true_no_namespace` keeps
//! background processes (no PID namespace), `exec_true_unsandboxed` has neither
//! namespace nor sandbox: the differences are what those layers cost. `exec_true` hides
//! the default `deny_read` (a Landlock rule for each entry around the hidden paths);
//! `exec_true_nothing_hidden` hides nothing and `exec_true_read_workspace` confines
//! reading to the workspace and the system, which is what hiding costs.
//! `exec_true` also has the default resource limits (`max_processes`, a cgroup per command
//! where one can be made); `exec_true_no_limits` has none and `exec_true_all_limits` all
//! three (processes, memory, CPU time): what making, joining and removing the cgroups
//! costs. `exec_true_every_layer` has every layer at once: reads confined to the
//! workspace, an allow-list (a network namespace and a proxy), and all three limits.
//!
//! The `egress` group downloads 100 MB from a server of the bench's own on loopback with
//! `curl` run by `exec`: `through_proxy` under `network = ["big.test:PORT"]` (the command
//! in its own network namespace, every byte through the agent's proxy), `direct` under
//! `network = true`. Their difference is what the allow-list costs a download.
//!
//! The `background` group measures following a background process through the registry:
//! `output_latency` is the time from the process writing a line (it prints the monotonic
//! clock when it does) to `process_output`, already waiting with `wait_secs`, returning
//! it; `output_nothing_new` is a `process_output` call that finds nothing new and does
//! not wait.

use std::hint::black_box;
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use agent_tools_builtins::Builtins;
use agent_tools_builtins::Workspace;
use agent_tools_builtins::{ExecConfig, ExecNetwork, ExecRead, ExecSandbox};
use agent_tools_core::{ToolCall, ToolRegistry};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;

fn registry(workspace: &Workspace, configure: impl FnOnce(&mut ExecConfig)) -> ToolRegistry {
    let mut config = ExecConfig::default();
    configure(&mut config);
    let builtins = Builtins::builder(workspace.clone())
        .exec(config)
        .build()
        .expect("valid configuration");
    let registry = ToolRegistry::new();
    Arc::new(builtins).register_all(&registry).expect("registers");
    registry
}

/// A runtime, and a workspace in a temporary directory (kept while the directory is).
fn setup() -> (tokio::runtime::Runtime, tempfile::TempDir, Workspace) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = tempfile::tempdir().expect("a temp dir");
    let workspace = Workspace::open(dir.path()).expect("opens");
    (runtime, dir, workspace)
}

/// Every resource limit on, well above what `true` takes.
fn all_limits(config: &mut ExecConfig) {
    config.max_memory = Some(1 << 30);
    config.max_cpu = Some(std::time::Duration::from_secs(60));
}

fn exec(c: &mut Criterion) {
    let (runtime, dir, workspace) = setup();
    let cases = [
        ("exec_true", registry(&workspace, |_| {})),
        (
            "exec_true_nothing_hidden",
            registry(&workspace, |config| config.deny_read.clear()),
        ),
        (
            "exec_true_read_workspace",
            registry(&workspace, |config| config.read = ExecRead::Workspace),
        ),
        (
            "exec_true_no_limits",
            registry(&workspace, |config| config.max_processes = None),
        ),
        ("exec_true_all_limits", registry(&workspace, all_limits)),
        (
            "exec_true_every_layer",
            registry(&workspace, |config| {
                all_limits(config);
                config.read = ExecRead::Workspace;
                config.network = ExecNetwork::Allow(vec!["crates.io".into()]);
            }),
        ),
        (
            "exec_true_no_namespace",
            registry(&workspace, |config| config.keep_background = true),
        ),
        (
            "exec_true_unsandboxed",
            registry(&workspace, |config| {
                config.sandbox = ExecSandbox::None;
                config.keep_background = true;
            }),
        ),
    ];
    let arguments = json!({"command": "true"});
    for (name, registry) in &cases {
        let result = runtime.block_on(registry.call(ToolCall::new("c", "exec", arguments.clone())));
        assert!(!result.is_error(), "{name}: {}", result.text());
    }

    let mut group = c.benchmark_group("exec");
    for (name, registry) in &cases {
        group.bench_function(*name, |b| {
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

/// Bytes each download carries.
const DOWNLOAD: usize = 100 * 1000 * 1000;

/// Serves `DOWNLOAD` bytes to every request, on a loopback port of its own, until the
/// process ends.
fn download_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let address = listener.local_addr().expect("bound");
    std::thread::spawn(move || {
        let chunk = vec![b'x'; 64 * 1024];
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            // The request's head, up to its empty line.
            while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                line.clear();
            }
            let mut stream = reader.into_inner();
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {DOWNLOAD}\r\nConnection: close\r\n\r\n");
            let mut sent = stream.write_all(head.as_bytes()).is_ok();
            let mut left = DOWNLOAD;
            while sent && left > 0 {
                let part = left.min(chunk.len());
                sent = stream.write_all(&chunk[..part]).is_ok();
                left -= part;
            }
        }
    });
    address
}

fn egress(c: &mut Criterion) {
    let (runtime, _dir, workspace) = setup();
    let server = download_server();
    let port = server.port();
    let proxied = registry(&workspace, |config| {
        *config = std::mem::take(config).resolve("big.test", server);
        config.network = ExecNetwork::Allow(vec![format!("big.test:{port}")]);
    });
    let direct = registry(&workspace, |_| {});
    let curl =
        |url: String| json!({"command": format!("curl -sS -o /dev/null -w 'got %{{size_download}}' {url}")});
    let cases = [
        (
            "through_proxy",
            &proxied,
            curl(format!("http://big.test:{port}/")),
        ),
        (
            "direct",
            &direct,
            curl(format!("--noproxy '*' http://127.0.0.1:{port}/")),
        ),
    ];
    for (name, registry, arguments) in &cases {
        let result = runtime.block_on(registry.call(ToolCall::new("c", "exec", arguments.clone())));
        assert!(
            result.text().contains(&format!("got {DOWNLOAD}")),
            "{name}: {}",
            result.text()
        );
    }
    let mut group = c.benchmark_group("egress");
    group.throughput(Throughput::Bytes(DOWNLOAD as u64));
    group.sample_size(10);
    for (name, registry, arguments) in &cases {
        group.bench_function(*name, |b| {
            b.to_async(&runtime).iter(|| async {
                black_box(registry.call(ToolCall::new("c", "exec", arguments.clone())).await)
            });
        });
    }
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
    let (runtime, _dir, workspace) = setup();
    let registry = registry(&workspace, |_| {}).session("bench");
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

criterion_group!(benches, exec, egress, background);
criterion_main!(benches);
