//! MCP over streamable HTTP by hand: one JSON-RPC message per POST, the answer read from
//! a JSON body or a server-sent-event stream. The tests that must see exactly what goes
//! over the wire (headers, status codes, which replica answered) use this instead of a
//! client library.

use serde_json::Value;

/// What a POST got back.
#[derive(Debug)]
pub struct Posted {
    /// The HTTP status.
    pub status: u16,
    /// The `Mcp-Session-Id` header, if the server sent one.
    pub session_id: Option<String>,
    /// The JSON-RPC response to the request (`result` or `error`), if it came.
    pub response: Option<Value>,
}

/// POSTs `message` to `url`, with `MCP-Protocol-Version: version` when given. An error
/// is a request that did not complete (connection refused or cut, body cut short).
pub async fn post(
    client: &reqwest::Client,
    url: &str,
    version: Option<&str>,
    message: &Value,
) -> Result<Posted, String> {
    let mut request = client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .json(message);
    if let Some(version) = version {
        request = request.header("mcp-protocol-version", version);
    }
    let response = request.send().await.map_err(|error| format!("send: {error}"))?;
    let status = response.status().as_u16();
    let session_id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let is_stream = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let body = response.text().await.map_err(|error| format!("body: {error}"))?;
    let id = message.get("id");
    let messages: Vec<Value> = if is_stream {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    } else {
        serde_json::from_str(&body).into_iter().collect()
    };
    let response = messages.into_iter().find(|reply| {
        id.is_some()
            && reply.get("id") == id
            && (reply.get("result").is_some() || reply.get("error").is_some())
    });
    if id.is_some() && response.is_none() && status == 200 {
        return Err(format!(
            "the response stream ended without the response: {body:?}"
        ));
    }
    Ok(Posted {
        status,
        session_id,
        response,
    })
}

/// A JSON-RPC request.
pub fn request(id: u64, method: &str, params: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A JSON-RPC notification.
pub fn notification(method: &str) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "method": method})
}

/// An `initialize` request for protocol `version`.
pub fn initialize(id: u64, version: &str) -> Value {
    request(
        id,
        "initialize",
        serde_json::json!({
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "by-hand", "version": "1"}
        }),
    )
}

/// POSTs an MCP 2026-07-28 request of `method` to `url`: `params` with the per-request
/// `_meta` of a client that declares `capabilities`, and the standard headers
/// (`Mcp-Method`, and `Mcp-Name` when the params name a tool or a task). The JSON-RPC
/// response.
pub async fn post_2026(
    client: &reqwest::Client,
    url: &str,
    method: &str,
    mut params: Value,
    capabilities: Value,
) -> Result<Value, String> {
    let name = params
        .get("name")
        .or_else(|| params.get("taskId"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(params) = params.as_object_mut() {
        params.insert(
            "_meta".to_owned(),
            serde_json::json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "by-hand", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": capabilities,
            }),
        );
    }
    let mut request = client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .json(&request(1, method, params));
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    let response = request.send().await.map_err(|error| format!("send: {error}"))?;
    let body = response.text().await.map_err(|error| format!("body: {error}"))?;
    // A JSON body, or an event stream whose last message is the response.
    let last = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .rfind(|data| !data.trim().is_empty())
        .unwrap_or(&body);
    serde_json::from_str(last.trim()).map_err(|error| format!("not JSON ({error}): {body}"))
}
