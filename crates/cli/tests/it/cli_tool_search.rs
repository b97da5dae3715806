//! `--tool-search` through the real binary, with two servers mounted — `agent-tools
//! serve` itself as a stdio child and the official TypeScript everything server — for
//! `list`, `schema`, `call` and `serve`: every tool deferred, `tool_search` finding local
//! and mounted ones, and what it found called.

use std::path::Path;
use std::process::{Output, Stdio};

use agent_tools::mcp::rmcp::model::CallToolRequestParams;
use agent_tools::mcp::rmcp::service::NotificationContext;
use agent_tools::mcp::rmcp::transport::TokioChildProcess;
use agent_tools::mcp::rmcp::{ClientHandler, RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use test_support::everything;
use test_support::mcp_text;

/// A workspace (`ws`) and, beside it, the data directory for the memory database.
fn temp_dirs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["ws", "data", "inner"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    dir
}

/// `--mount` arguments for the two servers.
fn mounts(dir: &Path) -> Vec<String> {
    let inner = format!(
        "inner='{}' --workspace '{}' --memory-db '{}' serve",
        env!("CARGO_BIN_EXE_agent-tools"),
        dir.join("inner").display(),
        dir.join("data/inner.db").display(),
    );
    let everything = everything::everything_server().expect("checked at the test's start");
    let everything = format!("ev={everything}");
    vec!["--mount".into(), inner, "--mount".into(), everything]
}

/// The binary with both servers mounted and `--tool-search`.
fn binary(dir: &Path, args: &[&str]) -> Output {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .args(mounts(dir))
        .arg("--tool-search")
        .args(args)
        .current_dir(dir.join("ws"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn definitions(output: &Output) -> Vec<Value> {
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn call_tool_search_finds_local_and_mounted_tools_and_their_definitions() {
    if everything::everything_server().is_none() {
        return;
    }
    let dir = temp_dirs();
    let dir = dir.path();
    let found = binary(
        dir,
        &["call", "tool_search", r#"{"query": "sum of two numbers"}"#],
    );
    assert_eq!(found.status.code(), Some(0), "{}", stderr(&found));
    assert!(stdout(&found).starts_with("ev_get-sum — "), "{}", stdout(&found));

    let found = binary(
        dir,
        &[
            "call",
            "tool_search",
            r#"{"query": "run a shell command", "limit": 3}"#,
            "--json",
        ],
    );
    assert_eq!(found.status.code(), Some(0), "{}", stderr(&found));
    let result: Value = serde_json::from_slice(&found.stdout).unwrap();
    let tools = result["structured"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|tool| tool["name"].as_str()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(
        names.contains(&"exec") && names.contains(&"inner_exec"),
        "{names:?}"
    );
    assert!(
        tools[0]["inputSchema"]["properties"]["command"].is_object(),
        "MCP definitions"
    );

    // What a search found is called as any tool.
    let called = binary(dir, &["call", "ev_get-sum", r#"{"a": 2, "b": 40}"#]);
    assert_eq!(called.status.code(), Some(0), "{}", stderr(&called));
    assert!(stdout(&called).contains("42"), "{}", stdout(&called));
}

#[test]
fn list_marks_every_tool_deferred_but_the_search() {
    if everything::everything_server().is_none() {
        return;
    }
    let dir = temp_dirs();
    let listed = binary(dir.path(), &["list"]);
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let text = stdout(&listed);
    for line in text.lines() {
        let deferred = line.contains("deferred]");
        assert_eq!(deferred, !line.starts_with("tool_search "), "{line}");
    }
    assert!(
        text.contains("\ninner_read_file ") && text.contains("\nev_echo "),
        "{text}"
    );
}

#[test]
fn schema_offers_what_each_provider_takes() {
    if everything::everything_server().is_none() {
        return;
    }
    let dir = temp_dirs();
    let dir = dir.path();
    let chat = binary(dir, &["schema", "--dialect", "openai-chat"]);
    assert_eq!(chat.status.code(), Some(0), "{}", stderr(&chat));
    let chat = definitions(&chat);
    assert_eq!(chat.len(), 1);
    assert_eq!(chat[0]["function"]["name"], "tool_search");

    for (dialect, search) in [
        (
            "anthropic",
            json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}),
        ),
        ("openai-responses", json!({"type": "tool_search"})),
    ] {
        let output = binary(dir, &["schema", "--dialect", dialect]);
        assert_eq!(output.status.code(), Some(0), "{dialect}: {}", stderr(&output));
        let offered = definitions(&output);
        assert_eq!(offered.last(), Some(&search), "{dialect}");
        let tools = &offered[..offered.len() - 1];
        assert!(tools.len() > 20, "{dialect}: {}", tools.len());
        assert!(
            tools.iter().all(|tool| tool["defer_loading"] == true),
            "{dialect}"
        );
    }

    let all = binary(
        dir,
        &["schema", "--dialect", "gemini", "--search-mode", "load-all"],
    );
    let all = definitions(&all);
    assert!(all.iter().all(|tool| tool["name"] != "tool_search"));
    assert!(all.len() > 20);
    let one = binary(dir, &["schema", "--tool", "ev_echo"]);
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert_eq!(definitions(&one)[0]["function"]["name"], "ev_echo");
}

/// Tells the test when the server says its tool list changed.
struct ListChanges(mpsc::UnboundedSender<()>);

impl ClientHandler for ListChanges {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

#[tokio::test]
async fn serve_lists_the_search_and_what_the_sessions_searches_found() {
    if everything::everything_server().is_none() {
        return;
    }
    let dir = temp_dirs();
    let dir = dir.path();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command
        .args(mounts(dir))
        .args(["--tool-search", "serve"])
        .current_dir(dir.join("ws"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .kill_on_drop(true);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (changed, mut list_changed) = mpsc::unbounded_channel();
    let client = ListChanges(changed).serve(transport).await.unwrap();
    let names = || async {
        let listed = client.list_all_tools().await.unwrap();
        listed
            .iter()
            .map(|tool| tool.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names().await, ["tool_search"]);

    let call = |name: &'static str, arguments: Value| {
        let arguments = arguments.as_object().cloned();
        let mut request = CallToolRequestParams::new(name);
        request.arguments = arguments;
        client.call_tool(request)
    };
    let found = call("tool_search", json!({"query": "echo back a message"}))
        .await
        .unwrap();
    let text = mcp_text::text(&found);
    assert!(text.starts_with("ev_echo — "), "{text}");
    let structured = found.structured_content.clone().unwrap();
    assert_eq!(structured["tools"][0]["name"], "ev_echo");
    // What the search found joins this session's list, and the client is told.
    list_changed.recv().await.expect("a list_changed notification");
    let listed = names().await;
    assert_eq!(listed[0], "tool_search");
    assert!(listed.contains(&"ev_echo".to_owned()), "{listed:?}");
    assert_eq!(listed.len(), 1 + structured["tools"].as_array().unwrap().len());
    let echoed = call("ev_echo", json!({"message": "through the gateway"}))
        .await
        .unwrap();
    assert!(
        mcp_text::text(&echoed).contains("through the gateway"),
        "{echoed:?}"
    );
    client.cancel().await.unwrap();
}

/// The README's `[tool_search]` block, as written there.
fn readme_tool_search_config() -> String {
    let readme = include_str!("../../../../docs/guide/tool_search.md");
    let start = readme
        .find("```toml\n[tool_search]")
        .expect("a [tool_search] block")
        + "```toml\n".len();
    let end = start + readme[start..].find("```").expect("the block's end");
    readme[start..end].to_owned()
}

#[test]
fn the_readme_config_keeps_its_core_tools_in_full() {
    let dir = temp_dirs();
    let config = dir.path().join("agent-tools.toml");
    std::fs::write(&config, readme_tool_search_config()).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .arg("--config")
        .arg(&config)
        .args(["schema", "--dialect", "openai-chat"])
        .current_dir(dir.path().join("ws"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let names: Vec<String> = definitions(&output)
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, ["read_file", "list_dir", "exec", "tool_search"]);
}
