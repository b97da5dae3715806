//! Background processes through a registry, as a model reaches them: a server started by
//! one call and queried by a later one, sessions kept apart, and nothing left once a
//! session ends or the registry is dropped (checked from outside, in `/proc`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_tools_builtins::{Builtins, ExecConfig, Workspace};
use agent_tools_core::{ToolCall, ToolRegistry, ToolResult};
use serde_json::{Value, json};

struct World {
    _dir: tempfile::TempDir,
    registry: ToolRegistry,
}

fn world(configure: impl FnOnce(&mut ExecConfig)) -> World {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hello from the workspace\n").unwrap();
    let mut config = ExecConfig::default();
    config.require_sandbox = true;
    configure(&mut config);
    let builtins = Builtins::builder(Workspace::open(dir.path()).unwrap())
        .exec(config)
        .build()
        .unwrap();
    let registry = ToolRegistry::new();
    Arc::new(builtins).register_all(&registry).unwrap();
    World { _dir: dir, registry }
}

async fn call(registry: &ToolRegistry, tool: &str, arguments: Value) -> ToolResult {
    registry.call(ToolCall::new("c", tool, arguments)).await
}

/// Starts `command` in the background; its id, and what `exec` answered.
async fn start_with_output(registry: &ToolRegistry, command: &str) -> (String, String) {
    let started = call(registry, "exec", json!({"command": command, "background": true})).await;
    let text = started.text();
    assert!(!started.is_error(), "{text}");
    let id = text
        .strip_prefix("started ")
        .and_then(|rest| rest.split_whitespace().next());
    (id.unwrap_or_else(|| panic!("no id in {text}")).to_owned(), text)
}

async fn start(registry: &ToolRegistry, command: &str) -> String {
    start_with_output(registry, command).await.0
}

/// Waits (with `wait_secs`) until the output so far, after `seen`, contains `needle`;
/// all of it.
async fn output_until(registry: &ToolRegistry, id: &str, mut seen: String, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !seen.contains(needle) {
        assert!(Instant::now() < deadline, "`{needle}` never came: {seen}");
        let read = call(registry, "process_output", json!({"id": id, "wait_secs": 5})).await;
        assert!(!read.is_error(), "{}", read.text());
        seen.push_str(&read.text());
    }
    seen
}

/// A loopback port nobody listens on (bound, then let go).
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A string no other process has on its command line.
fn marker() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "{}.{:04}8",
        700 + std::process::id() % 99,
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Live `sleep` processes with `marker` in their arguments, seen from outside.
fn sleepers(marker: &str) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .filter(|cmdline| {
            cmdline.starts_with(b"sleep\0") && String::from_utf8_lossy(cmdline).contains(marker)
        })
        .count()
}

async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_started_in_the_background_answers_a_later_command() {
    if test_support::require_program("python3", "apt-get install python3").is_none() {
        return;
    }
    let world = world(|_| {});
    let session = world.registry.session("dev");
    let port = free_port();
    let (server, first) = start_with_output(
        &session,
        &format!("python3 -u -m http.server --bind 127.0.0.1 {port}"),
    )
    .await;
    output_until(&session, &server, first, "Serving HTTP").await;
    let fetch = format!(
        "python3 -c \"import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:{port}/hello.txt').read().decode())\""
    );
    let fetched = call(&session, "exec", json!({"command": fetch})).await;
    assert_eq!(
        fetched.text(),
        "exit code: 0\n--- stdout ---\nhello from the workspace\n\n",
        "a later exec reaches the server"
    );
    let logged = output_until(&session, &server, String::new(), "GET /hello.txt").await;
    assert!(logged.contains("\"GET /hello.txt HTTP/1.1\" 200"), "{logged}");
    let stopped = call(&session, "process_kill", json!({"id": server})).await;
    assert!(
        stopped.text().contains("stopped by process_kill"),
        "{}",
        stopped.text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_network_no_server_can_listen() {
    if test_support::require_program("python3", "apt-get install python3").is_none() {
        return;
    }
    let world = world(|config| config.network = agent_tools_builtins::ExecNetwork::None);
    let port = free_port();
    let command = format!("sleep 1.5; python3 -u -m http.server --bind 127.0.0.1 {port}");
    let (server, first) = start_with_output(&world.registry, &command).await;
    let refused = output_until(&world.registry, &server, first, "exited with code").await;
    assert!(
        refused.contains("PermissionError: [Errno 1] Operation not permitted"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_keep_to_their_own_processes_which_end_with_them() {
    let world = world(|config| config.max_background = 1);
    let (one, two) = (world.registry.session("one"), world.registry.session("two"));
    let (first, second) = (marker(), marker());
    let mine = start(&one, &format!("sleep {first} & setsid sleep {first} & wait")).await;
    let theirs = start(&two, &format!("sleep {second}")).await;
    assert!(eventually(|| sleepers(&first) == 2 && sleepers(&second) == 1).await);

    let over = call(&one, "exec", json!({"command": "true", "background": true})).await;
    assert!(
        over.is_error() && over.text().contains("`[exec] max_background`"),
        "{}",
        over.text()
    );
    let listed = call(&two, "process_list", json!({})).await.text();
    assert!(
        listed.starts_with(&format!("{theirs}: running")) && !listed.contains(&mine),
        "{listed}"
    );
    let kill = call(&two, "process_kill", json!({"id": mine})).await;
    assert!(
        kill.is_error() && kill.text().contains("no background process"),
        "{}",
        kill.text()
    );
    assert_eq!(sleepers(&first), 2, "another session cannot kill it");

    assert!(world.registry.end_session("one"));
    assert!(
        eventually(|| sleepers(&first) == 0).await,
        "the session's processes outlived it"
    );
    assert_eq!(sleepers(&second), 1, "another session's process ended with it");
    let after = call(&one, "process_list", json!({})).await;
    assert_eq!(after.text(), "no background processes in this session");

    drop((one, two));
    drop(world);
    assert!(
        eventually(|| sleepers(&second) == 0).await,
        "a process outlived the registry"
    );
}
