//! Serving a [`ToolRegistry`](agent_tools_core::ToolRegistry) to MCP clients: the rmcp
//! handler ([`McpHandler`]), the transports it runs on (stdio, streamable HTTP) and what
//! goes with a served call — its caller (the client), its notifications, the tools a
//! session's searches loaded, and who the request was authenticated as.
//!
//! Separate from [`mount`](crate::mount), which goes the other way (we are the client), and
//! from [`wire`](crate::wire), the conversions both directions share. Serving as an OAuth
//! resource server is in `oauth::resource`, which this module's HTTP server puts in
//! front of the MCP endpoint.
//!
//! - [`handler`]: [`McpHandler`], a registry as an rmcp server handler;
//! - [`stdio`] and [`http`]: running it on the process's stdio or on streamable HTTP, with
//!   [`http_auth`] deciding who may connect over HTTP, [`http_sessions`] what we add to
//!   rmcp's sessions, and [`error`] why serving stopped;
//! - [`client_caller`]: the client as a served call's caller, its [`notify`] queue, and
//!   [`own_requests`], our requests to the client without progress tokens;
//! - [`input_round`]: a call's questions answered in a later request (MCP 2026-07-28's
//!   input-required results), with the [`request_state`] it leaves sealed;
//! - [`loaded_tools`]: the deferred tools a session's searches found;
//! - [`authorized`]: who an HTTP request was authenticated as, from OAuth to the handler.

pub(crate) mod authorized;
mod client_caller;
mod error;
mod handler;
mod http;
pub(crate) mod http_auth;
mod http_sessions;
mod input_round;
mod loaded_tools;
mod notify;
mod own_requests;
mod request_state;
mod stdio;
mod task_requests;
mod task_runner;

pub use error::ServeError;
pub use handler::McpHandler;
pub use http::{HTTP_ENDPOINT, HttpServer, serve_http};
pub use http_auth::HttpOptions;
pub use stdio::serve_stdio;
