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
//! context, the hooks and the approver ([`Principal`](tool_core::Principal)).
//!
//! What this does not do: issue tokens, or decide who a subject is — that is the
//! authorization server's job, and its word is trusted. Tokens are read from the
//! `Authorization` header only, never from a query string.

mod discovery;
mod fetch;
mod guard;
mod keys;
mod resource;
mod scopes;

pub(crate) use guard::{Guard, metadata_routes};
pub use resource::{OAuthError, OAuthResource, OAuthResourceBuilder};
pub use scopes::ScopeMap;
