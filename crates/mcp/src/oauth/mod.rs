//! OAuth 2.1 for MCP over HTTP, as the MCP authorization spec (2025-11-25) defines it.
//!
//! **Serving** ([`OAuthResource`], given to [`HttpOptions::oauth`](crate::HttpOptions::oauth)):
//! the server is an OAuth resource server. Every request to the MCP endpoint must carry an
//! access token from one authorization server, for this server (its audience, RFC 8707),
//! unexpired; JWTs are checked against the issuer's published keys, other tokens at its
//! introspection endpoint (RFC 7662). A request without an admitted token gets `401` with
//! `WWW-Authenticate: Bearer resource_metadata="…"`, and the server publishes its
//! protected resource metadata (RFC 9728) there, so clients find the authorization server
//! themselves. A [`ScopeMap`] says which scopes reach which tools: tools a token does not
//! reach are not listed to it, and calling one gets `403 insufficient_scope` naming the
//! scopes that would. The token's subject and client id reach the audit log, the tool's
//! context, the hooks and the approver ([`Principal`](agent_tools_core::context::Principal)).
//!
//! What this does not do: issue tokens, or decide who a subject is — that is the
//! authorization server's job, and its word is trusted. Tokens are read from the
//! `Authorization` header only, never from a query string.
//!
//! **Mounting** ([`OAuthClient`], given to [`McpServer::oauth`](crate::McpServer::oauth)):
//! a mount logs in to a server that answers `401`, as the spec describes — the server's
//! protected resource metadata, its authorization server's metadata (RFC 8414 or OpenID
//! Connect), a client (pre-registered, a client ID metadata document, or dynamic
//! registration, RFC 7591), the authorization code flow with PKCE through an
//! [`Authorizer`] (the user's browser with a loopback redirect, [`LoopbackBrowser`]), or the
//! client credentials grant for services — and keeps the login in a [`TokenStore`]
//! ([`FileTokenStore`]: mode 0600). Tokens are refreshed before they expire and after a
//! `401`; calls made at once share one refresh; a `403 insufficient_scope` logs in again
//! with the scope asked for added (step-up), a bounded number of times.

// The two sides, serving (`resource`) and mounting (`client`), reached from outside only
// through the re-exports below; `discovery` and `fetch` are what both need of an
// authorization server.
pub(crate) mod client;
mod discovery;
mod fetch;
pub(crate) mod resource;

pub use client::{
    AuthorizeError, Authorizer, FileTokenStore, FollowRedirect, LoopbackBrowser, MemoryTokenStore,
    OAuthClient, OAuthClientBuilder, OAuthClientError, OAuthHttpClient, StoredLogin, TokenStore,
};
pub use resource::{OAuthError, OAuthResource, OAuthResourceBuilder, ScopeMap};
