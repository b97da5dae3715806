//! A client of one streamable HTTP session, speaking JSON-RPC over plain HTTP requests:
//! for tests that need to see the session's requests as they go (its id, a `DELETE`,
//! requests sharing an id, one kept-alive connection), which an SDK client would hide.
//! Against a stateless server there is no session id and every request goes without one.

use serde_json::{Value, json};

/// One session on a server's MCP endpoint.
pub(crate) struct Session<'a> {
    client: &'a reqwest::Client,
    url: String,
    /// `None` when the server keeps no sessions.
    id: Option<String>,
}

impl<'a> Session<'a> {
    /// Opens a session (`initialize`, then `notifications/initialized`) at `url`.
    pub(crate) async fn open(client: &'a reqwest::Client, url: String) -> Self {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "session-client", "version": "1"}}});
        let response = post(client, &url, None, initialize).await;
        let id = response
            .headers()
            .get("mcp-session-id")
            .map(|id| id.to_str().unwrap().to_owned());
        let session = Self { client, url, id };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        post(client, &session.url, session.id.as_deref(), initialized).await;
        session
    }

    /// Sends `message` in the session and reads the whole response (for a request, an
    /// event stream that ends with its response).
    pub(crate) async fn send(&self, message: Value) -> String {
        let response = post(self.client, &self.url, self.id.as_deref(), message).await;
        response.text().await.unwrap()
    }

    /// Ends the session with a `DELETE`.
    pub(crate) async fn end(self) {
        let id = self.id.expect("a server that keeps sessions");
        let ended = self
            .client
            .delete(&self.url)
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-11-25")
            .send()
            .await
            .unwrap();
        assert!(ended.status().is_success(), "{}", ended.status());
    }
}

async fn post(client: &reqwest::Client, url: &str, session: Option<&str>, body: Value) -> reqwest::Response {
    let mut request = client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    response
}
