//! [`ServeError`]: why serving stopped or could not start, on either transport.

use std::net::SocketAddr;

/// Why serving stopped or could not start.
///
/// The message names the cause, so it reads as one line; the cause is also the error's
/// [`source`](std::error::Error::source), for callers that inspect it
/// ([`agent_tools_core::error::error_chain`] does not repeat it).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The address could not be bound, or the connection failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The client's `initialize` handshake failed. The source is rmcp's error
    /// (`rmcp::service::ServerInitializeError` today), boxed so that this type does not
    /// change with rmcp's.
    #[error("MCP handshake failed: {0}")]
    Handshake(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The server's task failed (a panic outside any tool).
    #[error("the MCP server stopped unexpectedly: {0}")]
    Stopped(#[source] tokio::task::JoinError),
    /// The address is reachable from other machines and no bearer token was set; see
    /// [`HttpOptions`](crate::HttpOptions).
    #[error(
        "refusing to serve {0} without a bearer token: anyone who can reach it could call every \
         tool; set a token (HttpOptions::bearer_token) or serve 127.0.0.1"
    )]
    Unauthenticated(SocketAddr),
}
