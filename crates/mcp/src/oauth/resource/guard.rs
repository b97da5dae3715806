//! The HTTP face of the resource server: the protected resource metadata document, and
//! the check in front of the MCP endpoint.
//!
//! What it stops: requests without a token, or with one this server does not admit
//! (`401`, with a `WWW-Authenticate` challenge naming the metadata document, so a client
//! can find the authorization server); calls of tools the token's scopes do not reach
//! (`403 insufficient_scope`, naming the scopes that would); and a token of one user
//! continuing the MCP session another user's token opened (the session is bound to the
//! subject that opened it, and looks unknown to anyone else). A session's owner is known
//! for as long as the session lives: when the table of owners is full, the oldest session
//! is closed along with its entry, and a session the table does not hold is refused, so
//! no session is ever served without its owner. What it does not do: it does not
//! rate-limit, and it trusts the authorization server's word on who a subject is.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use agent_tools_core::{ToolRegistry, context::Principal};
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};

use super::tokens::{OAuthResource, TokenError};
use crate::serve::authorized::Authorized;
use crate::serve::http_auth;

/// The most a request body is read to find the tool it calls (POSTs only, and only when
/// scopes are set); a larger body is refused with `413`, not passed on unchecked.
const MAX_PEEKED_BODY: usize = 4 * 1024 * 1024;
/// At most this many sessions are open with their owner; opening one more closes the
/// oldest.
const MAX_SESSIONS: usize = 10_000;
/// The header a streamable HTTP session is named by.
const SESSION_HEADER: &str = "mcp-session-id";

/// Reaches, for a principal, the tools its token's scopes grant.
type Reach = dyn Fn(&Principal, &agent_tools_core::tool::ToolSpec) -> bool + Send + Sync;

/// Closes an HTTP session by its id (the server's session manager's `close_session`).
pub(crate) type CloseSession = dyn Fn(String) -> agent_tools_core::tool::BoxFuture<'static, ()> + Send + Sync;

/// The check in front of the MCP endpoint, shared by its requests.
pub(crate) struct Guard {
    resource: OAuthResource,
    registry: ToolRegistry,
    /// Which tools a principal's scopes reach, as the handler asks it: built once, shared
    /// by every request.
    reach: Arc<Reach>,
    sessions: Mutex<SessionOwners>,
    close_session: Arc<CloseSession>,
}

/// Which subject opened which session.
#[derive(Default)]
struct SessionOwners {
    owners: HashMap<String, String>,
    order: VecDeque<String>,
}

impl Guard {
    /// The guard of `registry`'s endpoint; `close_session` ends the server's session of an
    /// id (for sessions evicted from the table of owners).
    pub(crate) fn new(
        resource: OAuthResource,
        registry: ToolRegistry,
        close_session: Arc<CloseSession>,
    ) -> Arc<Self> {
        let reach: Arc<Reach> = {
            let resource = resource.clone();
            Arc::new(
                move |principal: &Principal, tool: &agent_tools_core::tool::ToolSpec| {
                    resource.scopes().allows(principal, tool)
                },
            )
        };
        Arc::new(Self {
            resource,
            registry,
            reach,
            sessions: Mutex::default(),
            close_session,
        })
    }

    /// The middleware: admits the request with its principal, or answers it.
    pub(crate) async fn check(self: Arc<Self>, request: Request, next: Next) -> Response {
        let Some(token) = http_auth::bearer(request.headers()) else {
            return self.challenge(StatusCode::UNAUTHORIZED, None);
        };
        let principal = match self.resource.verify(token).await {
            Ok(principal) => principal,
            Err(TokenError::Invalid(why)) => {
                return self.challenge(StatusCode::UNAUTHORIZED, Some(("invalid_token", &why)));
            }
            Err(TokenError::Unavailable(why)) => {
                tracing::warn!("cannot check an access token: {why}");
                let message = "this server cannot check access tokens right now; try again later\n";
                return (StatusCode::SERVICE_UNAVAILABLE, message).into_response();
            }
        };
        let session = header_text(&request, SESSION_HEADER);
        if let Some(session) = &session
            && !self.owns(session, &principal.subject)
        {
            // The session's own answer to a stranger: it does not exist.
            return (StatusCode::NOT_FOUND, "no such session\n").into_response();
        }
        let request = match self.in_scope(request, &principal).await {
            Ok(request) => request,
            Err(refused) => return refused,
        };
        let subject = principal.subject.clone();
        let ending = request.method() == axum::http::Method::DELETE;
        let mut request = request;
        request
            .extensions_mut()
            .insert(Authorized::new(principal, Arc::clone(&self.reach)));
        let response = next.run(request).await;
        match &session {
            None => {
                if let Some(opened) = response
                    .headers()
                    .get(SESSION_HEADER)
                    .and_then(|value| value.to_str().ok())
                {
                    self.remember(opened.to_owned(), subject);
                }
            }
            Some(session) if ending && response.status().is_success() => self.forget(session),
            Some(_) => {}
        }
        response
    }

    /// The request, unless it calls a tool the principal's scopes do not reach.
    async fn in_scope(&self, request: Request, principal: &Principal) -> Result<Request, Response> {
        let scopes = self.resource.scopes();
        if scopes.is_empty() || request.method() != axum::http::Method::POST {
            return Ok(request);
        }
        let (parts, body) = request.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, MAX_PEEKED_BODY).await else {
            return Err((StatusCode::PAYLOAD_TOO_LARGE, "the request is too large\n").into_response());
        };
        if let Some(tool) = called_tool(&bytes)
            && let Some(tool) = self.registry.get(&tool)
            && !scopes.allows(principal, tool.spec())
        {
            let needed = scopes.scopes_for(tool.spec()).join(" ");
            let description = format!(
                "the tool `{}` needs one of the scopes: {needed}",
                tool.spec().meta.name
            );
            return Err(self.insufficient(&needed, &description));
        }
        Ok(Request::from_parts(parts, Body::from(bytes)))
    }

    /// `401` asking for a token (with an error when one was given), naming the metadata
    /// document and the scopes this server knows.
    fn challenge(&self, status: StatusCode, error: Option<(&str, &str)>) -> Response {
        let mut value = format!("Bearer resource_metadata=\"{}\"", self.resource.metadata_url());
        let scopes = self.resource.scopes().names().join(" ");
        if !scopes.is_empty() {
            value.push_str(&format!(", scope=\"{scopes}\""));
        }
        if let Some((code, description)) = error {
            value.push_str(&format!(
                ", error=\"{code}\", error_description=\"{}\"",
                quoted(description)
            ));
        }
        let body = match error {
            Some((_, description)) => format!("{description}\n"),
            None => {
                "this MCP server needs an OAuth access token: `Authorization: Bearer <token>`\n".to_owned()
            }
        };
        with_challenge((status, body).into_response(), &value)
    }

    /// `403 insufficient_scope` naming the scopes needed (RFC 6750 §3.1).
    fn insufficient(&self, needed: &str, description: &str) -> Response {
        let value = format!(
            "Bearer error=\"insufficient_scope\", scope=\"{needed}\", resource_metadata=\"{}\", error_description=\"{}\"",
            self.resource.metadata_url(),
            quoted(description)
        );
        with_challenge(
            (StatusCode::FORBIDDEN, format!("{description}\n")).into_response(),
            &value,
        )
    }

    /// Whether `subject` may use `session`: it opened it. A session with no known owner
    /// (never opened here, closed, or evicted) is nobody's.
    fn owns(&self, session: &str, subject: &str) -> bool {
        let sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.owners.get(session).is_some_and(|owner| owner == subject)
    }

    /// Notes who opened `session`; when the table is full, the oldest session is closed,
    /// so that it cannot outlive the record of its owner.
    fn remember(&self, session: String, subject: String) {
        let evicted = {
            let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
            let evicted = match sessions.order.len() >= MAX_SESSIONS {
                true => sessions.order.pop_front(),
                false => None,
            };
            if let Some(oldest) = &evicted {
                sessions.owners.remove(oldest);
            }
            sessions.order.push_back(session.clone());
            sessions.owners.insert(session, subject);
            evicted
        };
        if let Some(oldest) = evicted {
            tokio::spawn((self.close_session)(oldest));
        }
    }

    /// Drops a session its owner ended.
    fn forget(&self, session: &str) {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        if sessions.owners.remove(session).is_some() {
            sessions.order.retain(|open| open != session);
        }
    }
}

/// The routes of the protected resource metadata (RFC 9728): at the path the audience
/// implies, and at the bare well-known path for clients that try that first.
pub(crate) fn metadata_routes(resource: &OAuthResource) -> axum::Router {
    let document = Bytes::from(resource.metadata().to_string());
    let serve = move || {
        let document = document.clone();
        async move { ([(header::CONTENT_TYPE, "application/json")], document) }
    };
    let own_path = url::Url::parse(resource.metadata_url())
        .map(|url| url.path().to_owned())
        .unwrap_or_default();
    let mut router = axum::Router::new().route(
        "/.well-known/oauth-protected-resource",
        axum::routing::get(serve.clone()),
    );
    if own_path != "/.well-known/oauth-protected-resource" && own_path.starts_with('/') {
        router = router.route(&own_path, axum::routing::get(serve));
    }
    router
}

/// The name of the tool a JSON-RPC `tools/call` request calls.
fn called_tool(body: &[u8]) -> Option<String> {
    let message: serde_json::Value = serde_json::from_slice(body).ok()?;
    if message.get("method")?.as_str()? != "tools/call" {
        return None;
    }
    Some(message.get("params")?.get("name")?.as_str()?.to_owned())
}

fn header_text(request: &Request, name: &str) -> Option<String> {
    request.headers().get(name)?.to_str().ok().map(str::to_owned)
}

fn with_challenge(mut response: Response, value: &str) -> Response {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// `text` fit for a quoted-string: quotes and backslashes escaped, control characters
/// dropped.
fn quoted(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_called_tool_is_read_from_a_tools_call_only() {
        let call =
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"exec","arguments":{}}}"#;
        assert_eq!(called_tool(call).as_deref(), Some("exec"));
        let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert_eq!(called_tool(list), None);
        assert_eq!(called_tool(b"not json"), None);
    }

    /// The second lock on the door: an evicted session is closed in the server, not only
    /// forgotten here (the HTTP test shows the whole; this shows each half).
    #[tokio::test]
    async fn the_session_pushed_out_of_the_table_is_closed_and_nobodys() {
        let closed = Arc::new(Mutex::new(Vec::new()));
        let close_session: Arc<CloseSession> = {
            let closed = closed.clone();
            Arc::new(move |id: String| {
                closed.lock().unwrap().push(id);
                Box::pin(async {})
            })
        };
        let resource = OAuthResource::builder("https://issuer.example", "https://mcp.example/mcp")
            .build()
            .unwrap();
        let guard = Guard::new(resource, ToolRegistry::new(), close_session);
        for number in 0..MAX_SESSIONS {
            guard.remember(format!("s{number}"), "bob".to_owned());
        }
        assert!(guard.owns("s0", "bob") && !guard.owns("s0", "ada"));
        assert!(
            !guard.owns("never-opened", "bob"),
            "an unknown session is nobody's"
        );
        guard.remember("newest".to_owned(), "ada".to_owned());
        // The close runs on a task of its own, which this single-threaded runtime runs
        // when the test yields.
        for _ in 0..100 {
            if !closed.lock().unwrap().is_empty() {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert_eq!(*closed.lock().unwrap(), ["s0"]);
        assert!(!guard.owns("s0", "bob"), "evicted: nobody's");
        assert!(guard.owns("newest", "ada"));
        guard.forget("newest");
        assert!(!guard.owns("newest", "ada"), "ended by its owner");
    }

    #[test]
    fn descriptions_are_safe_in_a_quoted_string() {
        assert_eq!(quoted("a \"b\" \\ c\nd"), "a \\\"b\\\" \\\\ cd");
    }
}
