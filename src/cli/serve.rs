//! `serve`: the registry as an MCP server, with other MCP servers mounted into it.

use tokio::signal::unix::{SignalKind, signal};

use crate::ToolRegistry;
use crate::mcp::{HttpOptions, McpHandler, McpMount, McpServer, MountMcp as _, MountOptions, ServeError};

use super::{CliError, Io, MountArg, MountTarget, MountToken};

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
    mount_tokens: &[MountToken],
    io: &mut Io<'_>,
) -> Result<(), CliError> {
    let servers = mount_servers(mounts, mount_tokens)?;
    let mounted = mount_all(&registry, servers, io).await?;
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
    Ok(HttpOptions::new().bearer_token(env_token(name, "--token-env")?))
}

/// The servers to mount, by name, each HTTP one with its `--mount-token-env` token.
fn mount_servers<'a>(
    mounts: &'a [MountArg],
    tokens: &[MountToken],
) -> Result<Vec<(&'a str, McpServer)>, CliError> {
    if let Some(token) = tokens
        .iter()
        .find(|token| !mounts.iter().any(|mount| mount.name == token.name))
    {
        return Err(CliError(format!(
            "--mount-token-env {}={}: no --mount is named `{}`",
            token.name, token.var, token.name
        )));
    }
    let token_of = |name: &str| tokens.iter().find(|token| token.name == name);
    mounts
        .iter()
        .map(|mount| {
            let server = match (&mount.target, token_of(&mount.name)) {
                (MountTarget::Url(url), None) => McpServer::http(url),
                (MountTarget::Url(url), Some(token)) => {
                    McpServer::http(url).bearer_token(env_token(&token.var, "--mount-token-env")?)
                }
                (MountTarget::Command(words), None) => McpServer::stdio(&words[0], &words[1..]),
                (MountTarget::Command(_), Some(_)) => {
                    return Err(CliError(format!(
                        "--mount-token-env: `{}` is a command, not an HTTP server; only HTTP mounts take a token",
                        mount.name
                    )));
                }
            };
            Ok((mount.name.as_str(), server))
        })
        .collect()
}

/// The non-empty token in `$var`, for the option `flag`.
fn env_token(var: &str, flag: &str) -> Result<String, CliError> {
    match std::env::var(var) {
        Ok(token) if !token.trim().is_empty() => Ok(token.trim().to_owned()),
        _ => Err(CliError(format!("{flag}: ${var} is not set or empty"))),
    }
}

/// Mounts each server under `NAME_`; a server that cannot be reached is a usage error,
/// since serving without the tools asked for would surprise the client.
async fn mount_all(
    registry: &ToolRegistry,
    servers: Vec<(&str, McpServer)>,
    io: &mut Io<'_>,
) -> Result<Vec<McpMount>, CliError> {
    let mut mounted = Vec::with_capacity(servers.len());
    for (name, server) in servers {
        let options = MountOptions::new().prefix(format!("{name}_"));
        let handle = registry
            .mount_mcp(server, options)
            .await
            .map_err(|error| CliError(format!("cannot mount `{name}`: {error}")))?;
        let count = handle.tool_names().len();
        status(io, &format!("mounted {count} tools from `{name}` as {name}_*"));
        for (tool, reason) in handle.skipped() {
            status(io, &format!("skipped `{tool}` of `{name}`: {reason}"));
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
