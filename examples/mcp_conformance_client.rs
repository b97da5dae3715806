//! The client side of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`): an MCP server's tools mounted into a
//! [`ToolRegistry`] and called the way an agent calls any tool.
//!
//! The suite starts a test server for a scenario, then runs this program as
//!
//! ```text
//! MCP_CONFORMANCE_SCENARIO=tools_call mcp_conformance_client http://localhost:PORT/mcp
//! ```
//!
//! and checks what the server saw. `scripts/conformance` builds it and runs the client
//! scenarios. Mounting is the handshake and `tools/list`; then each scenario calls the
//! tool its server offers. The exit status is non-zero when mounting or the call fails.

use std::process::ExitCode;

use agent_tools::mcp::{McpServer, MountMcp as _, MountOptions};
use agent_tools::serde_json::{Value, json};
use agent_tools::{ToolCall, ToolRegistry};

/// The tool each client scenario's server offers, and the arguments to call it with;
/// `None` for scenarios that only check the handshake.
fn scenario_call(scenario: &str) -> Result<Option<(&'static str, Value)>, String> {
    Ok(match scenario {
        "initialize" => None,
        "tools_call" => Some(("add_numbers", json!({"a": 5, "b": 3}))),
        // The server asks for input (`elicitation/create`) with defaults for every
        // field, and checks that the answer it gets has them.
        "elicitation-sep1034-client-defaults" => Some(("test_client_elicitation_defaults", json!({}))),
        // The server closes the call's event stream before answering; the result comes
        // on the stream the client opens again after the `retry` interval.
        "sse-retry" => Some(("test_reconnection", json!({}))),
        other => return Err(format!("unknown scenario `{other}`")),
    })
}

async fn run(scenario: &str, url: &str) -> Result<(), String> {
    let call = scenario_call(scenario)?;
    let registry = ToolRegistry::new();
    let mount = registry
        .mount_mcp(McpServer::http(url), MountOptions::new())
        .await
        .map_err(|error| error.to_string())?;
    eprintln!("mounted {} tools: {:?}", mount.server(), mount.tool_names());
    let outcome = match call {
        Some((name, arguments)) => {
            let result = registry.call(ToolCall::new("1", name, arguments)).await;
            println!("{name}: {}", result.text());
            match result.is_error() {
                true => Err(format!("`{name}` failed: {}", result.text())),
                false => Ok(()),
            }
        }
        None => Ok(()),
    };
    mount.unmount().await;
    outcome
}

#[tokio::main]
async fn main() -> ExitCode {
    let (Some(url), Ok(scenario)) = (std::env::args().nth(1), std::env::var("MCP_CONFORMANCE_SCENARIO"))
    else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<scenario> mcp_conformance_client <server-url>");
        return ExitCode::from(2);
    };
    match run(&scenario, &url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_conformance_client: {scenario}: {error}");
            ExitCode::FAILURE
        }
    }
}
