//! MCP 2026-07-28 requests written by hand, as the conformance suite writes them, so a
//! test sees the wire: the body with its `_meta`, the standard headers, the HTTP status,
//! and the notifications an event stream carries before the response.

use agent_tools_mcp::HttpServer;
use serde_json::{Value, json};

/// The capabilities a 2026 client declares on each request.
pub(crate) fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}, "roots": {}},
    })
}

/// Posts a 2026-07-28 `tools/call` of `tool` with `extra` params; the JSON-RPC response.
pub(crate) async fn call(server: &HttpServer, tool: &str, arguments: Value, extra: Value) -> Value {
    post(
        server,
        "tools/call",
        Some(tool),
        call_params(tool, arguments, extra),
    )
    .await
}

/// The params of a `tools/call` of `tool` with `extra` params.
pub(crate) fn call_params(tool: &str, arguments: Value, extra: Value) -> Value {
    let mut params = json!({"name": tool, "arguments": arguments});
    if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
        params.extend(extra);
    }
    params
}

/// Posts a 2026-07-28 request of `method` (naming `name` in its headers) with `params`
/// and the client's `_meta`; the JSON-RPC response.
pub(crate) async fn post(server: &HttpServer, method: &str, name: Option<&str>, params: Value) -> Value {
    let request = Request::new(method, params);
    let request = match name {
        Some(name) => request.header("mcp-name", name),
        None => request,
    };
    request.send(server).await.response
}

/// A 2026-07-28 request as the wire carries it: the body's method and params, the
/// `_meta` it adds to them, and the HTTP headers beside the standard ones.
pub(crate) struct Request {
    method: String,
    params: Value,
    meta: Value,
    headers: Vec<(String, String)>,
}

/// What came back: the HTTP status, the JSON-RPC response, and every other message of an
/// event stream (notifications sent before the response).
pub(crate) struct Reply {
    pub(crate) status: reqwest::StatusCode,
    pub(crate) response: Value,
    pub(crate) notifications: Vec<Value>,
}

impl Request {
    pub(crate) fn new(method: &str, params: Value) -> Self {
        Self {
            method: method.to_owned(),
            params,
            meta: meta(),
            headers: Vec::new(),
        }
    }

    pub(crate) fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Sets `key` of the request's `_meta` (`Value::Null` removes it).
    pub(crate) fn meta(mut self, key: &str, value: Value) -> Self {
        if let Some(meta) = self.meta.as_object_mut() {
            match value {
                Value::Null => meta.remove(key),
                value => meta.insert(key.to_owned(), value),
            };
        }
        self
    }

    pub(crate) async fn send(mut self, server: &HttpServer) -> Reply {
        if let Some(params) = self.params.as_object_mut() {
            params.insert("_meta".to_owned(), self.meta);
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": self.method, "params": self.params});
        let mut request = reqwest::Client::new()
            .post(server.url())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", &self.method);
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let response = request
            .body(body.to_string())
            .send()
            .await
            .expect("the server answers");
        let status = response.status();
        let text = response.text().await.expect("a body");
        // A JSON body, or an event stream of messages, the response last.
        let mut messages: Vec<Value> = text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter(|data| !data.trim().is_empty())
            .map(|data| {
                serde_json::from_str(data.trim()).unwrap_or_else(|error| panic!("not JSON ({error}): {text}"))
            })
            .collect();
        if messages.is_empty() {
            messages.push(
                serde_json::from_str(&text).unwrap_or_else(|error| panic!("not JSON ({error}): {text}")),
            );
        }
        let response = messages.pop().unwrap_or_default();
        Reply {
            status,
            response,
            notifications: messages,
        }
    }
}
