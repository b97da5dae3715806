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
//!
//! A mounted tool's server may ask the user something while the call runs
//! (elicitation); the mount passes the question to the registry's [`Caller`], the
//! application's side of the conversation. Here nobody is at the keyboard, so the caller
//! accepts every form as it is offered, with its defaults.
//!
//! The `auth/*` scenarios put an OAuth authorization server in front of the test server:
//! the mount logs in as [`OAuthClient`] does for any server — discovery from the `401`,
//! registration (or the pre-registered client the suite passes in
//! `MCP_CONFORMANCE_CONTEXT`, or a client ID metadata document where the server takes
//! one), the code flow with PKCE, step-up on `403`. The suite's authorization server
//! approves at once and redirects; [`FollowRedirect`] takes the code from its redirect, as
//! a browser would hand it to a loopback listener.

use std::process::ExitCode;

use agent_tools::mcp::oauth::{FollowRedirect, OAuthClient};
use agent_tools::mcp::{McpServer, MountMcp as _, MountOptions};
use agent_tools::serde_json::{self as serde_json, Map, Value, json};
use agent_tools::{
    ToolCall, ToolRegistry,
    caller::{Caller, CallerError, ElicitRequest, ElicitResponse},
    tool::BoxFuture,
};

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
        // Every authorization scenario's server offers one tool once the client is in.
        auth if auth.starts_with("auth/") => Some(("test-tool", json!({}))),
        other => return Err(format!("unknown scenario `{other}`")),
    })
}

/// Answers questions as a user who presses OK: every form accepted with its defaults.
struct AcceptDefaults;

impl Caller for AcceptDefaults {
    fn elicit(&self, request: ElicitRequest) -> BoxFuture<'_, Result<ElicitResponse, CallerError>> {
        Box::pin(async move {
            match request {
                ElicitRequest::Form { requested_schema, .. } => {
                    Ok(ElicitResponse::accept(defaults(&requested_schema)))
                }
                other => Err(CallerError::not_available(format!(
                    "answer `{}` without a user",
                    other.message()
                ))),
            }
        })
    }
}

/// The `default` of each property of a form (SEP-1034), by property name.
fn defaults(form: &Value) -> Map<String, Value> {
    let properties = form.get("properties").and_then(Value::as_object);
    properties
        .into_iter()
        .flatten()
        .filter_map(|(name, property)| Some((name.clone(), property.get("default")?.clone())))
        .collect()
}

/// The client ID metadata document the `auth/basic-cimd` scenario expects as `client_id`
/// (the suite never fetches it).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// How the mount logs in when a server asks for OAuth: as a public client registered on
/// the spot, or the pre-registered client of `MCP_CONFORMANCE_CONTEXT`.
fn login() -> Result<OAuthClient, String> {
    let redirect = "http://localhost:3000/callback"
        .parse()
        .map_err(|error| format!("{error}"))?;
    let mut login = OAuthClient::builder()
        .authorizer(FollowRedirect::new(redirect))
        .client_metadata_url(CLIENT_METADATA_URL);
    if let Ok(context) = std::env::var("MCP_CONFORMANCE_CONTEXT") {
        let context: Value =
            serde_json::from_str(&context).map_err(|error| format!("MCP_CONFORMANCE_CONTEXT: {error}"))?;
        if let Some(id) = context.get("client_id").and_then(Value::as_str) {
            login = login.client_id(id);
        }
        if let Some(secret) = context.get("client_secret").and_then(Value::as_str) {
            login = login.client_secret(secret);
        }
    }
    Ok(login.build())
}

async fn run(scenario: &str, url: &str) -> Result<(), String> {
    let call = scenario_call(scenario)?;
    let registry = ToolRegistry::builder().caller(AcceptDefaults).build();
    // The suite's servers speak protocol 2025-11-25, whose handshake is `initialize`
    // (they answer the `server/discover` of 2026-07-28 with an empty result, which does
    // not read as "unknown method"); it also lets servers ask questions during a call.
    let mount = registry
        .mount_mcp(
            McpServer::http(url).oauth(login()?),
            MountOptions::new().prefer_initialize(),
        )
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
