//! MCP for agent-tools: serve any [`ToolRegistry`](agent_tools_core::ToolRegistry) to MCP
//! clients, and mount the tools of MCP servers into a registry.
//!
//! **Serving.** [`serve_stdio`] and [`serve_http`] expose a registry as an MCP server
//! (protocol versions 2024-11-05 to 2026-07-28, through [rmcp]). `tools/list` is the
//! registry's [`Dialect::Mcp`](agent_tools_core::Dialect::Mcp) definitions; `tools/call` runs
//! through [`ToolRegistry::call`](agent_tools_core::ToolRegistry::call), so the registry's
//! validation, timeouts, panic isolation and audit log apply to MCP clients exactly as
//! to any other caller. A client's `notifications/cancelled` cancels the call, its
//! progress token receives the tool's progress reports, and registering or removing
//! tools sends `notifications/tools/list_changed`.
//!
//! ```no_run
//! # async fn example() -> Result<(), agent_tools_mcp::ServeError> {
//! let registry = agent_tools_core::ToolRegistry::new();
//! // registry.register(...)?;
//! agent_tools_mcp::serve_stdio(registry).await
//! # }
//! ```
//!
//! The handler is an ordinary rmcp [`ServerHandler`](rmcp::ServerHandler)
//! ([`McpHandler`]), so it runs on any rmcp transport too.
//!
//! **Mounting.** [`MountMcp::mount_mcp`] goes the other way: it connects to an MCP server
//! (a child process over stdio, or streamable HTTP) and registers its tools in a
//! registry, prefixed, with their schemas and annotations as served. Calls are forwarded
//! as `tools/call` (cancelling a call cancels the remote request; remote progress reaches
//! the call's context), the mounted tools follow the server's `list_changed`, and a
//! server that dies turns calls into error results until the next call restarts it.
//!
//! ```no_run
//! # async fn example() -> Result<(), agent_tools_mcp::MountError> {
//! use agent_tools_mcp::{McpServer, MountMcp as _, MountOptions};
//!
//! let registry = agent_tools_core::ToolRegistry::new();
//! let mount = registry
//!     .mount_mcp(
//!         McpServer::stdio("github-mcp-server", ["stdio"]),
//!         MountOptions::new().prefix("gh_"),
//!     )
//!     .await?;
//! eprintln!("mounted {:?}", mount.tool_names());
//! # Ok(())
//! # }
//! ```

//! # Stateless HTTP
//!
//! [`HttpOptions::stateless`] serves streamable HTTP without MCP sessions (a server MAY
//! assign no session id; the 2026-07-28 revision has none at all): `initialize` is
//! answered without an `Mcp-Session-Id`, and every request is served on its own by a
//! handler made for it, so replicas behind a plain round-robin load balancer, with no
//! affinity, serve clients of every protocol version. A replica that stops loses only
//! the calls it was running (their clients see the request fail); none it answered.
//!
//! What it gives up is everything a session carries between requests:
//! - messages from server to client outside a request: `notifications/tools/list_changed`
//!   (there is no `GET` stream; `GET` and `DELETE` are answered 405; the server does not
//!   offer `tools.listChanged`, and what a tool search finds does not join a session's
//!   list, as there is none), and answers to
//!   elicitation and sampling, which come back as requests of their own that another
//!   replica may receive — so tools see elicitation and sampling as unavailable.
//!   Progress and log messages of a call still reach the client, on the call's own
//!   response stream;
//! - `logging/setLevel`, which lasts one request;
//! - `notifications/cancelled` from clients before 2026-07-28, which is ignored: the
//!   cancel may reach another replica. Closing the request's connection cancels the call.
//!
//! A deployment that needs these keeps sessions and routes each session to one replica:
//! hash on the `Mcp-Session-Id` header at the load balancer (nginx `hash
//! $http_mcp_session_id consistent;`, HAProxy `balance hdr(Mcp-Session-Id)`).
//!
//! On [`HttpServer::wait_until`]'s signal a stateless server stops accepting connections
//! and lets the requests in flight finish (up to 30 seconds) before it ends, so a rolling
//! restart behind a load balancer loses no call.

#![warn(missing_docs)]
// On docs.rs, each item says which features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod mount;
#[cfg(feature = "oauth")]
pub mod oauth;
mod serve;
mod wire;

pub use mount::{
    HttpEndpoint, McpMount, McpServer, MountError, MountMcp, MountOptions, StdioCommand, ToolFilter,
};
pub use serve::{HTTP_ENDPOINT, HttpOptions, HttpServer, McpHandler, ServeError, serve_http, serve_stdio};

/// Trusting a mounted server's tools: definitions pinned in a [`LockFile`](trust::LockFile)
/// and held back when they change ([`OnChange`](trust::OnChange)), names and texts checked
/// ([`OnSuspicious`](trust::OnSuspicious); the rules are
/// [`agent_tools_core::untrusted`]'s), and what the mount found about each tool
/// ([`ToolReview`](trust::ToolReview), from [`McpMount::reviews`]). Set on
/// [`MountOptions`].
pub mod trust {
    pub use crate::mount::{
        Change, Decision, DefinitionReviewer, Flagged, LockError, LockFile, OnChange, OnSuspicious,
        ToolReview,
    };
}

/// The MCP SDK this crate is built on, for clients and custom transports.
pub use rmcp;
