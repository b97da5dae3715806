//! `serve`: the registry as an MCP server, with other MCP servers mounted into it.

use tokio::signal::unix::{SignalKind, signal};

use crate::ToolRegistry;
use crate::mcp::McpHandler;

use super::{CliError, Io};

/// Serves until the client closes stdio, or, over HTTP, until Ctrl-C or SIGTERM.
pub(super) async fn serve(
    registry: ToolRegistry,
    http: Option<&str>,
    io: &mut Io<'_>,
) -> Result<(), CliError> {
    let count = registry.len();
    let handler = McpHandler::new(registry);
    let Some(addr) = http else {
        status(io, &format!("serving {count} tools over stdio"));
        return handler
            .serve_stdio()
            .await
            .map_err(|error| CliError(error.to_string()));
    };
    let server = handler
        .serve_http(addr)
        .await
        .map_err(|error| CliError(format!("cannot serve on {addr}: {error}")))?;
    status(io, &format!("serving {count} tools at {}", server.url()));
    let mut terminate = signal(SignalKind::terminate())
        .map_err(|error| CliError(format!("cannot wait for signals: {error}")))?;
    let shutdown = async move {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
    };
    server
        .wait_until(shutdown)
        .await
        .map_err(|error| CliError(error.to_string()))
}

/// A progress line on stderr; stdout may be the protocol.
fn status(io: &mut Io<'_>, message: &str) {
    // A closed stderr leaves nothing to report to, and must not stop serving.
    let _ = writeln!(io.stderr, "agent-tools: {message}");
}
