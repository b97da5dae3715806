//! `serve`: the registry as an MCP server, with other MCP servers mounted into it.

use tokio::signal::unix::{SignalKind, signal};

use crate::ToolRegistry;
use crate::mcp::{McpHandler, McpMount, McpServer, MountMcp as _, MountOptions};

use super::{CliError, Io, MountArg, MountTarget};

/// Mounts the `--mount` servers, then serves until the client closes stdio, or, over
/// HTTP, until Ctrl-C or SIGTERM.
pub(super) async fn serve(
    registry: ToolRegistry,
    http: Option<&str>,
    mounts: &[MountArg],
    io: &mut Io<'_>,
) -> Result<(), CliError> {
    let mounted = mount_all(&registry, mounts, io).await?;
    let served = serve_registry(registry, http, io).await;
    // Mounted servers started as children stop with us.
    for mount in mounted {
        mount.unmount().await;
    }
    served
}

async fn serve_registry(registry: ToolRegistry, http: Option<&str>, io: &mut Io<'_>) -> Result<(), CliError> {
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

/// Mounts each server under `NAME_`; a server that cannot be reached is a usage error,
/// since serving without the tools asked for would surprise the client.
async fn mount_all(
    registry: &ToolRegistry,
    mounts: &[MountArg],
    io: &mut Io<'_>,
) -> Result<Vec<McpMount>, CliError> {
    let mut mounted = Vec::with_capacity(mounts.len());
    for mount in mounts {
        let server = match &mount.target {
            MountTarget::Command(words) => McpServer::stdio(&words[0], &words[1..]),
            MountTarget::Url(url) => McpServer::http(url),
        };
        let options = MountOptions::new().prefix(format!("{}_", mount.name));
        let handle = registry
            .mount_mcp(server, options)
            .await
            .map_err(|error| CliError(format!("cannot mount `{}`: {error}", mount.name)))?;
        let count = handle.tool_names().len();
        status(
            io,
            &format!("mounted {count} tools from `{}` as {}_*", mount.name, mount.name),
        );
        for (tool, reason) in handle.skipped() {
            status(io, &format!("skipped `{tool}` of `{}`: {reason}", mount.name));
        }
        mounted.push(handle);
    }
    Ok(mounted)
}

/// A progress line on stderr; stdout may be the protocol.
fn status(io: &mut Io<'_>, message: &str) {
    // A closed stderr leaves nothing to report to, and must not stop serving.
    let _ = writeln!(io.stderr, "agent-tools: {message}");
}
