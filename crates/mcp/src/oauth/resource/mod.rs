//! Serving as an OAuth 2.1 resource server: which access tokens the MCP endpoint admits
//! and which tools each one reaches.
//!
//! Separate from [`client`](super::client), the other side of OAuth (a mount logging in
//! to someone else's server): the two share only what they ask of an authorization server
//! (its metadata, `super::discovery`; bounded HTTP, `super::fetch`).
//!
//! - [`tokens`]: [`OAuthResource`], the tokens admitted — JWTs checked against the issuer's
//!   keys, others at its introspection endpoint — and who they are for;
//! - [`keys`]: the issuer's signing keys, fetched again when a token names a new one;
//! - [`scopes`]: [`ScopeMap`], which scopes reach which tools;
//! - [`guard`]: the HTTP face — the check in front of the MCP endpoint (`401` challenges,
//!   `403 insufficient_scope`, sessions bound to their subject) and the protected resource
//!   metadata document (RFC 9728).

pub(crate) mod guard;
mod keys;
mod scopes;
pub(crate) mod tokens;

pub use scopes::ScopeMap;
pub use tokens::{OAuthError, OAuthResource, OAuthResourceBuilder};
