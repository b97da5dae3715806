//! The policy from the command line, as real processes: `--policy FILE` and `[policy]` in
//! `--config` govern `call`, `list`, `serve` and mounted tools; bad files are usage
//! errors naming the file, the position and the rules.

use std::path::PathBuf;
use std::process::{Output, Stdio};

use agent_tools::mcp::rmcp::ServiceExt as _;
use agent_tools::mcp::rmcp::model::{CallToolRequestParams, CallToolResult};
use agent_tools::mcp::rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use mcp_text::text;
use test_support::mcp_text;

mod attacks;

/// The README's policy for a coding agent, and `touch` allowed for these tests.
const CODING_POLICY: &str = r#"
[policy]
mode = "default"
deny = [
  "exec(command: rm -rf*)",
  "exec(command: git push --force*)",
  "write_file(path: *.env)",
  "edit_file(path: *.env)",
]
allow = [
  "exec(command: git status*)",
  "exec(command: git diff*)",
  "exec(command: cargo test*)",
  "exec(command: touch *)",
  "write_file(path: src/**)",
  "write_file(path: tests/**)",
]
"#;

/// A temporary directory with a workspace (`ws`, holding `x/keep.txt`) and, beside it, a
/// data directory for the memory database.
struct Dirs(tempfile::TempDir);

impl Dirs {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ws/x")).unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::write(dir.path().join("ws/x/keep.txt"), "keep me\n").unwrap();
        Self(dir)
    }

    fn ws(&self) -> PathBuf {
        self.0.path().join("ws")
    }

    /// Writes `text` to `name` beside the workspace and returns its path.
    fn file(&self, name: &str, text: &str) -> String {
        let path = self.0.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    }

    /// The real binary, run in the workspace.
    fn run(&self, args: &[&str]) -> Output {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"))
            .args(args)
            .current_dir(self.ws())
            .env("XDG_DATA_HOME", self.0.path().join("data"))
            .output()
            .unwrap();
        assert!(!stderr(&output).contains("panicked"), "{}", stderr(&output));
        output
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `list`'s line for `tool`, its words joined by single spaces.
fn list_line(listing: &str, tool: &str) -> String {
    let line = listing
        .lines()
        .find(|line| line.split_whitespace().next() == Some(tool))
        .unwrap_or_else(|| panic!("no line for {tool} in:\n{listing}"));
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_denied_call_is_an_error_result_naming_its_rule_and_does_not_run() {
    let dirs = Dirs::new();
    let policy = dirs.file("policy.toml", CODING_POLICY);
    let log = dirs.0.path().join("audit.jsonl");
    let log = log.to_str().unwrap();

    let denied = dirs.run(&[
        "--policy",
        &policy,
        "--audit-log",
        log,
        "call",
        "exec",
        r#"{"command": "rm -rf x"}"#,
    ]);
    assert_eq!(denied.status.code(), Some(1), "an error result, as any other");
    assert!(
        stdout(&denied).contains("the deny rule `exec(command: rm -rf*)` refuses it"),
        "{}",
        stdout(&denied)
    );
    assert!(dirs.ws().join("x/keep.txt").exists(), "the command did not run");
    let audit = std::fs::read_to_string(log).unwrap();
    let event: Value = serde_json::from_str(audit.lines().next().unwrap()).unwrap();
    assert_eq!(event["outcome"], "denied", "{audit}");

    // `--json` says the same in its outcome.
    let json = dirs.run(&[
        "call",
        "exec",
        r#"{"command": "git push --force origin main"}"#,
        "--json",
        "--policy",
        &policy,
    ]);
    assert_eq!(json.status.code(), Some(1));
    let result: Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(
        (&result["outcome"], &result["is_error"]),
        (&json!("denied"), &json!(true))
    );

    let allowed = dirs.run(&[
        "--policy",
        &policy,
        "call",
        "exec",
        r#"{"command": "touch made.txt"}"#,
    ]);
    assert_eq!(allowed.status.code(), Some(0), "{}", stdout(&allowed));
    assert!(dirs.ws().join("made.txt").exists(), "the allowed command ran");

    // Neither denied nor allowed by a rule, and exec is destructive: default mode asks,
    // and no one can be asked here.
    let asked = dirs.run(&[
        "--policy",
        &policy,
        "call",
        "exec",
        r#"{"command": "ls > listing.txt"}"#,
    ]);
    assert_eq!(asked.status.code(), Some(1));
    assert!(
        stdout(&asked).contains("needs a person's approval"),
        "{}",
        stdout(&asked)
    );
    assert!(
        !dirs.ws().join("listing.txt").exists(),
        "the asked call did not run"
    );

    let write_env = dirs.run(&[
        "--policy",
        &policy,
        "call",
        "write_file",
        r#"{"path": "src/../.env", "content": "TOKEN=x"}"#,
    ]);
    assert_eq!(write_env.status.code(), Some(1), "{}", stdout(&write_env));
    assert!(
        stdout(&write_env).contains("the deny rule `write_file(path: *.env)`"),
        "{}",
        stdout(&write_env)
    );
    assert!(!dirs.ws().join(".env").exists());
    let write_src = dirs.run(&[
        "--policy",
        &policy,
        "call",
        "write_file",
        r#"{"path": "src/lib.rs", "content": "//! ok\n"}"#,
    ]);
    assert_eq!(write_src.status.code(), Some(0), "{}", stdout(&write_src));
    assert!(dirs.ws().join("src/lib.rs").exists());
}

#[test]
fn list_shows_what_the_policy_does_with_each_tool() {
    let dirs = Dirs::new();
    let policy = dirs.file(
        "policy.toml",
        "[policy]\ndeny = [\"web_*\"]\nask = [\"write_file\"]\nallow = [\"exec(command: git status*)\"]\n",
    );
    let listed = dirs.run(&["--policy", &policy, "list"]);
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let listing = stdout(&listed);
    let starts = |tool: &str, verdict: &str| {
        let line = list_line(&listing, tool);
        assert!(line.starts_with(&format!("{tool} {verdict} [")), "{line}");
    };
    starts("read_file", "allowed");
    starts("web_fetch", "denied (deny rule `web_*`)");
    starts("write_file", "asks (ask rule `write_file`)");
    starts("edit_file", "asks (policy mode `default`)");
    starts("exec", "depends on arguments");
    // The verdicts are a column: the hints start at the same place on every line.
    let hint_columns: Vec<usize> = listing.lines().filter_map(|line| line.find(" [")).collect();
    assert!(
        hint_columns.windows(2).all(|pair| pair[0] == pair[1]),
        "{listing}"
    );

    let read_only = dirs.file("read-only.toml", "[policy]\nmode = \"read_only\"\n");
    let listing = stdout(&dirs.run(&["--policy", &read_only, "list"]));
    assert!(
        list_line(&listing, "exec").starts_with("exec denied (policy mode `read_only`) ["),
        "{listing}"
    );
    assert!(
        list_line(&listing, "list_dir").starts_with("list_dir allowed ["),
        "{listing}"
    );

    // Without a policy, no column.
    let plain = stdout(&dirs.run(&["list"]));
    assert!(
        list_line(&plain, "exec").starts_with("exec [destructive"),
        "{plain}"
    );
}

#[test]
fn a_bad_policy_file_is_a_usage_error_naming_the_file_and_where() {
    let dirs = Dirs::new();
    let check = |name: &str, text: &str, expected: &[&str]| {
        let path = dirs.file(name, text);
        for command in ["list", "serve"] {
            let out = dirs.run(&["--policy", &path, command]);
            assert_eq!(out.status.code(), Some(2), "{name} with {command}");
            let stderr = stderr(&out);
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(stdout(&out).is_empty(), "{command} did not start");
            for part in expected {
                assert!(stderr.contains(part), "{part} in {stderr}");
            }
        }
    };
    check(
        "unknown-key.toml",
        "[policy]\nmode = \"default\"\nallw = [\"exec\"]\n",
        &[
            "invalid policy file",
            "unknown-key.toml:3:1: unknown field `allw`",
        ],
    );
    check(
        "top-level.toml",
        "[policy]\ndeny = [\"exec\"]\n\n[exec]\ndefault_timeout = \"5s\"\n",
        &["top-level.toml:4:2: unknown field `exec`, expected `policy`"],
    );
    check(
        "bad-mode.toml",
        "[policy]\nmode = \"strict\"\n",
        &["bad-mode.toml:2:8: unknown variant `strict`"],
    );
    check(
        "bad-rules.toml",
        "[policy]\ndeny = [\"rm -rf\", \"exec(command: ls\"]\nallow = [\"read_file\"]\n",
        &[
            "policy file ",
            "bad-rules.toml: 2 invalid policy rules:",
            "deny rule `rm -rf`: ` ` cannot be in a tool name",
            "deny rule `exec(command: ls`: a rule with `(` must end with `)`",
        ],
    );
    let missing = dirs.run(&["--policy", "no-such-policy.toml", "call", "read_file", "{}"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).starts_with("agent-tools: cannot read policy file no-such-policy.toml"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn a_config_policy_applies_and_a_policy_file_replaces_it() {
    let dirs = Dirs::new();
    let config = dirs.file(
        "agent.toml",
        "default_timeout = \"30s\"\n\n[exec]\ndefault_timeout = \"5s\"\n\n[policy]\nmode = \"bypass\"\ndeny = [\"exec(command: touch*)\"]\n",
    );
    let touch = r#"{"command": "touch made.txt"}"#;
    let denied = dirs.run(&["--config", &config, "call", "exec", touch]);
    assert_eq!(denied.status.code(), Some(1));
    assert!(
        stdout(&denied).contains("the deny rule `exec(command: touch*)`"),
        "{}",
        stdout(&denied)
    );
    assert!(!dirs.ws().join("made.txt").exists());
    let ran = dirs.run(&["--config", &config, "call", "exec", r#"{"command": "ls x"}"#]);
    assert_eq!(
        ran.status.code(),
        Some(0),
        "bypass runs the rest: {}",
        stdout(&ran)
    );

    // The policy file wins entirely: the config's deny rule is gone with its section,
    // and its mode too (this file's default asks before `ls`).
    let policy = dirs.file("policy.toml", "[policy]\nallow = [\"exec(command: touch *)\"]\n");
    let ran = dirs.run(&["--config", &config, "--policy", &policy, "call", "exec", touch]);
    assert_eq!(ran.status.code(), Some(0), "{}", stdout(&ran));
    assert!(dirs.ws().join("made.txt").exists());
    let asked = dirs.run(&[
        "--config",
        &config,
        "--policy",
        &policy,
        "call",
        "exec",
        r#"{"command": "ls x"}"#,
    ]);
    assert_eq!(asked.status.code(), Some(1));
    assert!(
        stdout(&asked).contains("policy mode `default`"),
        "{}",
        stdout(&asked)
    );

    let bad = dirs.file(
        "bad.toml",
        "[exec]\ndefault_timeout = \"5s\"\n\n[policy]\ndenny = [\"exec\"]\n",
    );
    let out = dirs.run(&["--config", &bad, "list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("invalid config file ")
            && stderr(&out).contains("bad.toml:5:1: unknown field `denny`"),
        "{}",
        stderr(&out)
    );
    let bad_rule = dirs.file("bad-rule.toml", "[policy]\nask = [\"web fetch\"]\n");
    let out = dirs.run(&["--config", &bad_rule, "list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("config file ")
            && stderr(&out).contains("bad-rule.toml: 1 invalid policy rule: ask rule `web fetch`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_policy_governs_mounted_tools() {
    let dirs = Dirs::new();
    let inner = dirs.0.path().join("inner");
    std::fs::create_dir_all(inner.join("x")).unwrap();
    std::fs::write(inner.join("x/keep.txt"), "keep me\n").unwrap();
    let mount = format!(
        "inner='{}' --workspace '{}' --memory-db '{}' serve",
        env!("CARGO_BIN_EXE_agent-tools"),
        inner.display(),
        dirs.0.path().join("data/inner.db").display()
    );
    let policy = dirs.file(
        "policy.toml",
        "[policy]\ndeny = [\"inner_exec(command: rm -rf*)\"]\nallow = [\"inner_exec(command: touch *)\"]\n",
    );
    let denied = dirs.run(&[
        "--mount",
        &mount,
        "--policy",
        &policy,
        "call",
        "inner_exec",
        r#"{"command": "rm -rf x"}"#,
    ]);
    assert_eq!(denied.status.code(), Some(1), "{}", stderr(&denied));
    assert!(
        stdout(&denied).contains("the deny rule `inner_exec(command: rm -rf*)`"),
        "{}",
        stdout(&denied)
    );
    assert!(
        inner.join("x/keep.txt").exists(),
        "the remote command did not run"
    );
    let ran = dirs.run(&[
        "--mount",
        &mount,
        "--policy",
        &policy,
        "call",
        "inner_exec",
        r#"{"command": "touch made.txt"}"#,
    ]);
    assert_eq!(ran.status.code(), Some(0), "{}", stdout(&ran));
    assert!(inner.join("made.txt").exists());

    let listing = stdout(&dirs.run(&["--mount", &mount, "--policy", &policy, "list"]));
    assert!(
        list_line(&listing, "inner_exec").starts_with("inner_exec depends on arguments ["),
        "{listing}"
    );
}

async fn call(
    client: &agent_tools::mcp::rmcp::service::RunningService<agent_tools::mcp::rmcp::RoleClient, ()>,
    name: &str,
    arguments: Value,
) -> CallToolResult {
    let params =
        CallToolRequestParams::new(name.to_owned()).with_arguments(arguments.as_object().cloned().unwrap());
    client.peer().call_tool(params).await.unwrap()
}

#[tokio::test]
async fn serve_refuses_a_denied_call_for_an_mcp_client() {
    let dirs = Dirs::new();
    let policy = dirs.file("policy.toml", CODING_POLICY);
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command
        .arg("--workspace")
        .arg(dirs.ws())
        .arg("--memory-db")
        .arg(dirs.0.path().join("data/memory.db"))
        .arg("--policy")
        .arg(&policy)
        .arg("serve")
        .kill_on_drop(true);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let client = ().serve(transport).await.unwrap();

    let denied = call(&client, "exec", json!({"command": "rm -rf x"})).await;
    assert_eq!(denied.is_error, Some(true), "{denied:?}");
    assert!(
        text(&denied).contains("the deny rule `exec(command: rm -rf*)`"),
        "{}",
        text(&denied)
    );
    assert!(dirs.ws().join("x/keep.txt").exists(), "the command did not run");

    let read = call(&client, "read_file", json!({"path": "x/keep.txt"})).await;
    assert_ne!(read.is_error, Some(true), "{read:?}");
    assert!(text(&read).contains("keep me"), "{}", text(&read));
    client.cancel().await.unwrap();
}

/// The README's policy file, as written there.
fn readme_policy() -> String {
    let readme = include_str!("../../../../docs/guide/cli.md");
    let section = &readme[readme.find("\n## Policy\n").expect("a Policy section")..];
    let start = section.find("```toml\n").expect("a TOML block") + "```toml\n".len();
    let end = start + section[start..].find("```").expect("the block's end");
    section[start..end].to_owned()
}

#[test]
fn the_readme_policy_does_what_it_says() {
    let dirs = Dirs::new();
    let policy = dirs.file("readme-policy.toml", &readme_policy());
    let listed = dirs.run(&["--policy", &policy, "list"]);
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    assert!(
        list_line(&stdout(&listed), "exec").starts_with("exec depends on arguments"),
        "{}",
        stdout(&listed)
    );
    let call =
        |tool: &str, arguments: &str| stdout(&dirs.run(&["--policy", &policy, "call", tool, arguments]));
    let denied = [
        ("exec", r#"{"command": "rm -rf x"}"#, "exec(command: rm -rf*)"),
        (
            "exec",
            r#"{"command": "git push --force origin"}"#,
            "exec(command: git push --force*)",
        ),
        (
            "write_file",
            r#"{"path": "config/.env", "content": "A=1"}"#,
            "write_file(path: *.env)",
        ),
        (
            "edit_file",
            r#"{"path": ".env", "old_text": "A", "new_text": "B"}"#,
            "edit_file(path: *.env)",
        ),
    ];
    for (tool, arguments, rule) in denied {
        let out = call(tool, arguments);
        assert!(
            out.contains(&format!("the deny rule `{rule}`")),
            "{arguments}: {out}"
        );
    }
    assert!(dirs.ws().join("x/keep.txt").exists());
    let status = call("exec", r#"{"command": "git status --short"}"#);
    assert!(!status.contains("was not run"), "{status}");
    let written = call("write_file", r#"{"path": "tests/a.rs", "content": "//! a\n"}"#);
    assert!(!written.contains("was not run"), "{written}");
    assert!(dirs.ws().join("tests/a.rs").exists());
}
