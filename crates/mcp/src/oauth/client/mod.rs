//! Mounting a server that requires OAuth: a mount's login to it, kept and refreshed, and
//! the HTTP client that carries its token.
//!
//! Separate from [`resource`](super::resource), the other side of OAuth (this process as
//! the server a token is for): the two share only what they ask of an authorization server
//! (its metadata, `super::discovery`; bounded HTTP, `super::fetch`).
//!
//! - [`login`]: [`OAuthClient`], the login — discovery from the server's `401`, a client
//!   identity, the grant, refresh and step-up;
//! - [`challenge`]: reading the server's `WWW-Authenticate: Bearer` challenge;
//! - [`protected_resource`]: finding the server's authorization server from its protected
//!   resource metadata (RFC 9728);
//! - [`grant`]: the exchanges with the authorization server, each one HTTP request;
//! - [`authorizer`]: the step that needs the user ([`Authorizer`], [`LoopbackBrowser`]);
//! - [`token_store`]: where a login is kept between runs ([`TokenStore`]);
//! - [`transport`]: [`OAuthHttpClient`], rmcp's HTTP client with the login's token on
//!   every request.

mod authorizer;
mod challenge;
mod grant;
pub(crate) mod login;
mod protected_resource;
mod token_store;
pub(crate) mod transport;

pub use authorizer::{AuthorizeError, Authorizer, FollowRedirect, LoopbackBrowser};
pub use login::{OAuthClient, OAuthClientBuilder, OAuthClientError};
pub use token_store::{FileTokenStore, MemoryTokenStore, StoredLogin, TokenStore};
pub use transport::OAuthHttpClient;
