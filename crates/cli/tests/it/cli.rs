//! The command line: in-process over a registry of test tools, and as a real process for
//! exit statuses and streams.

use std::path::Path;
use std::process::Command;

use agent_tools::builtins::Workspace;
use agent_tools::{ToolError, ToolRegistry, output::Json, tool};
use agent_tools_cli::{self as cli, Io};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

/// Repeat a text a number of times.
///
/// Handy for testing.
#[tool(read_only, idempotent)]
async fn repeat(
    /// The text.
    text: String,
    /// How often.
    times: Option<u8>,
) -> String {
    text.repeat(usize::from(times.unwrap_or(2)))
}

/// What `count_entries` found.
#[derive(Serialize, JsonSchema)]
struct Listing {
    files: usize,
}

/// Count the entries in the workspace root.
#[tool(read_only)]
async fn count_entries(ctx: &agent_tools::ToolContext) -> Result<Json<Listing>, ToolError> {
    let workspace = ctx
        .extension::<Workspace>()
        .ok_or_else(|| ToolError::new("no workspace"))?;
    let files = std::fs::read_dir(workspace.root())
        .map_err(ToolError::from_error)?
        .count();
    Ok(Json(Listing { files }))
}

/// Delete everything (but not really).
#[tool(destructive)]
async fn wipe() -> Result<String, ToolError> {
    Err(ToolError::new("refusing to wipe; ask the user first"))
}

/// Label the workspace.
#[tool(idempotent)]
async fn label(
    /// Labels by name: a map, which strict modes cannot express.
    labels: std::collections::BTreeMap<String, String>,
) -> String {
    format!("{} labels", labels.len())
}

fn setup(
    registry: &ToolRegistry,
    _settings: &cli::Settings,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    registry.register(RepeatTool)?;
    registry.register(CountEntriesTool)?;
    registry.register(WipeTool)?;
    registry.register(LabelTool)?;
    Ok(())
}

struct Output {
    status: u8,
    stdout: String,
    stderr: String,
}

async fn run(args: &[&str], stdin: &str) -> Output {
    let mut stdin = stdin.as_bytes();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let io = Io {
        stdin: &mut stdin,
        stdout: &mut stdout,
        stderr: &mut stderr,
    };
    let args = std::iter::once("agent-tools").chain(args.iter().copied());
    let status = cli::run(args, setup, io).await;
    Output {
        status,
        stdout: String::from_utf8(stdout).unwrap(),
        stderr: String::from_utf8(stderr).unwrap(),
    }
}

#[tokio::test]
async fn list_prints_one_line_per_tool() {
    let out = run(&["list"], "").await;
    assert_eq!(out.status, 0);
    assert_eq!(
        out.stdout,
        "repeat         [read-only, idempotent] Repeat a text a number of times.\n\
         count_entries  [read-only] Count the entries in the workspace root.\n\
         wipe           [destructive] Delete everything (but not really).\n\
         label          [idempotent] Label the workspace.\n"
    );
}

#[tokio::test]
async fn list_with_a_policy_shows_what_it_does_with_each_tool_in_a_column() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("policy.toml");
    std::fs::write(
        &policy,
        "[policy]\ndeny = [\"wipe\"]\nask = [\"rep*\"]\nallow = [\"label(labels: *)\"]\n",
    )
    .unwrap();
    let out = run(&["list", "--policy", policy.to_str().unwrap()], "").await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "repeat         asks (ask rule `rep*`)     [read-only, idempotent] Repeat a text a number of times.\n\
         count_entries  allowed                    [read-only] Count the entries in the workspace root.\n\
         wipe           denied (deny rule `wipe`)  [destructive] Delete everything (but not really).\n\
         label          depends on arguments       [idempotent] Label the workspace.\n"
    );
}

#[tokio::test]
async fn schema_prints_definitions_as_a_json_array() {
    let out = run(&["schema", "--dialect", "openai-chat"], "").await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let definitions: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(definitions.len(), 4);
    // Strict by default for OpenAI: the optional `times` is required and nullable.
    let repeat = &definitions[0]["function"];
    assert_eq!(repeat["strict"], true);
    assert_eq!(repeat["parameters"]["required"], json!(["text", "times"]));
    assert_eq!(
        repeat["parameters"]["properties"]["times"]["type"],
        json!(["integer", "null"])
    );
    // The map has no strict form: the tool is sent non-strict, and stderr says why.
    assert!(definitions[3]["function"].get("strict").is_none());
    assert_eq!(
        out.stderr,
        "note: `label` (openai-chat): `/properties/labels`: is a map with free-form keys \
         (`additionalProperties`); strict mode needs every key listed\n"
    );

    let out = run(&["schema", "--tool", "repeat", "--strict", "never"], "").await;
    let definitions: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(definitions.len(), 1);
    assert_eq!(
        definitions[0]["function"]["parameters"]["required"],
        json!(["text"])
    );
    assert!(definitions[0]["function"].get("strict").is_none());
}

#[tokio::test]
async fn schema_speaks_every_dialect() {
    let printed = |out: Output| -> Vec<Value> {
        assert_eq!(out.status, 0, "{}", out.stderr);
        serde_json::from_str(&out.stdout).unwrap()
    };
    let responses = printed(
        run(
            &["schema", "--dialect", "openai-responses", "--strict", "never"],
            "",
        )
        .await,
    );
    assert_eq!(responses[0]["name"], "repeat");
    assert_eq!(responses[0]["strict"], false);

    let anthropic = printed(run(&["schema", "--dialect", "anthropic", "--strict", "always"], "").await);
    assert_eq!(anthropic[0]["strict"], true);
    assert_eq!(anthropic[0]["input_schema"]["required"], json!(["text"]));
    assert!(anthropic[3].get("strict").is_none());

    let gemini = printed(run(&["schema", "--dialect", "gemini"], "").await);
    assert_eq!(gemini[0]["parameters"]["properties"]["times"]["nullable"], true);
    assert!(
        gemini[2].get("parameters").is_none(),
        "no arguments, no parameters"
    );
    assert!(
        gemini[3].get("parametersJsonSchema").is_some(),
        "maps need JSON Schema"
    );

    let mcp = printed(run(&["schema", "--dialect", "mcp"], "").await);
    assert_eq!(mcp[1]["outputSchema"]["properties"]["files"]["type"], "integer");
    assert_eq!(mcp[1]["annotations"], json!({"readOnlyHint": true}));
    assert_eq!(
        mcp[2]["inputSchema"],
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
    for dialect in ["openai-chat", "openai-responses", "anthropic", "gemini", "mcp"] {
        for (definition, provider_dialect) in printed(run(&["schema", "--dialect", dialect], "").await)
            .iter()
            .zip(std::iter::repeat(
                dialect.parse::<agent_tools::Dialect>().unwrap(),
            ))
        {
            let violations = agent_tools::testing::provider_rule_violations(provider_dialect, definition);
            assert!(violations.is_empty(), "{dialect}: {violations:?}");
        }
    }
}

#[tokio::test]
async fn schema_of_an_unknown_tool_is_a_usage_error() {
    let out = run(&["schema", "--tool", "nope"], "").await;
    assert_eq!(out.status, 2);
    assert_eq!(
        out.stderr,
        "agent-tools: no tool named `nope` (available: repeat, count_entries, wipe, label)\n"
    );
    let out = run(&["schema", "--dialect", "klingon"], "").await;
    assert_eq!(out.status, 2);
    assert!(out.stderr.contains("invalid value 'klingon'"), "{}", out.stderr);
}

#[tokio::test]
async fn call_prints_text_and_sets_the_status() {
    let out = run(&["call", "repeat", r#"{"text": "ab", "times": 3}"#], "").await;
    assert_eq!((out.status, out.stdout.as_str()), (0, "ababab\n"));
    let out = run(&["call", "repeat", "-"], r#"{"text": "x"}"#).await;
    assert_eq!((out.status, out.stdout.as_str()), (0, "xx\n"));
    let out = run(&["call", "wipe"], "").await;
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (1, "refusing to wipe; ask the user first\n")
    );
    let out = run(&["call", "repeat", r#"{"txt": "x"}"#], "").await;
    assert_eq!(out.status, 1);
    assert!(
        out.stdout.starts_with("invalid arguments for `repeat`:"),
        "{}",
        out.stdout
    );
    let out = run(&["call", "reepat"], "").await;
    assert_eq!(out.status, 1);
    assert!(out.stdout.contains("Did you mean `repeat`?"), "{}", out.stdout);
}

#[tokio::test]
async fn results_fit_the_budget_and_the_rest_is_kept_in_the_workspace() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().to_str().unwrap();
    let line = format!("{}\n", "x".repeat(999));
    let arguments = json!({"text": line, "times": 255}).to_string();
    let out = run(&["call", "repeat", &arguments, "--workspace", root], "").await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.len() < 80_000, "{} bytes printed", out.stdout.len());
    assert!(
        out.stdout
            .contains("Result cut to fit its budget of 25,000 estimated tokens"),
        "{}",
        &out.stdout[out.stdout.len() - 400..]
    );
    let kept: Vec<_> = std::fs::read_dir(workspace.path().join(".agent-tools/results"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(std::fs::read_to_string(&kept[0]).unwrap(), line.repeat(255));

    // `max_tokens = 0` turns the budget off.
    let config = workspace.path().join("off.toml");
    std::fs::write(&config, "[results]\nmax_tokens = 0\n").unwrap();
    let config = config.to_str().unwrap();
    let out = run(
        &[
            "--config",
            config,
            "call",
            "repeat",
            &arguments,
            "--workspace",
            root,
        ],
        "",
    )
    .await;
    assert_eq!(out.stdout, line.repeat(255));
}

#[tokio::test]
async fn call_json_prints_the_whole_result() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("a.txt"), "a").unwrap();
    let root = workspace.path().to_str().unwrap();
    let out = run(&["call", "count_entries", "--json", "--workspace", root], "").await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let result: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(result["structured"], json!({"files": 1}));
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "{\"files\":1}"}])
    );
    assert_eq!(result["is_error"], false);
    assert_eq!(result["outcome"], "ok");
}

#[tokio::test]
async fn global_options_go_before_or_after_the_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let log = log.to_str().unwrap();
    let before = run(&["--audit-log", log, "call", "repeat", r#"{"text": "a"}"#], "").await;
    let after = run(&["call", "repeat", r#"{"text": "b"}"#, "--audit-log", log], "").await;
    assert_eq!((before.status, after.status), (0, 0));
    let lines: Vec<Value> = std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["arguments"], json!({"text": "b"}));
    assert_eq!(lines[1]["call_id"], "cli-1");
}

#[tokio::test]
async fn configuration_files_are_read_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.toml");
    let log = dir.path().join("from-config.jsonl");
    std::fs::write(
        &good,
        format!(
            "default_timeout = \"30s\"\naudit_log = {:?}\n",
            log.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = run(&["--config", good.to_str().unwrap(), "call", "wipe"], "").await;
    assert_eq!(out.status, 1);
    assert!(log.exists(), "the config's audit log is used");

    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "default_timeout = \"30s\"\ntimeout = 5\n").unwrap();
    let out = run(&["--config", bad.to_str().unwrap(), "list"], "").await;
    assert_eq!(out.status, 2);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("bad.toml:2:1: unknown field `timeout`"),
        "{}",
        out.stderr
    );

    // An unknown section is placed, and every key and section a config file may have is
    // named: the command line's own as well as the built-in tools'.
    let unknown = dir.path().join("unknown.toml");
    std::fs::write(&unknown, "default_timeout = \"30s\"\n\n[bogus]\na = 1\n").unwrap();
    let out = run(&["--config", unknown.to_str().unwrap(), "list"], "").await;
    assert_eq!(out.status, 2);
    assert_eq!(
        out.stderr,
        format!(
            "agent-tools: invalid config file {}:3:1: unknown field `bogus`, expected one of \
             `default_timeout`, `audit_log`, `lock_file`, `mount`, `policy`, `auth`, `serve`, `telemetry`, \
             `audit`, `tasks`, `tool_search`, `results`, `workspace`, `exec`, `web`, `subagents`, `memory`, \
             `media`, `screenshot`\n",
            unknown.display()
        )
    );

    let bad_duration = dir.path().join("bad-duration.toml");
    std::fs::write(&bad_duration, "default_timeout = \"soon\"\n").unwrap();
    let out = run(&["--config", bad_duration.to_str().unwrap(), "list"], "").await;
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .contains("bad-duration.toml: invalid value: string \"soon\", expected a duration"),
        "{}",
        out.stderr
    );

    let out = run(&["--config", "/no/such/file.toml", "list"], "").await;
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.starts_with("agent-tools: cannot read config file"),
        "{}",
        out.stderr
    );
}

#[test]
fn config_errors_say_what_failed_and_keep_the_cause() {
    use cli::{Config, ConfigError};
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "default_timeout = \"30s\"\ntimeout = 5\n").unwrap();
    let error = Config::load(&bad).unwrap_err();
    let ConfigError::Invalid { path, position, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!((path, *position), (&bad, Some((2, 1))));
    let cause = std::error::Error::source(&error).expect("toml's error");
    assert!(cause.is::<toml::de::Error>(), "{cause:?}");

    let missing = dir.path().join("missing.toml");
    let error = Config::load(&missing).unwrap_err();
    let ConfigError::Read { source, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(
        agent_tools::error::error_chain(&error),
        error.to_string(),
        "the cause is said once"
    );
}

#[tokio::test]
async fn a_failing_setup_is_a_usage_error_with_its_message() {
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let io = Io {
        stdin: &mut "".as_bytes(),
        stdout: &mut stdout,
        stderr: &mut stderr,
    };
    let setup = |registry: &ToolRegistry,
                 _: &cli::Settings|
     -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        registry.register(RepeatTool)?;
        registry.register(RepeatTool)?;
        Ok(())
    };
    let status = cli::run(["agent-tools", "list"], setup, io).await;
    assert_eq!(status, cli::EXIT_USAGE);
    assert_eq!(
        String::from_utf8(stderr).unwrap(),
        "agent-tools: a tool named `repeat` is already registered\n"
    );
    assert!(stdout.is_empty());
}

/// The real binary, for streams and exit statuses as a shell sees them.
fn binary(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .args(args)
        .current_dir(cwd)
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap()
}

#[test]
fn the_binary_reports_usage_errors_in_one_line_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let help = binary(&["--help"], dir.path());
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("Examples:"));

    let unknown_flag = binary(&["list", "--frobnicate"], dir.path());
    assert_eq!(unknown_flag.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown_flag.stderr).contains("unexpected argument '--frobnicate'"));

    let missing_workspace = binary(&["--workspace", "/definitely/missing", "list"], dir.path());
    assert_eq!(missing_workspace.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing_workspace.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("agent-tools: cannot open workspace"),
        "{stderr}"
    );

    let unknown_tool = binary(&["call", "nope", "{}"], dir.path());
    assert_eq!(unknown_tool.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown_tool.stdout).starts_with("unknown tool `nope`"));

    let schema = binary(&["schema"], dir.path());
    assert_eq!(schema.status.code(), Some(0));

    for output in [&help, &unknown_flag, &missing_workspace, &unknown_tool, &schema] {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stderr.contains("panicked") && !stderr.contains("backtrace"),
            "{stderr}"
        );
    }
}

#[test]
fn the_binary_serves_the_built_in_tools_with_exec_settings_from_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let listed = binary(&["list"], dir.path());
    let names: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    for tool in [
        "read_file",
        "write_file",
        "edit_file",
        "list_dir",
        "file_search",
        "exec",
    ] {
        assert!(names.iter().any(|name| name == tool), "{tool} in {names:?}");
    }

    let config = dir.path().join("agent.toml");
    std::fs::write(
        &config,
        "[exec]\ndeny = ['\\bgit\\s+push\\b']\ndefault_timeout = \"5s\"\n",
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let refused = binary(
        &[
            "--config",
            config,
            "call",
            "exec",
            r#"{"command": "git push origin main"}"#,
        ],
        dir.path(),
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stdout).starts_with("refused by the command guard"));
    let ran = binary(
        &[
            "--config",
            config,
            "call",
            "exec",
            r#"{"command": "echo hello > f.txt && cat f.txt"}"#,
        ],
        dir.path(),
    );
    assert_eq!(
        String::from_utf8_lossy(&ran.stdout),
        "exit code: 0\n--- stdout ---\nhello\n"
    );

    std::fs::write(dir.path().join("bad.toml"), "[exec]\ndeny = ['(']\n").unwrap();
    let bad = binary(&["--config", "bad.toml", "list"], dir.path());
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr),
        "agent-tools: invalid exec settings: invalid guard pattern `(`: unclosed group\n"
    );
}

/// A one-shot HTTP server on 127.0.0.1 that answers every connection with `body`.
fn local_server(body: &'static str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut request = [0u8; 4096];
            let _ = std::io::Read::read(&mut stream, &mut request);
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = std::io::Write::write_all(&mut stream, response.as_bytes());
        }
    });
    format!("http://{address}/")
}

#[test]
fn web_fetch_refuses_private_addresses_unless_allowed_and_search_needs_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let url = local_server("hello from loopback");
    let arguments = format!(r#"{{"url": "{url}"}}"#);
    let refused = binary(&["call", "web_fetch", &arguments], dir.path());
    assert_eq!(refused.status.code(), Some(1));
    let text = String::from_utf8_lossy(&refused.stdout);
    assert!(
        text.contains("127.0.0.1") && !text.contains("hello from loopback"),
        "{text}"
    );
    let allowed = binary(
        &["--allow-private-network", "call", "web_fetch", &arguments],
        dir.path(),
    );
    assert_eq!(
        allowed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&allowed.stdout)
    );
    assert!(String::from_utf8_lossy(&allowed.stdout).contains("hello from loopback"));

    let without_key = Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .arg("list")
        .current_dir(dir.path())
        .env_remove("BRAVE_API_KEY")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&without_key.stdout).contains("web_search"));
    let with_key = Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .arg("list")
        .current_dir(dir.path())
        .env("BRAVE_API_KEY", "test-key")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&with_key.stdout).contains("web_search"));
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    let dir = tempfile::tempdir().unwrap();
    for subcommand in ["list", "schema", "call", "serve"] {
        let help = binary(&[subcommand, "--help"], dir.path());
        assert_eq!(help.status.code(), Some(0), "{subcommand}");
        let text = String::from_utf8_lossy(&help.stdout);
        assert!(text.contains("Example"), "{subcommand}: {text}");
        assert!(
            text.contains(&format!("agent-tools {subcommand}")),
            "{subcommand}: {text}"
        );
    }
}

#[test]
fn serve_reports_bad_addresses_and_mounts_as_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad_addr = binary(&["serve", "--http", "not-an-address"], dir.path());
    assert_eq!(bad_addr.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&bad_addr.stderr);
    assert!(
        stderr.starts_with("agent-tools: cannot serve on not-an-address"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    let bad_mount = binary(&["serve", "--mount", "no-equals-sign"], dir.path());
    assert_eq!(bad_mount.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&bad_mount.stderr);
    assert!(stderr.contains("expected NAME=COMMAND or NAME=URL"), "{stderr}");
}
