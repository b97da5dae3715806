//! `serve`: the registry as an MCP server (with the `--mount` servers' tools in it).

use tokio::signal::unix::{SignalKind, signal};

use agent_tools::ToolRegistry;
use agent_tools::mcp::{HttpOptions, McpHandler, ServeError};
use agent_tools::task::Tasks;

use super::{CliError, Io, env_token, status};

/// `--http ADDR [--token-env NAME]`.
pub(super) struct Http<'a> {
    /// The address to serve.
    pub(super) addr: &'a str,
    /// The environment variable holding the bearer token clients must send.
    pub(super) token_env: Option<&'a str>,
    /// The OAuth resource server clients' tokens go through, if any.
    pub(super) oauth: Option<agent_tools::mcp::oauth::OAuthResource>,
    /// Serve without sessions (`--stateless`).
    pub(super) stateless: bool,
}

/// Serves until the client closes stdio, or, over HTTP, until Ctrl-C or SIGTERM.
/// With `tasks`, calls that become MCP tasks are kept there (`[tasks]`), else in memory.
pub(super) async fn serve(
    registry: ToolRegistry,
    http: Option<Http<'_>>,
    tasks: Option<Tasks>,
    io: &mut Io<'_>,
) -> Result<(), CliError> {
    let count = registry.len();
    let mut handler = McpHandler::new(registry);
    if let Some(tasks) = tasks {
        handler = handler.tasks(tasks);
    }
    let Some(Http {
        addr,
        token_env,
        oauth,
        stateless,
    }) = http
    else {
        status(io, &format!("serving {count} tools over stdio"));
        return handler
            .serve_stdio()
            .await
            .map_err(|error| CliError(error.to_string()));
    };
    let server = handler
        .serve_http_with(addr, http_options(token_env, oauth, stateless)?)
        .await
        .map_err(|error| match error {
            ServeError::Unauthenticated(_) => CliError(format!(
                "cannot serve on {addr}: {error}; pass --token-env NAME with the token in $NAME"
            )),
            error => CliError(format!("cannot serve on {addr}: {error}")),
        })?;
    let mode = if stateless { " (stateless)" } else { "" };
    status(io, &format!("serving {count} tools at {}{mode}", server.url()));
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

/// The bearer token from `$NAME` when `--token-env NAME` is given; OAuth when
/// configured; stateless serving.
fn http_options(
    token_env: Option<&str>,
    oauth: Option<agent_tools::mcp::oauth::OAuthResource>,
    stateless: bool,
) -> Result<HttpOptions, CliError> {
    let mut options = HttpOptions::new();
    if stateless {
        options = options.stateless();
    }
    if let Some(name) = token_env {
        options = options.bearer_token(env_token(name, "--token-env")?);
    }
    if let Some(resource) = oauth {
        options = options.oauth(resource);
    }
    Ok(options)
}
