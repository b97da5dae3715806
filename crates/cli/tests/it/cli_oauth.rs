//! `agent-tools serve --http … --oauth-issuer … --oauth-audience … --oauth-scopes …` as a
//! real process behind a real authorization server on loopback: clients without a token
//! are sent to the metadata, a read scope sees and runs the read-only built-in tools and
//! is refused the rest with `403 insufficient_scope`, the subject reaches the audit log,
//! and a configuration that cannot work is refused before serving.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use agent_tools::mcp::{McpServer, MountMcp as _, MountOptions};
use agent_tools::{ToolCall, ToolRegistry};
use serde_json::{Value, json};

use auth_server::AuthServer;
use test_support::auth_server;

const SCOPES: &str = r#"
[[scope]]
name = "mcp:read"
tools = ["*"]
read_only = true

[[scope]]
name = "mcp:write"
tools = ["*"]
"#;

/// `agent-tools serve` on a free loopback port; stopped when dropped.
struct Served {
    child: Child,
    url: String,
}

impl Served {
    /// Configured by flags: `--oauth-issuer`, `--oauth-audience`, `--oauth-scopes`.
    fn start(dir: &Path, issuer: &str) -> Self {
        Self::start_with(dir, |command, url| {
            std::fs::write(dir.join("scopes.toml"), SCOPES).unwrap();
            command
                .args(["--oauth-issuer", issuer, "--oauth-audience", url])
                .arg("--oauth-scopes")
                .arg(dir.join("scopes.toml"));
        })
    }

    /// Configured by `configure`, given the command and the server's URL.
    fn start_with(dir: &Path, configure: impl FnOnce(&mut Command, &str)) -> Self {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let url = format!("http://127.0.0.1:{port}/mcp");
        let mut command = cli(dir);
        command.args(["serve", "--http", &format!("127.0.0.1:{port}")]);
        configure(&mut command, &url);
        let mut child = command.stderr(Stdio::piped()).spawn().unwrap();
        // The server says when it serves; until then a connection could be refused.
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let announced = lines
            .by_ref()
            .map_while(Result::ok)
            .find(|line| line.contains("serving"));
        assert!(announced.is_some(), "the server did not start");
        std::thread::spawn(move || lines.for_each(drop));
        Self { child, url }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn cli(dir: &Path) -> Command {
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command
        .arg("--workspace")
        .arg(dir.join("ws"))
        .arg("--audit-log")
        .arg(dir.join("audit.jsonl"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .stdin(Stdio::null());
    command
}

async fn mount(url: &str, token: &str) -> ToolRegistry {
    let local = ToolRegistry::new();
    local
        .mount_mcp(
            McpServer::http(url).bearer_token(token),
            MountOptions::new().prefix("s_"),
        )
        .await
        .unwrap();
    local
}

#[tokio::test]
async fn serve_admits_oauth_tokens_by_scope_and_audits_the_subject() {
    let auth = AuthServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    std::fs::write(dir.path().join("ws/notes.txt"), "hello\n").unwrap();
    let served = Served::start(dir.path(), auth.issuer());

    let http = reqwest::Client::new();
    let anonymous = http.post(&served.url).body("{}").send().await.unwrap();
    assert_eq!(anonymous.status().as_u16(), 401);
    let challenge = anonymous.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(challenge.contains("resource_metadata=\""), "{challenge}");

    let reader = mount(
        &served.url,
        &auth.token(&served.url, "rita", "mcp:read", json!({})),
    )
    .await;
    let names = reader.names();
    assert!(names.contains(&"s_read_file".to_owned()), "{names:?}");
    assert!(
        !names.contains(&"s_exec".to_owned()),
        "a read scope does not list exec: {names:?}"
    );
    let read = reader
        .call(ToolCall::new("c1", "s_read_file", json!({"path": "notes.txt"})))
        .await;
    assert!(read.text().contains("hello"), "{}", read.text());

    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "exec", "arguments": {"command": "touch ran"}}});
    let refused = http
        .post(&served.url)
        .bearer_auth(auth.token(&served.url, "rita", "mcp:read", json!({})))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    assert!(!dir.path().join("ws/ran").exists());

    let audit = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap();
    let event: Value = serde_json::from_str(audit.lines().last().unwrap()).unwrap();
    assert_eq!(
        (event["tool"].as_str(), event["subject"].as_str()),
        (Some("read_file"), Some("rita"))
    );
    assert_eq!(event["client_id"], "test-client");
}

#[test]
fn a_configuration_that_cannot_work_is_refused_before_serving() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let output = cli(dir.path()).args(args).output().unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (status, stderr) = run(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--oauth-issuer",
        "http://auth.example.com",
        "--oauth-audience",
        "https://mcp.example.com/mcp",
    ]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("must be HTTPS"), "{stderr}");
    let (status, stderr) = run(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--oauth-issuer",
        "https://auth.example.com",
    ]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(
        stderr.contains("--oauth-issuer needs --oauth-audience"),
        "{stderr}"
    );
    std::fs::write(
        dir.path().join("bad.toml"),
        "[[scope]]\nname = \"x\"\ntools = [\"a\\\\\"]\n",
    )
    .unwrap();
    let bad = dir.path().join("bad.toml");
    let (status, stderr) = run(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--oauth-issuer",
        "https://auth.example.com",
        "--oauth-audience",
        "https://mcp.example.com/mcp",
        "--oauth-scopes",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("scope `x`"), "{stderr}");
}

#[tokio::test]
async fn a_mounted_oauth_server_is_logged_in_once_through_the_browser_and_remembered() {
    let auth = AuthServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    std::fs::write(dir.path().join("ws/notes.txt"), "hello\n").unwrap();
    let served = Served::start(dir.path(), auth.issuer());
    let client_dir = dir.path().join("client");
    let mount = format!("r={}", served.url);
    let command = |args: &[&str]| {
        let mut command = cli(&client_dir);
        command
            .arg("--mount")
            .arg(&mount)
            .args(args)
            .env("XDG_STATE_HOME", client_dir.join("state"));
        command
    };

    // The login: the command prints where to authorize and waits for the redirect.
    let mut child = command(&["list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let authorize_url = tokio::task::spawn_blocking(move || {
        let mut lines = BufReader::new(stderr).lines().map_while(Result::ok);
        let address = lines
            .by_ref()
            .skip_while(|line| !line.contains("open this address in a browser"))
            .nth(1);
        std::thread::spawn(move || lines.for_each(drop));
        address
    })
    .await
    .unwrap()
    .expect("the command printed where to authorize");
    // The browser: the authorization server approves and redirects to the command's
    // loopback listener, which the browser then loads.
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let approved = browser.get(authorize_url.trim()).send().await.unwrap();
    assert_eq!(approved.status().as_u16(), 302);
    let back = approved.headers()["location"].to_str().unwrap().to_owned();
    assert!(back.starts_with("http://127.0.0.1:"), "{back}");
    let landed = browser.get(&back).send().await.unwrap();
    assert_eq!(landed.status().as_u16(), 200);
    let listed = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let listed_text = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success(), "{listed:?}");
    assert!(listed_text.contains("r_read_file"), "{listed_text}");

    let kept: Vec<_> = std::fs::read_dir(client_dir.join("state/agent-tools/oauth"))
        .unwrap()
        .collect();
    assert_eq!(kept.len(), 1);
    let kept = kept[0].as_ref().unwrap().path();
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(
        std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // A later command uses the kept login: no browser.
    let called = command(&["call", "r_read_file", r#"{"path": "notes.txt"}"#])
        .output()
        .unwrap();
    assert!(called.status.success(), "{called:?}");
    assert!(String::from_utf8_lossy(&called.stdout).contains("hello"));
    assert!(!String::from_utf8_lossy(&called.stderr).contains("open this address"));

    // The server audited the user, and no token reached either audit log.
    let audit = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap();
    assert!(audit.contains("\"subject\":\"ada\""), "{audit}");
    // The later `call` ran a tool, so the client's log exists: a missing one would make the
    // check below pass on nothing.
    let client_audit = std::fs::read_to_string(client_dir.join("audit.jsonl")).unwrap();
    assert!(client_audit.contains("r_read_file"), "{client_audit}");
    for log in [&audit, &client_audit] {
        assert!(!log.contains("eyJ"), "a token in an audit log: {log}");
    }
}

#[tokio::test]
async fn the_config_files_auth_section_configures_the_same() {
    let auth = AuthServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("agent.toml");
    let served = Served::start_with(dir.path(), |command, url| {
        let section = format!(
            "[auth]\nissuer = \"{}\"\naudience = \"{url}\"\n{}",
            auth.issuer(),
            SCOPES.replace("[[scope]]", "[[auth.scope]]")
        );
        std::fs::write(&config, section).unwrap();
        command.arg("--config").arg(&config);
    });
    let reader = mount(
        &served.url,
        &auth.token(&served.url, "rita", "mcp:read", json!({})),
    )
    .await;
    let names = reader.names();
    assert!(
        names.contains(&"s_list_dir".to_owned()) && !names.contains(&"s_write_file".to_owned()),
        "{names:?}"
    );
}
