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
//! scenarios of both of the suite's lines (`MCP_CONFORMANCE_PROTOCOL_VERSION` says which
//! revision the scenario's server speaks). Mounting is the handshake and `tools/list`;
//! then each scenario makes the calls its server expects. The exit status is non-zero
//! when mounting or a call fails.
//!
//! A mounted tool's server may ask the user something (elicitation): while the call runs
//! on 2025-11-25, in an input-required result on 2026-07-28. Either way the mount passes
//! the question to the registry's [`Caller`], the application's side of the
//! conversation. Here nobody is at the keyboard, so the caller accepts every form as it
//! is offered, with its defaults.
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

/// The calls each client scenario's server expects, in order, as (tool, arguments); an
/// empty list for scenarios that only check the handshake and the listing. `context` is
/// the suite's `MCP_CONFORMANCE_CONTEXT`, which names the calls of some scenarios, and
/// `registry` holds the mounted tools, whose definitions some scenarios ask to see again.
fn scenario_calls(
    scenario: &str,
    context: &Value,
    registry: &ToolRegistry,
) -> Result<Vec<(String, Value)>, String> {
    let call = |name: &str, arguments: Value| (name.to_owned(), arguments);
    Ok(match scenario {
        "initialize" | "request-metadata" | "json-schema-ref-no-deref" => Vec::new(),
        "tools_call" => vec![call("add_numbers", json!({"a": 5, "b": 3}))],
        // The server asks for input (`elicitation/create`) with defaults for every
        // field, and checks that the answer it gets has them.
        "elicitation-sep1034-client-defaults" => vec![call("test_client_elicitation_defaults", json!({}))],
        // The server closes the call's event stream before answering; the result comes
        // on the stream the client opens again after the `retry` interval.
        "sse-retry" => vec![call("test_reconnection", json!({}))],
        // Input-required results (SEP-2322): answered through the registry's caller and
        // retried with the server's `requestState`, or without one when it sent none; a
        // call between them carries neither; a result without `resultType` is complete.
        "sep-2322-client-request-state" => [
            "test_mrtr_echo_state",
            "test_mrtr_unrelated",
            "test_mrtr_no_state",
            "test_mrtr_no_result_type",
        ]
        .into_iter()
        .map(|name| call(name, json!({})))
        .collect(),
        "http-standard-headers" => vec![
            call("test_headers", json!({})),
            call("my-hyphenated-tool", json!({})),
        ],
        // The server's invalid tools are not mounted; its valid one is called.
        "http-invalid-tool-headers" => vec![call("valid_tool", json!({"region": "us-west1"}))],
        // The calls and their arguments are the suite's.
        "http-custom-headers" => context_calls(context)?,
        // The focal tool's input schema, as the mount keeps it, sent back to be compared.
        "json-schema-2020-12-preservation" => {
            let focal = registry
                .get("json_schema_2020_12_tool")
                .ok_or("the server's `json_schema_2020_12_tool` was not mounted")?;
            let schema = focal.spec().input_schema.clone();
            vec![call("json_schema_echo", json!({"schema": schema}))]
        }
        // Every authorization scenario's server offers one tool once the client is in.
        auth if auth.starts_with("auth/") => vec![call("test-tool", json!({}))],
        other => return Err(format!("unknown scenario `{other}`")),
    })
}

/// The calls `MCP_CONFORMANCE_CONTEXT` lists as `toolCalls: [{name, arguments}]`.
fn context_calls(context: &Value) -> Result<Vec<(String, Value)>, String> {
    let calls = context
        .get("toolCalls")
        .and_then(Value::as_array)
        .ok_or("MCP_CONFORMANCE_CONTEXT lists no toolCalls")?;
    calls
        .iter()
        .map(|call| {
            let name = call
                .get("name")
                .and_then(Value::as_str)
                .ok_or("a tool call without a name")?;
            Ok((
                name.to_owned(),
                call.get("arguments").cloned().unwrap_or_else(|| json!({})),
            ))
        })
        .collect()
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
fn login(context: &Value) -> Result<OAuthClient, String> {
    let redirect = "http://localhost:3000/callback"
        .parse()
        .map_err(|error| format!("{error}"))?;
    let mut login = OAuthClient::builder()
        .authorizer(FollowRedirect::new(redirect))
        .client_metadata_url(CLIENT_METADATA_URL);
    if let Some(id) = context.get("client_id").and_then(Value::as_str) {
        login = login.client_id(id);
    }
    if let Some(secret) = context.get("client_secret").and_then(Value::as_str) {
        login = login.client_secret(secret);
    }
    Ok(login.build())
}

/// What the suite passes in `MCP_CONFORMANCE_CONTEXT` (an empty object without it).
fn context() -> Result<Value, String> {
    match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(context) => {
            serde_json::from_str(&context).map_err(|error| format!("MCP_CONFORMANCE_CONTEXT: {error}"))
        }
        Err(_) => Ok(json!({})),
    }
}

async fn run(scenario: &str, url: &str) -> Result<(), String> {
    let context = context()?;
    let registry = ToolRegistry::builder().caller(AcceptDefaults).build();
    // The suite says which revision its server speaks. Its 2025-11-25 servers'
    // handshake is `initialize` (they answer the `server/discover` of 2026-07-28 with an
    // empty result, which does not read as "unknown method"); it also lets them ask
    // questions during a call. Its 2026-07-28 servers are discovered.
    let options = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() {
        Ok("2026-07-28") => MountOptions::new(),
        _ => MountOptions::new().prefer_initialize(),
    };
    let mount = registry
        .mount_mcp(McpServer::http(url).oauth(login(&context)?), options)
        .await
        .map_err(|error| error.to_string())?;
    eprintln!("mounted {} tools: {:?}", mount.server(), mount.tool_names());
    let outcome = call_all(&registry, scenario_calls(scenario, &context, &registry)?).await;
    mount.unmount().await;
    outcome
}

/// Makes the calls in order; the first that fails is the error.
async fn call_all(registry: &ToolRegistry, calls: Vec<(String, Value)>) -> Result<(), String> {
    for (n, (name, arguments)) in calls.into_iter().enumerate() {
        let result = registry
            .call(ToolCall::new(n.to_string(), &name, arguments))
            .await;
        println!("{name}: {}", result.text());
        if result.is_error() {
            return Err(format!("`{name}` failed: {}", result.text()));
        }
    }
    Ok(())
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
