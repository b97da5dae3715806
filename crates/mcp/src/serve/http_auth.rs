//! Who may call an MCP server over HTTP: [`HttpOptions`], and the bearer-token check.
//!
//! A registry's tools can write files and run commands, so an HTTP server reachable from
//! other machines must not serve anyone who connects. The `Host` check that stops DNS
//! rebinding only stops browsers: any other client can send `Host: localhost`. So a
//! server bound to an address other than loopback needs a bearer token, or an explicit
//! [`allow_unauthenticated`](HttpOptions::allow_unauthenticated) for deployments whose
//! reverse proxy authenticates. On loopback a token is optional: only this machine can
//! connect.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};

use super::error::ServeError;
#[cfg(feature = "oauth")]
use crate::oauth::resource::tokens::OAuthResource;

/// How [`McpHandler::serve_http_with`](crate::McpHandler::serve_http_with) serves: whom
/// it admits, and whether it keeps MCP sessions ([`stateless`](Self::stateless)).
///
/// ```
/// use agent_tools_mcp::HttpOptions;
///
/// let options = HttpOptions::new().bearer_token("a long random secret");
/// assert!(format!("{options:?}").contains("<redacted>"));
/// ```
#[derive(Clone, Default)]
pub struct HttpOptions {
    bearer_token: Option<Arc<str>>,
    allow_unauthenticated: bool,
    stateless: bool,
    #[cfg(feature = "oauth")]
    oauth: Option<OAuthResource>,
}

impl HttpOptions {
    /// No token; only a loopback address may be served.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every request must carry `Authorization: Bearer <token>`; others get
    /// `401 Unauthorized`. The comparison takes the same time wherever the tokens differ.
    /// With a token, requests may name any host, so that clients can use the server's
    /// network names.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into().into());
        self
    }

    /// Serves an address other than loopback without a token, for a server behind a
    /// reverse proxy that authenticates its clients. Anyone who can reach the address
    /// can call every tool.
    pub fn allow_unauthenticated(mut self) -> Self {
        self.allow_unauthenticated = true;
        self
    }

    /// Admits requests whose OAuth access token `resource` admits, and publishes the
    /// protected resource metadata clients need to get one; see [`crate::oauth`]. As with a
    /// bearer token, any address may then be served.
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, resource: OAuthResource) -> Self {
        self.oauth = Some(resource);
        self
    }

    /// Serves without MCP sessions, so that any replica can answer any request: see
    /// [the crate's docs](crate#stateless-http) for what that gives and gives up.
    pub fn stateless(mut self) -> Self {
        self.stateless = true;
        self
    }

    /// Whether sessions are kept.
    pub(crate) fn is_stateless(&self) -> bool {
        self.stateless
    }

    /// The OAuth resource server requests go through, if any.
    #[cfg(feature = "oauth")]
    pub(crate) fn oauth_resource(&self) -> Option<&OAuthResource> {
        self.oauth.as_ref()
    }

    /// Whether requests are authenticated by this server (a token or OAuth).
    fn authenticates(&self) -> bool {
        #[cfg(feature = "oauth")]
        if self.oauth.is_some() {
            return true;
        }
        self.bearer_token.is_some()
    }

    /// The token requests must carry, if any.
    pub(crate) fn token(&self) -> Option<Arc<str>> {
        self.bearer_token.clone()
    }

    /// Whether requests must name a loopback host or the bound address, against DNS
    /// rebinding. A token defeats rebinding by itself (a page cannot know it), and a
    /// server behind a reverse proxy is reached under the proxy's names: neither checks.
    pub(crate) fn checks_host(&self) -> bool {
        !self.authenticates() && !self.allow_unauthenticated
    }

    /// Refuses to serve `addr` to the network without a token, unless allowed.
    pub(crate) fn check(&self, addr: SocketAddr) -> Result<(), ServeError> {
        match self.checks_host() && !addr.ip().is_loopback() {
            true => Err(ServeError::Unauthenticated(addr)),
            false => Ok(()),
        }
    }
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("HttpOptions");
        debug
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "<redacted>"))
            .field("allow_unauthenticated", &self.allow_unauthenticated)
            .field("stateless", &self.stateless);
        #[cfg(feature = "oauth")]
        debug.field("oauth", &self.oauth);
        debug.finish()
    }
}

/// Middleware: passes requests that carry `token` as their bearer token.
pub(crate) async fn require_bearer(token: Arc<str>, request: Request, next: Next) -> Response {
    match bearer(request.headers()) {
        Some(given) if same(given.as_bytes(), token.as_bytes()) => next.run(request).await,
        _ => unauthorized(),
    }
}

/// The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme's case
/// does not matter), if the request has a non-empty one.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

fn unauthorized() -> Response {
    let mut response = (
        StatusCode::UNAUTHORIZED,
        "this MCP server needs `Authorization: Bearer <token>`\n",
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// Compares in time that depends on the lengths only, not on where the bytes differ.
fn same(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0, |difference, (a, b)| difference | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_is_served_without_a_token() {
        let loopback: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let network: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert!(HttpOptions::new().check(loopback).is_ok());
        assert!(HttpOptions::new().check("[::1]:8080".parse().unwrap()).is_ok());
        let error = HttpOptions::new().check(network).unwrap_err().to_string();
        assert!(
            error.starts_with("refusing to serve 0.0.0.0:8080 without a bearer token"),
            "{error}"
        );
        assert!(HttpOptions::new().bearer_token("t").check(network).is_ok());
        assert!(HttpOptions::new().allow_unauthenticated().check(network).is_ok());
    }

    #[test]
    fn the_bearer_token_is_read_whatever_the_schemes_case() {
        let token = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
            bearer(&headers).map(str::to_owned)
        };
        assert_eq!(token("Bearer abc").as_deref(), Some("abc"));
        assert_eq!(token("bearer abc").as_deref(), Some("abc"));
        assert_eq!(token("BEARER  abc ").as_deref(), Some("abc"));
        assert_eq!(token("Basic abc"), None);
        assert_eq!(token("Bearer"), None);
        assert_eq!(token("Bearer   "), None);
        assert_eq!(token("Bearerabc"), None);
        assert_eq!(bearer(&HeaderMap::new()), None);
    }

    #[test]
    fn tokens_are_compared_whole() {
        assert!(same(b"secret", b"secret"));
        assert!(!same(b"secret", b"secreT"));
        assert!(!same(b"secret", b"secret2"));
        assert!(!same(b"", b"secret"));
    }
}
