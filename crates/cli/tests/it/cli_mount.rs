//! `--mount` on every subcommand, through the real binary: `list`, `schema` and `call`
//! over servers mounted from the command line — `agent-tools serve` itself as a stdio
//! child, a registry served over streamable HTTP on 127.0.0.1 with a bearer token, and a
//! small hand-written Python server whose tools Gemini cannot take — and no child server
//! left running once the command has exited.

use std::path::Path;
use std::process::Output;

use agent_tools::mcp::{HttpOptions, HttpServer, McpHandler};
use agent_tools::{ToolRegistry, tool};
use serde_json::Value;

use test_support::mcp_server;
use test_support::ports;
use test_support::processes;

/// Repeat a text a number of times.
#[tool(read_only)]
async fn repeat(
    /// The text.
    text: String,
    /// How often.
    times: Option<u8>,
) -> String {
    text.repeat(usize::from(times.unwrap_or(2)))
}

/// `hello`, which every provider takes.
const HELLO: &str = r#"{"name": "hello", "description": "Say hello.",
    "inputSchema": {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}}"#;

/// A schema with `not`: valid JSON Schema, which the registry validates, but neither of
/// Gemini's schema fields has it.
const NEGATED: &str = r#"{"name": "pick", "description": "Pick anything but a string.",
    "inputSchema": {"type": "object", "properties": {"value": {"not": {"type": "string"}}}, "required": ["value"]}}"#;

/// A schema the registry cannot use (arguments are an object): skipped when mounting.
const UNUSABLE: &str = r#"{"name": "bad", "description": "Unusable.", "inputSchema": {"type": "string"}}"#;

/// The configuration of the Python MCP server (`test_support::mcp_server`) serving
/// `tools`: `hello` answers "$GREETING WHO", every other tool says its name.
fn python_config(tools: &[&str]) -> String {
    format!(r#"{{"tools": [{}]}}"#, tools.join(","))
}

/// `--mount NAME=…` for the Python server with these tools; `extra` goes after the
/// marker (`stubborn`: it does not exit when its stdin closes, only on SIGTERM). `None`
/// when python3 is missing (the test is skipped).
fn python_mount(name: &str, tools: &[&str], marker: &str, extra: &str) -> Option<String> {
    Some(format!(
        "{name}={} -u '{}' '{}' {marker} {extra}",
        mcp_server::python()?.display(),
        mcp_server::script().display(),
        python_config(tools),
    ))
}

/// A temporary directory holding a workspace (`ws`, where the binary runs) and, beside it,
/// the data directory for the memory database, which must not lie inside a workspace.
pub(crate) fn temp_dirs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["ws", "data"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    dir
}

/// The real binary over `dir`'s workspace.
fn binary(args: &[&str], dir: &Path) -> Output {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .args(args)
        .current_dir(dir.join("ws"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .output()
        .unwrap();
    check_no_panic(&output);
    output
}

/// The same, from async tests that serve something themselves.
pub(crate) async fn binary_async(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Output {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .args(args)
        .current_dir(dir.join("ws"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .envs(env.iter().copied())
        .output()
        .await
        .unwrap();
    check_no_panic(&output);
    output
}

fn check_no_panic(output: &Output) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

pub(crate) fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Once the command has exited, no process of the mounted server may be left.
fn assert_stopped(marker: &str) {
    let left = processes::processes_with(marker);
    assert!(left.is_empty(), "mounted servers left running: {left:?}");
}

#[test]
fn list_call_and_schema_reach_a_mounted_agent_tools_serve() {
    let dir = temp_dirs();
    let marker = processes::marker();
    let inner = dir.path().join(format!("inner-{marker}"));
    std::fs::create_dir(&inner).unwrap();
    std::fs::write(inner.join("inner.txt"), "from the inner workspace\n").unwrap();
    let mount = format!(
        "inner='{}' --workspace '{}' serve",
        env!("CARGO_BIN_EXE_agent-tools"),
        inner.display()
    );

    let listed = binary(&["--mount", &mount, "list"], dir.path());
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let names: Vec<String> = stdout(&listed)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    for expected in ["read_file", "inner_read_file", "inner_exec"] {
        assert!(
            names.iter().any(|name| name == expected),
            "{expected} in {names:?}"
        );
    }
    // (The inner server's own stderr is ours: it says it serves.)
    assert!(
        !stderr(&listed).contains("mounted"),
        "only `serve` announces mounts"
    );
    assert_stopped(&marker);

    // After the subcommand, as `serve --mount` always took it.
    let read = r#"{"path": "inner.txt"}"#;
    let called = binary(&["call", "inner_read_file", read, "--mount", &mount], dir.path());
    assert_eq!(called.status.code(), Some(0), "{}", stderr(&called));
    assert!(
        stdout(&called).contains("from the inner workspace"),
        "{}",
        stdout(&called)
    );
    assert_stopped(&marker);
    let outer = binary(&["--mount", &mount, "call", "read_file", read], dir.path());
    assert_eq!(
        outer.status.code(),
        Some(1),
        "the outer workspace has no inner.txt"
    );
    let missing = binary(
        &[
            "--mount",
            &mount,
            "call",
            "inner_read_file",
            r#"{"path": "nope.txt"}"#,
        ],
        dir.path(),
    );
    assert_eq!(
        missing.status.code(),
        Some(1),
        "a remote error result is an error"
    );
    assert_stopped(&marker);

    let schema = binary(
        &[
            "--mount",
            &mount,
            "schema",
            "--dialect",
            "gemini",
            "--tool",
            "inner_read_file",
        ],
        dir.path(),
    );
    assert_eq!(schema.status.code(), Some(0), "{}", stderr(&schema));
    let definitions: Vec<Value> = serde_json::from_str(&stdout(&schema)).unwrap();
    assert_eq!(definitions.len(), 1);
    assert_eq!(definitions[0]["name"], "inner_read_file");
    assert_eq!(
        definitions[0]["parameters"]["properties"]["path"]["type"],
        "string"
    );
    assert_stopped(&marker);
}

#[test]
fn schema_exits_1_when_a_provider_would_reject_a_mounted_tool() {
    let dir = temp_dirs();
    let marker = processes::marker();
    let Some(mount) = python_mount("py", &[HELLO, NEGATED], &marker, "") else {
        return;
    };
    let schema = |dialect: &str, tool: Option<&str>| {
        let mut args = vec!["--mount", &mount, "schema", "--dialect", dialect];
        args.extend(tool.map(|tool| ["--tool", tool]).into_iter().flatten());
        binary(&args, dir.path())
    };

    let gemini = schema("gemini", None);
    assert_eq!(gemini.status.code(), Some(1), "{}", stderr(&gemini));
    // Still printed: the definitions are what the user asked to see.
    let definitions: Vec<Value> = serde_json::from_str(&stdout(&gemini)).unwrap();
    let names: Vec<&str> = definitions.iter().filter_map(|d| d["name"].as_str()).collect();
    assert!(
        names.contains(&"py_hello") && names.contains(&"py_pick"),
        "{names:?}"
    );
    let text = stderr(&gemini);
    let errors: Vec<&str> = text.lines().filter(|line| line.starts_with("error:")).collect();
    assert!(!errors.is_empty(), "{text}");
    assert!(
        errors
            .iter()
            .all(|line| line.starts_with("error: `py_pick` (gemini): ")),
        "{text}"
    );
    assert!(
        errors.iter().any(|line| line.contains("`not`")),
        "the reason is named: {text}"
    );
    assert_stopped(&marker);

    // The tool Gemini takes, alone: nothing to reject.
    let hello = schema("gemini", Some("py_hello"));
    assert_eq!(hello.status.code(), Some(0), "{}", stderr(&hello));
    assert!(!stderr(&hello).contains("error:"), "{}", stderr(&hello));

    // OpenAI takes the schema as it is, only not in strict mode: a note, status 0.
    let openai = schema("openai-chat", None);
    assert_eq!(openai.status.code(), Some(0), "{}", stderr(&openai));
    let text = stderr(&openai);
    assert!(
        text.lines()
            .any(|line| line.starts_with("note: `py_pick` (openai-chat): ")),
        "{text}"
    );
    assert!(!stderr(&openai).contains("error:"), "{}", stderr(&openai));
    assert_stopped(&marker);
}

#[test]
fn a_tool_that_cannot_be_mounted_is_named_and_fails_schema() {
    let dir = temp_dirs();
    let marker = processes::marker();
    let Some(mount) = python_mount("py", &[HELLO, UNUSABLE], &marker, "") else {
        return;
    };

    let schema = binary(&["--mount", &mount, "schema", "--dialect", "mcp"], dir.path());
    assert_eq!(schema.status.code(), Some(1), "{}", stderr(&schema));
    let text = stderr(&schema);
    assert!(
        text.lines()
            .any(|line| line.starts_with("agent-tools: skipped `bad` of `py`: ")),
        "{text}"
    );
    let definitions: Vec<Value> = serde_json::from_str(&stdout(&schema)).unwrap();
    assert!(definitions.iter().any(|d| d["name"] == "py_hello"));
    // Asking about one tool that is there: the skipped one does not count.
    let one = binary(
        &[
            "--mount",
            &mount,
            "schema",
            "--dialect",
            "mcp",
            "--tool",
            "py_hello",
        ],
        dir.path(),
    );
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));

    let called = binary(
        &["--mount", &mount, "call", "py_hello", r#"{"who": "you"}"#],
        dir.path(),
    );
    assert_eq!(
        (called.status.code(), stdout(&called).as_str()),
        (Some(0), "hello you\n")
    );
    assert_stopped(&marker);
}

#[test]
fn a_server_that_outlives_its_session_is_stopped_before_exit() {
    let dir = temp_dirs();
    let marker = processes::marker();
    // Ignores the end of its stdin: rmcp waits for it, then sends SIGTERM.
    let Some(mount) = python_mount("py", &[HELLO], &marker, "stubborn") else {
        return;
    };
    let listed = binary(&["--mount", &mount, "list"], dir.path());
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    assert!(stdout(&listed).contains("py_hello"), "{}", stdout(&listed));
    assert_stopped(&marker);
}

#[test]
fn a_failed_mount_stops_the_servers_mounted_before_it() {
    let dir = temp_dirs();
    let marker = processes::marker();
    let Some(first) = python_mount("py", &[HELLO], &marker, "stubborn") else {
        return;
    };
    let out = binary(
        &[
            "--mount",
            &first,
            "--mount",
            "gone=/nonexistent/mcp-server",
            "list",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot mount `gone`"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    assert_stopped(&marker);
}

/// A registry with `repeat`, served over streamable HTTP on a free loopback port with a
/// bearer token.
async fn http_server(token: &str) -> HttpServer {
    let registry = ToolRegistry::new();
    registry.register(RepeatTool).unwrap();
    McpHandler::new(registry)
        .serve_http_with("127.0.0.1:0", HttpOptions::new().bearer_token(token))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_is_mounted_with_its_token_for_call_and_list() {
    let dir = temp_dirs();
    let server = http_server("web-secret").await;
    let mount = format!("web={}", server.url());
    let token = ["--mount-token-env", "web=WEB_TOKEN"];
    let args = |command: &[&'static str]| -> Vec<String> {
        ["--mount", &mount]
            .into_iter()
            .chain(token)
            .chain(command.iter().copied())
            .map(str::to_owned)
            .collect()
    };
    let run = |args: Vec<String>, env: &'static [(&'static str, &'static str)]| {
        let dir = dir.path().to_owned();
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            binary_async(&args, &dir, env).await
        }
    };
    let with_token: &[(&str, &str)] = &[("WEB_TOKEN", "web-secret")];

    let called = run(
        args(&["call", "web_repeat", r#"{"text": "ab", "times": 3}"#]),
        with_token,
    )
    .await;
    assert_eq!(called.status.code(), Some(0), "{}", stderr(&called));
    assert_eq!(stdout(&called), "ababab\n");
    // Validated here, against the schema as served, before anything is sent.
    let invalid = run(args(&["call", "web_repeat", r#"{"text": 1}"#]), with_token).await;
    assert_eq!(invalid.status.code(), Some(1));
    assert!(stdout(&invalid).contains("`/text`"), "{}", stdout(&invalid));

    let listed = run(args(&["list"]), with_token).await;
    assert!(stdout(&listed).contains("web_repeat"), "{}", stdout(&listed));

    let wrong: &[(&str, &str)] = &[("WEB_TOKEN", "not-the-secret")];
    let refused = run(args(&["list"]), wrong).await;
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    let text = stderr(&refused);
    assert!(
        text.contains("cannot mount `web`") && text.contains("401 Unauthorized"),
        "{text}"
    );
    let unset = run(args(&["list"]), &[]).await;
    assert_eq!(unset.status.code(), Some(2));
    assert_eq!(
        stderr(&unset),
        "agent-tools: --mount-token-env: $WEB_TOKEN is not set or empty\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_is_one_config_file_of_mounts() {
    let dir = temp_dirs();
    let marker = processes::marker();
    let Some(python) = mcp_server::python() else {
        return;
    };
    let server = http_server("docs-secret").await;
    let config_of_python = python_config(&[HELLO]);
    let config = dir.path().join("gateway.toml");
    let entries = format!(
        r#"
[[mount]]
name = "py"
command = ["{python}", "-u", "{script}", '''{config}''', "{marker}"]
env = {{ GREETING = "howdy" }}
timeout = "20s"

[[mount]]
name = "docs"
url = "{url}"
token_env = "DOCS_TOKEN"
prefix = "kb_"
defer = true
"#,
        python = python.display(),
        script = mcp_server::script().display(),
        config = config_of_python,
        url = server.url(),
    );
    std::fs::write(&config, entries).unwrap();
    let config = config.to_str().unwrap();
    let token: &[(&str, &str)] = &[("DOCS_TOKEN", "docs-secret")];

    // Both mounted, each as its entry says: the child got its environment, the HTTP
    // server its token and prefix, and its tools are deferred.
    let called = binary_async(
        &["--config", config, "call", "py_hello", r#"{"who": "you"}"#],
        dir.path(),
        token,
    )
    .await;
    assert_eq!(stdout(&called), "howdy you\n", "{}", stderr(&called));
    let called = binary_async(
        &["--config", config, "call", "kb_repeat", r#"{"text": "ab"}"#],
        dir.path(),
        token,
    )
    .await;
    assert_eq!(stdout(&called), "abab\n", "{}", stderr(&called));
    let listed = binary_async(&["--config", config, "list"], dir.path(), token).await;
    let line = stdout(&listed)
        .lines()
        .find(|line| line.starts_with("kb_repeat"))
        .map(str::to_owned);
    assert!(
        line.as_deref().is_some_and(|line| line.contains("deferred")),
        "{}",
        stdout(&listed)
    );
    assert_stopped(&marker);

    // The token's variable is named where it is missing.
    let unset = binary_async(&["--config", config, "list"], dir.path(), &[]).await;
    assert_eq!(unset.status.code(), Some(2));
    assert_eq!(
        stderr(&unset),
        "agent-tools: [[mount]] token_env: $DOCS_TOKEN is not set or empty\n"
    );
    assert_stopped(&marker);
    // A flag and an entry may not share a name.
    let twice = binary_async(
        &["--config", config, "--mount", "py=/bin/true", "list"],
        dir.path(),
        token,
    )
    .await;
    assert_eq!(
        stderr(&twice),
        "agent-tools: two mounts are named `py` (in --mount or [[mount]]); give each its own name\n"
    );
}

#[test]
fn mount_entries_that_cannot_work_are_refused_with_the_reason() {
    let dir = temp_dirs();
    let url = "url = \"http://127.0.0.1:1/mcp\"";
    let cases = [
        (
            format!("name = \"a b\"\n{url}"),
            "`a b` is not a usable name: use letters, digits, `_` or `-`",
        ),
        ("name = \"x\"".to_owned(), "`x` needs a `command` or a `url`"),
        (
            format!("name = \"x\"\ncommand = \"srv\"\n{url}"),
            "`x` has both a `command` and a `url`; give one",
        ),
        (
            "name = \"x\"\ncommand = []".to_owned(),
            "`x` has an empty `command`",
        ),
        (
            "name = \"x\"\ncommand = \"srv\"\ntoken_env = \"T\"".to_owned(),
            "`x` is a command, not an HTTP server; only a `url` takes `token_env`",
        ),
        (
            format!("name = \"x\"\n{url}\nenv = {{ A = \"b\" }}"),
            "`x` is an HTTP server; `env` is for a `command`, which it sets for the child",
        ),
    ];
    for (entry, problem) in cases {
        let config = dir.path().join("mounts.toml");
        std::fs::write(&config, format!("[[mount]]\n{entry}\n")).unwrap();
        let out = binary(&["--config", config.to_str().unwrap(), "list"], dir.path());
        assert_eq!(out.status.code(), Some(2), "{entry}");
        assert_eq!(
            stderr(&out),
            format!(
                "agent-tools: invalid config file {}: [[mount]]: {problem}\n",
                config.display()
            ),
        );
    }
}

#[test]
fn an_unreachable_http_mount_is_told_by_its_cause() {
    let dir = temp_dirs();
    let url = format!("http://127.0.0.1:{}/mcp", ports::free_port());
    let out = binary(&["--mount", &format!("gone={url}"), "list"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "agent-tools: cannot mount `gone`: cannot connect to the MCP server `{url}`: error \
             sending request for url ({url}): client error (Connect): tcp connect error: \
             Connection refused (os error 111)\n"
        )
    );
}
