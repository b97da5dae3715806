//! Today's MCP software, written by others, against ours, as outside programs:
//!
//! - clients: the official Python SDK's `Client` in its default mode (`auto`, which
//!   negotiates 2026-07-28) and in `legacy` mode (the `initialize` handshake, 2025-11-25),
//!   and the MCP Inspector's command line in modern mode (2026-07-28);
//! - transports: stdio and streamable HTTP (with sessions, and stateless);
//! - servers: `agent-tools serve` with the built-in tools, and our gateway (`serve` with
//!   a `[[mount]]` config file) over the official reference servers — npm's memory,
//!   filesystem, sequential-thinking and everything, PyPI's time, fetch and git.
//!
//! Every client lists and calls every tool of ours and of every mounted server. Each
//! reference server is also listed directly, and its tools must reach the gateway's
//! clients with the schemas it served. A sampling request a mounted server sends reaches
//! the client with the values it wrote and no progress token of ours.
//!
//! Needs `scripts/py-tools` and `scripts/npm-tools` (the pinned SDK, Inspector and
//! servers), git, and Chromium for the page screenshot; `scripts/test` installs them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;

use test_support::outside_clients;
use test_support::page_server;
use test_support::ports;

use outside_clients::{inspector_cli, inspector_cli_outcome, node, npm_server, python_client, python_server};

/// Whether everything these tests drive is installed: the outside clients and servers,
/// git and Chromium. If not, the test is skipped with a message (`test_support::require`;
/// a failure under CI).
fn installed() -> bool {
    outside_clients::installed_all()
        && test_support::require_program("git", "apt-get install git").is_some()
        && test_support::require_chromium().is_some()
}

/// A page for `web_fetch`, `fetch` and the page screenshot.
const PAGE: &str =
    "<html><head><title>Tea</title></head><body><h1>Tea</h1><p>Green tea at five.</p></body></html>";

/// One test's world: a workspace with files and a git repository, a data directory for
/// the memory database, a file for the memory server's graph, and a page server.
struct Scene {
    dir: TempDir,
    pages: String,
}

impl Scene {
    async fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let scene = Self {
            pages: page_server::serve_pages(HashMap::from([("tea".to_owned(), PAGE.into())])).await,
            dir,
        };
        std::fs::create_dir_all(scene.data()).unwrap();
        std::fs::create_dir_all(scene.workspace()).unwrap();
        std::fs::write(scene.workspace().join("notes.txt"), "alpha\nbeta\n").unwrap();
        // A 1×1 PNG, for the filesystem server's media reader and view_image.
        std::fs::write(scene.workspace().join("dot.png"), TINY_PNG).unwrap();
        scene.make_repository();
        scene
    }

    fn workspace(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn repository(&self) -> PathBuf {
        self.workspace().join("repo")
    }

    /// A git repository with one commit, for the git server.
    fn make_repository(&self) {
        let repo = self.repository();
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::write(repo.join("a.txt"), "one\n").unwrap();
        for args in [
            &["init", "--quiet", "--initial-branch=main"][..],
            &["add", "a.txt"],
            &["commit", "--quiet", "-m", "first"],
        ] {
            let status = std::process::Command::new("git")
                .args(args)
                .current_dir(&repo)
                .envs(git_identity())
                .status()
                .expect("these tests need git (apt-get install git)");
            assert!(status.success(), "git {args:?}");
        }
        // Work in progress: a change to commit, and a new file to add.
        std::fs::write(repo.join("a.txt"), "one\ntwo\n").unwrap();
        std::fs::write(repo.join("b.txt"), "new\n").unwrap();
    }

    fn url(&self) -> String {
        format!("{}/tea", self.pages)
    }

    /// `agent-tools` with this scene's workspace and data directory, before the
    /// subcommand.
    fn agent_tools(&self) -> Vec<String> {
        let workspace = self.workspace().display().to_string();
        vec![
            env!("CARGO_BIN_EXE_agent-tools").to_owned(),
            "--workspace".to_owned(),
            workspace,
            // web_fetch and the screenshot reach the page server on loopback.
            "--allow-private-network".to_owned(),
        ]
    }

    /// The environment of our server: memories under the scene's data directory.
    fn env(&self) -> Value {
        let mut env = json!({"XDG_DATA_HOME": self.data().display().to_string()});
        for (name, value) in git_identity() {
            env[name] = value.into();
        }
        env
    }

    /// The gateway's configuration: every reference server as a `[[mount]]`.
    fn gateway_config(&self) -> PathBuf {
        let mut config = String::new();
        for server in reference_servers(self) {
            let command: Vec<String> = server.command.iter().map(|word| format!("{word:?}")).collect();
            config.push_str(&format!(
                "[[mount]]\nname = {:?}\ncommand = [{}]\n",
                server.name,
                command.join(", ")
            ));
            for (name, value) in &server.env {
                config.push_str(&format!("env.{name} = {value:?}\n"));
            }
            config.push('\n');
        }
        let path = self.dir.path().join("gateway.toml");
        std::fs::write(&path, config).unwrap();
        path
    }

    /// `agent-tools … serve` as the gateway.
    fn gateway(&self) -> Vec<String> {
        let mut command = self.agent_tools();
        command.extend(["--config".to_owned(), self.gateway_config().display().to_string()]);
        command
    }
}

/// git's author for the commits the tests and the git server make.
fn git_identity() -> [(&'static str, &'static str); 4] {
    [
        ("GIT_AUTHOR_NAME", "Tester"),
        ("GIT_AUTHOR_EMAIL", "tester@example.com"),
        ("GIT_COMMITTER_NAME", "Tester"),
        ("GIT_COMMITTER_EMAIL", "tester@example.com"),
    ]
}

/// A 1×1 white PNG, valid to its checksums (view_image decodes what it shows).
const TINY_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00,
    0x00, 0x00, 0x0b, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8, 0x0f, 0x04, 0x00, 0x09, 0xfb, 0x03,
    0xfd, 0x68, 0xfa, 0x1c, 0xcc, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// What a call must come back as.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// A result that is not an error.
    Ok,
    /// A result, error or not: the tool needs something the client does not offer (a
    /// person to answer, a model to sample), and says so in an error result — or, to a
    /// 2026-07-28 client, in the error that names the capability to declare (`-32021`).
    AnyResult,
}

/// One call of a plan.
struct Call {
    name: String,
    arguments: Value,
    expect: Expect,
}

fn call(name: &str, arguments: Value) -> Call {
    Call {
        name: name.to_owned(),
        arguments,
        expect: Expect::Ok,
    }
}

fn call_any(name: &str, arguments: Value) -> Call {
    Call {
        expect: Expect::AnyResult,
        ..call(name, arguments)
    }
}

/// A call of every built-in tool the command line serves, in an order in which each
/// works (a file is written before it is edited, a memory before it is read).
fn builtin_calls(scene: &Scene) -> Vec<Call> {
    vec![
        call("read_file", json!({"path": "notes.txt"})),
        call("write_file", json!({"path": "written.txt", "content": "hello\n"})),
        call(
            "edit_file",
            json!({"path": "written.txt", "old_text": "hello", "new_text": "hi"}),
        ),
        call("list_dir", json!({})),
        call("file_search", json!({"pattern": "alpha"})),
        // A second run in the same workspace changes nothing, which apply_patch reports as
        // an error: either result shows the call went through.
        call_any(
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Add File: patched.txt\n+patched\n*** End Patch"}),
        ),
        call("exec", json!({"command": "echo from-exec"})),
        // Background processes belong to a session: over stateless HTTP each request is
        // one, so the later calls may find no `p1` (an error result, as documented).
        call("exec", json!({"command": "cat", "background": true})),
        call("process_list", json!({})),
        call_any("process_write", json!({"id": "p1", "input": "ping\n"})),
        call_any("process_output", json!({"id": "p1", "wait_secs": 1})),
        call_any("process_kill", json!({"id": "p1"})),
        call("web_fetch", json!({"url": scene.url()})),
        call("screenshot", json!({"target": "url", "url": scene.url()})),
        call("view_image", json!({"path": "dot.png"})),
        call(
            "memory_write",
            json!({"content": "green tea at five", "key": "tea"}),
        ),
        call("memory_search", json!({"query": "tea"})),
        call("memory_read", json!({"key": "tea"})),
        call(
            "update_plan",
            json!({"plan": [{"step": "Call every tool", "status": "in_progress"}]}),
        ),
    ]
}

/// A reference server: its mount name, command line and environment, and a call of each
/// of its tools.
struct ReferenceServer {
    name: &'static str,
    command: Vec<String>,
    env: Vec<(&'static str, String)>,
    calls: Vec<Call>,
}

fn npm_command(package: &str, arguments: &[&str]) -> Vec<String> {
    let mut command = vec![
        node().display().to_string(),
        npm_server(package).display().to_string(),
    ];
    command.extend(arguments.iter().map(|argument| (*argument).to_owned()));
    command
}

/// The official reference servers, and a call of each tool they list to a client that
/// can answer questions and sample (as our gateway's mounts declare).
fn reference_servers(scene: &Scene) -> Vec<ReferenceServer> {
    let ws = scene.workspace().display().to_string();
    let repo = scene.repository().display().to_string();
    let file = |name: &str| format!("{ws}/{name}");
    vec![
        ReferenceServer {
            name: "memory",
            command: npm_command("server-memory", &[]),
            env: vec![(
                "MEMORY_FILE_PATH",
                scene.dir.path().join("graph.jsonl").display().to_string(),
            )],
            calls: vec![
                call(
                    "create_entities",
                    json!({"entities": [{"name": "ada", "entityType": "person", "observations": ["wrote programs"]}]}),
                ),
                call(
                    "create_relations",
                    json!({"relations": [{"from": "ada", "to": "ada", "relationType": "knows"}]}),
                ),
                call(
                    "add_observations",
                    json!({"observations": [{"entityName": "ada", "contents": ["likes tea"]}]}),
                ),
                call("read_graph", json!({})),
                call("search_nodes", json!({"query": "tea"})),
                call("open_nodes", json!({"names": ["ada"]})),
                call(
                    "delete_observations",
                    json!({"deletions": [{"entityName": "ada", "observations": ["likes tea"]}]}),
                ),
                call(
                    "delete_relations",
                    json!({"relations": [{"from": "ada", "to": "ada", "relationType": "knows"}]}),
                ),
                call("delete_entities", json!({"entityNames": ["ada"]})),
            ],
        },
        ReferenceServer {
            name: "files",
            command: npm_command("server-filesystem", &[&ws]),
            env: vec![],
            calls: vec![
                call("list_allowed_directories", json!({})),
                call(
                    "write_file",
                    json!({"path": file("fs.txt"), "content": "one\ntwo\n"}),
                ),
                call("read_text_file", json!({"path": file("fs.txt"), "head": 1})),
                call("read_file", json!({"path": file("fs.txt")})),
                call("read_media_file", json!({"path": file("dot.png")})),
                call(
                    "read_multiple_files",
                    json!({"paths": [file("fs.txt"), file("notes.txt")]}),
                ),
                call(
                    "edit_file",
                    json!({"path": file("fs.txt"), "edits": [{"oldText": "two", "newText": "three"}]}),
                ),
                call("create_directory", json!({"path": file("made")})),
                call("list_directory", json!({"path": ws})),
                call("list_directory_with_sizes", json!({"path": ws})),
                call("directory_tree", json!({"path": file("made")})),
                call(
                    "move_file",
                    json!({"source": file("fs.txt"), "destination": file("made/fs.txt")}),
                ),
                call("search_files", json!({"path": ws, "pattern": "notes"})),
                call("get_file_info", json!({"path": file("notes.txt")})),
            ],
        },
        ReferenceServer {
            name: "think",
            command: npm_command("server-sequential-thinking", &[]),
            env: vec![],
            calls: vec![call(
                "sequentialthinking",
                json!({"thought": "First, boil water.", "nextThoughtNeeded": false, "thoughtNumber": 1, "totalThoughts": 1}),
            )],
        },
        ReferenceServer {
            name: "every",
            command: npm_command("server-everything", &["stdio"]),
            env: vec![],
            calls: vec![
                call("echo", json!({"message": "hi"})),
                call(
                    "get-annotated-message",
                    json!({"messageType": "success", "includeImage": true}),
                ),
                call("get-env", json!({})),
                call("get-resource-links", json!({"count": 2})),
                call(
                    "get-resource-reference",
                    json!({"resourceType": "Blob", "resourceId": 2}),
                ),
                call("get-structured-content", json!({"location": "Chicago"})),
                call("get-sum", json!({"a": 2, "b": 3})),
                call("get-tiny-image", json!({})),
                call(
                    "gzip-file-as-resource",
                    json!({"data": "data:text/plain;base64,aGVsbG8=", "outputType": "resource"}),
                ),
                call("toggle-simulated-logging", json!({})),
                call("toggle-subscriber-updates", json!({})),
                call(
                    "trigger-long-running-operation",
                    json!({"duration": 1, "steps": 2}),
                ),
                // These ask the client's person or model, which the gateway's client may
                // not offer: an error result then says so.
                call_any(
                    "trigger-sampling-request",
                    json!({"prompt": "Say hi.", "maxTokens": 5}),
                ),
                call_any("trigger-elicitation-request", json!({})),
                call_any(
                    "trigger-url-elicitation",
                    json!({"url": "https://example.com/consent"}),
                ),
                call_any("simulate-research-query", json!({"topic": "tea"})),
                // Offered because the gateway's mount declares roots; it asks the
                // gateway's client for them, which that client may not offer.
                call_any("get-roots-list", json!({})),
            ],
        },
        ReferenceServer {
            name: "time",
            command: vec![python_server("mcp-server-time").display().to_string()],
            env: vec![],
            calls: vec![
                call("get_current_time", json!({"timezone": "Europe/Paris"})),
                call(
                    "convert_time",
                    json!({"source_timezone": "Europe/Paris", "time": "16:30", "target_timezone": "Asia/Tokyo"}),
                ),
            ],
        },
        ReferenceServer {
            name: "fetch",
            // The page server is on loopback.
            command: vec![
                python_server("mcp-server-fetch").display().to_string(),
                "--allow-private-ips".to_owned(),
            ],
            env: vec![],
            calls: vec![call("fetch", json!({"url": scene.url()}))],
        },
        ReferenceServer {
            name: "git",
            command: vec![python_server("mcp-server-git").display().to_string()],
            env: git_identity()
                .iter()
                .map(|(name, value)| (*name, (*value).to_owned()))
                .collect(),
            calls: vec![
                call("git_status", json!({"repo_path": repo})),
                call("git_log", json!({"repo_path": repo, "max_count": 5})),
                call("git_show", json!({"repo_path": repo, "revision": "HEAD"})),
                call("git_branch", json!({"repo_path": repo, "branch_type": "local"})),
                call(
                    "git_create_branch",
                    json!({"repo_path": repo, "branch_name": "feature"}),
                ),
                call(
                    "git_checkout",
                    json!({"repo_path": repo, "branch_name": "feature"}),
                ),
                call("git_diff_unstaged", json!({"repo_path": repo})),
                call("git_add", json!({"repo_path": repo, "files": ["a.txt", "b.txt"]})),
                call("git_diff_staged", json!({"repo_path": repo})),
                call("git_diff", json!({"repo_path": repo, "target": "main"})),
                call("git_reset", json!({"repo_path": repo})),
                call("git_add", json!({"repo_path": repo, "files": ["b.txt"]})),
                call("git_commit", json!({"repo_path": repo, "message": "add b"})),
            ],
        },
    ]
}

/// How a client reaches a server.
#[derive(Debug, Clone, Copy)]
enum Transport {
    Stdio,
    /// Streamable HTTP with sessions, or stateless.
    Http {
        stateless: bool,
    },
}

/// A server of ours, started for HTTP clients; stopped when dropped.
struct HttpServer {
    child: tokio::process::Child,
    url: String,
}

impl HttpServer {
    /// Runs `command serve --http` on a free loopback port and waits until it accepts
    /// connections.
    async fn start(command: &[String], env: &Value, cwd: &Path, stateless: bool) -> Self {
        let address = format!("127.0.0.1:{}", ports::free_port());
        // Its log (and its mounted servers') goes to a file beside the workspace, which a
        // failing test's panic names: killed at the end, the servers complain.
        let log = cwd.with_file_name(format!("serve-{address}.log"));
        let mut serve = tokio::process::Command::new(&command[0]);
        serve
            .args(&command[1..])
            .args(["serve", "--http", &address])
            .current_dir(cwd)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("the server's log"))
            .kill_on_drop(true);
        if stateless {
            serve.arg("--stateless");
        }
        for (name, value) in env.as_object().into_iter().flatten() {
            serve.env(name, value.as_str().unwrap_or_default());
        }
        let mut child = serve.spawn().expect("agent-tools serve starts");
        // Mounting several servers takes seconds; poll until the port answers.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        while tokio::net::TcpStream::connect(&address).await.is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                let log = std::fs::read_to_string(&log).unwrap_or_default();
                panic!("agent-tools serve --http exited with {status} before listening:\n{log}");
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "agent-tools serve did not listen on {address}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Self {
            child,
            url: format!("http://{address}/mcp"),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// The Python SDK's report of a plan of `calls` against `command … serve` over
/// `transport`, in `mode`.
async fn python_run(
    scene: &Scene,
    command: &[String],
    transport: Transport,
    mode: &str,
    calls: &[Call],
) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|call| json!({"name": call.name, "arguments": call.arguments}))
        .collect();
    let mut plan = json!({"mode": mode, "calls": calls});
    let _server = match transport {
        Transport::Stdio => {
            let mut serve = command.to_vec();
            serve.push("serve".to_owned());
            plan["server"] = json!({"command": serve, "env": scene.env(), "cwd": scene.workspace()});
            None
        }
        Transport::Http { stateless } => {
            let server = HttpServer::start(command, &scene.env(), &scene.workspace(), stateless).await;
            plan["server"] = json!({"url": server.url});
            Some(server)
        }
    };
    python_client(&plan, &scene.workspace()).await
}

/// Checks that each call came back as expected; names every one that did not.
fn check_calls(report: &Value, calls: &[Call], context: &str) {
    let results = report["calls"].as_array().expect("the report's calls");
    assert_eq!(results.len(), calls.len(), "{context}: {report}");
    let mut problems = Vec::new();
    for (call, result) in calls.iter().zip(results) {
        if let Some(exception) = result.get("exception") {
            if call.expect == Expect::AnyResult && names_a_missing_capability(&exception.to_string()) {
                continue;
            }
            problems.push(format!("{}: the client raised {exception}", call.name));
        } else if call.expect == Expect::Ok && result["is_error"] == true {
            problems.push(format!("{}: error result {}", call.name, result["content"]));
        }
    }
    assert!(problems.is_empty(), "{context}:\n{}", problems.join("\n"));
}

/// The names the report lists.
fn listed(report: &Value) -> Vec<String> {
    report["tools"]
        .as_array()
        .expect("the report's tools")
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The protocol revision each of the SDK's modes negotiates with our server.
fn negotiated(mode: &str) -> &'static str {
    match mode {
        "auto" => "2026-07-28",
        _ => "2025-11-25",
    }
}

const MODES: [&str; 2] = ["auto", "legacy"];
const TRANSPORTS: [Transport; 3] = [
    Transport::Stdio,
    Transport::Http { stateless: false },
    Transport::Http { stateless: true },
];

/// One run of the Python SDK in each mode over each transport, against the server
/// `command` makes, calling `calls`; each in a fresh scene, since the calls write files
/// and memories. Checks what every run must show (the negotiated revision, every call
/// answered as expected) and returns each run's context and report for the rest.
async fn python_runs(
    what: &str,
    command: fn(&Scene) -> Vec<String>,
    calls: fn(&Scene) -> Vec<Call>,
) -> Vec<(String, Vec<Call>, Value)> {
    let mut runs = Vec::new();
    for mode in MODES {
        for transport in TRANSPORTS {
            let scene = Scene::new().await;
            let calls = calls(&scene);
            let report = python_run(&scene, &command(&scene), transport, mode, &calls).await;
            let context = format!("{what}, Python SDK, mode {mode}, {transport:?}");
            assert_eq!(report["protocol"], negotiated(mode), "{context}");
            check_calls(&report, &calls, &context);
            runs.push((context, calls, report));
        }
    }
    runs
}

/// Checks that the run called every tool it was listed, and nothing else.
fn check_every_tool_called(report: &Value, calls: &[Call], context: &str) {
    let mut names = listed(report);
    let mut called: Vec<&str> = calls.iter().map(|call| call.name.as_str()).collect();
    names.sort();
    called.sort();
    called.dedup();
    assert_eq!(names, called, "{context}: listed, and called");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_lists_and_calls_every_built_in_tool() {
    if !installed() {
        return;
    }
    for (context, calls, report) in python_runs("built-in tools", Scene::agent_tools, builtin_calls).await {
        check_every_tool_called(&report, &calls, &context);
    }
}

/// Every tool the gateway serves, with its call: the built-in ones, then those of every
/// reference server, as the gateway names them.
fn gateway_calls(scene: &Scene) -> Vec<Call> {
    let mounted = reference_servers(scene).into_iter().flat_map(|server| {
        server.calls.into_iter().map(move |call| Call {
            name: format!("{}_{}", server.name, call.name),
            ..call
        })
    });
    builtin_calls(scene).into_iter().chain(mounted).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_serves_the_reference_servers_as_they_serve_themselves() {
    if !installed() {
        return;
    }
    // Each reference server listed directly: the schemas the gateway must keep.
    let scene = Scene::new().await;
    let mut direct = HashMap::new();
    for server in reference_servers(&scene) {
        let plan = json!({
            "mode": "legacy",
            "server": {"command": server.command, "env": server.env.iter().cloned().collect::<HashMap<_, _>>()},
        });
        let report = python_client(&plan, &scene.workspace()).await;
        for tool in report["tools"].as_array().expect("tools") {
            let name = format!("{}_{}", server.name, tool["name"].as_str().unwrap_or_default());
            direct.insert(name, tool.clone());
        }
        let names: Vec<&str> = server.calls.iter().map(|call| call.name.as_str()).collect();
        for listed in listed(&report) {
            assert!(
                names.contains(&listed.as_str()),
                "`{listed}` of {} has no call in this test: add one",
                server.name
            );
        }
    }
    for (context, calls, report) in python_runs("gateway", Scene::gateway, gateway_calls).await {
        check_every_tool_called(&report, &calls, &context);
        let through: HashMap<String, &Value> = report["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|tool| (tool["name"].as_str().unwrap_or_default().to_owned(), tool))
            .collect();
        for (name, served) in &direct {
            let Some(gateway) = through.get(name) else {
                panic!("{context}: `{name}` is not listed through the gateway");
            };
            for field in ["inputSchema", "outputSchema"] {
                assert_eq!(
                    gateway.get(field),
                    served.get(field),
                    "{context}: `{name}`'s {field} differs from what its server serves"
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_servers_sampling_request_reaches_the_client_as_written() {
    if !installed() {
        return;
    }
    let scene = Scene::new().await;
    let mut gateway = scene.gateway();
    gateway.push("serve".to_owned());
    let plan = json!({
        "mode": "legacy",
        "sampling": true,
        "server": {"command": gateway, "env": scene.env(), "cwd": scene.workspace()},
        "calls": [{"name": "every_trigger-sampling-request", "arguments": {"prompt": "Say hi.", "maxTokens": 7}}],
    });
    let report = python_client(&plan, &scene.workspace()).await;
    let result = &report["calls"][0];
    assert_eq!(result["is_error"], false, "{report}");
    let requests = report["sampling_requests"].as_array().expect("sampling requests");
    assert_eq!(requests.len(), 1, "{report}");
    let request = &requests[0];
    // What the everything server wrote: temperature 0.7, not 0.699999988 (an f32 on the
    // way), and no `_meta.progressToken`, which it did not send.
    assert_eq!(request["temperature"], json!(0.7), "{request}");
    assert_eq!(request["maxTokens"], 7, "{request}");
    assert_eq!(
        request["systemPrompt"], "You are a helpful test server.",
        "{request}"
    );
    assert!(
        request
            .get("_meta")
            .is_none_or(|meta| meta.get("progressToken").is_none()),
        "{request}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inspector_lists_and_calls_every_tool_in_modern_mode() {
    if !installed() {
        return;
    }
    // Our server over stdio: one process per Inspector command.
    let scene = Scene::new().await;
    let mut serve = scene.agent_tools();
    serve.push("serve".to_owned());
    let stdio: Vec<&str> = serve.iter().map(String::as_str).collect();
    let env: Vec<String> = scene
        .env()
        .as_object()
        .into_iter()
        .flatten()
        .flat_map(|(name, value)| {
            [
                "-e".to_owned(),
                format!("{name}={}", value.as_str().unwrap_or_default()),
            ]
        })
        .collect();
    let env: Vec<&str> = env.iter().map(String::as_str).collect();
    let workspace = scene.workspace();
    let listing = inspector_cli(
        &[&env[..], &["--method", "tools/list", "--"], &stdio[..]].concat(),
        &workspace,
    )
    .await;
    let calls = builtin_calls(&scene);
    let mut called: Vec<&str> = calls.iter().map(|call| call.name.as_str()).collect();
    called.sort();
    called.dedup();
    assert_eq!(inspector_names(&listing).len(), called.len(), "{listing}");
    for call in &calls {
        let arguments = call.arguments.to_string();
        let method = [
            "--method",
            "tools/call",
            "--tool-name",
            &call.name,
            "--tool-args-json",
            &arguments,
            "--",
        ];
        let result = inspector_cli(&[&env[..], &method[..], &stdio[..]].concat(), &workspace).await;
        // Each call is a server of its own here: the background process is gone by the
        // time a later call names it.
        if matches!(call.expect, Expect::Ok) {
            assert_eq!(result["result"]["isError"], false, "{}: {result}", call.name);
        }
    }

    // The gateway over stateless HTTP: every tool of every reference server.
    let gateway = HttpServer::start(&scene.gateway(), &scene.env(), &workspace, true).await;
    let listing = inspector_cli(&["--method", "tools/list", &gateway.url], &workspace).await;
    let calls = gateway_calls(&scene);
    let names = inspector_names(&listing);
    for call in &calls {
        assert!(
            names.contains(&call.name),
            "`{}` not listed: {names:?}",
            call.name
        );
        let arguments = call.arguments.to_string();
        let method = [
            "--method",
            "tools/call",
            "--tool-name",
            &call.name,
            "--tool-args-json",
            &arguments,
        ];
        let outcome =
            inspector_cli_outcome(&[&method[..], &[gateway.url.as_str()]].concat(), &workspace).await;
        match (call.expect, outcome) {
            (Expect::Ok, Ok(result)) => {
                assert_eq!(result["result"]["isError"], false, "{}: {result}", call.name);
            }
            (Expect::AnyResult, Ok(_)) => {}
            (Expect::AnyResult, Err(failure)) if names_a_missing_capability(&failure) => {}
            (_, Err(failure)) => panic!("the Inspector failed on {}: {failure}", call.name),
        }
    }
}

/// Whether a client's error is the one that names a capability it did not declare
/// (`-32021`): what a 2026-07-28 server answers a call that needed to ask it for what it
/// does not offer.
fn names_a_missing_capability(error: &str) -> bool {
    error.contains("-32021") || error.contains("Missing required client capability")
}

fn inspector_names(listing: &Value) -> Vec<String> {
    listing["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {listing}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_dialect_takes_the_reference_servers_schemas() {
    if !installed() {
        return;
    }
    // The TypeScript servers declare draft-07 schemas, which the MCP checker refused.
    let scene = Scene::new().await;
    let gateway = scene.gateway();
    for dialect in ["mcp", "openai-chat", "openai-responses", "anthropic", "gemini"] {
        let output = tokio::process::Command::new(&gateway[0])
            .args(&gateway[1..])
            .args(["schema", "--dialect", dialect])
            .current_dir(scene.workspace())
            .envs(git_identity())
            .env("XDG_DATA_HOME", scene.data())
            .kill_on_drop(true)
            .output()
            .await
            .expect("agent-tools schema runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{dialect}:\n{stderr}");
        let problems: Vec<&str> = stderr.lines().filter(|line| line.starts_with("error:")).collect();
        assert!(problems.is_empty(), "{dialect}: {problems:#?}");
        let definitions: Vec<Value> = serde_json::from_slice(&output.stdout).expect("a JSON array");
        assert!(
            definitions.len() > 50,
            "{dialect}: {} definitions",
            definitions.len()
        );
    }
}
