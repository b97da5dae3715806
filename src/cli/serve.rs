//! `serve`: the registry as an MCP server, with other MCP servers mounted into it.

use tokio::signal::unix::{SignalKind, signal};

use crate::ToolRegistry;
use crate::mcp::{HttpOptions, McpHandler, McpMount, McpServer, MountMcp as _, MountOptions, ServeError};

use super::{CliError, Io, MountArg, MountTarget};

/// `--http ADDR [--token-env NAME]`.
pub(super) struct Http<'a> {
    /// The address to serve.
    pub(super) addr: &'a str,
    /// The environment variable holding the bearer token clients must send.
    pub(super) token_env: Option<&'a str>,
}

/// Mounts the `--mount` servers, then serves until the client closes stdio, or, over
/// HTTP, until Ctrl-C or SIGTERM.
pub(super) async fn serve(
    registry: ToolRegistry,
    http: Option<Http<'_>>,
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

async fn serve_registry(
    registry: ToolRegistry,
    http: Option<Http<'_>>,
    io: &mut Io<'_>,
) -> Result<(), CliError> {
    let count = registry.len();
    let handler = McpHandler::new(registry);
    let Some(Http { addr, token_env }) = http else {
        status(io, &format!("serving {count} tools over stdio"));
        return handler
            .serve_stdio()
            .await
            .map_err(|error| CliError(error.to_string()));
    };
    let server = handler
        .serve_http_with(addr, http_options(token_env)?)
        .await
        .map_err(|error| match error {
            ServeError::Unauthenticated(_) => CliError(format!(
                "cannot serve on {addr}: {error}; pass --token-env NAME with the token in $NAME"
            )),
            error => CliError(format!("cannot serve on {addr}: {error}")),
        })?;
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

/// The bearer token from `$NAME` when `--token-env NAME` is given.
fn http_options(token_env: Option<&str>) -> Result<HttpOptions, CliError> {
    let Some(name) = token_env else {
        return Ok(HttpOptions::new());
    };
    match std::env::var(name) {
        Ok(token) if !token.trim().is_empty() => Ok(HttpOptions::new().bearer_token(token.trim())),
        _ => Err(CliError(format!(
            "--token-env {name}: ${name} is not set or empty"
        ))),
    }
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
