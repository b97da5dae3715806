//! `--mount`: other MCP servers' tools in the registry, for every subcommand, and
//! unmounted again before the command exits.
//!
//! An HTTP server mounted without `--mount-token-env` that asks for OAuth gets a login:
//! the user authorizes in a browser — the address is printed on stderr, and opened when
//! stderr is a terminal — and the redirect comes back to a loopback port. The login is
//! kept, refreshed, in `$XDG_STATE_HOME/agent-tools/oauth/` (else
//! `~/.local/state/agent-tools/oauth/`), one file per server, readable by its owner only,
//! so later commands need no browser.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use crate::ToolRegistry;
use crate::mcp::oauth::{FileTokenStore, LoopbackBrowser, OAuthClient};
use crate::mcp::{McpMount, McpServer, MountMcp as _, MountOptions};

use super::{CliError, Io, MountArg, MountTarget, MountToken, env_token, status};

/// The servers mounted for one command. [`unmount`](Self::unmount) must run before the
/// process exits: a child server would otherwise outlive us, and an HTTP session stay open.
pub(super) struct Mounted {
    handles: Vec<McpMount>,
    skipped: usize,
}

impl Mounted {
    /// How many remote tools could not be mounted (each was named on stderr).
    pub(super) fn skipped(&self) -> usize {
        self.skipped
    }

    /// Removes the tools and closes each connection; a child process is asked to exit
    /// and waited for (rmcp kills it if it does not).
    pub(super) async fn unmount(self) {
        for handle in self.handles {
            handle.unmount().await;
        }
    }
}

/// Whether to say on stderr how many tools each server brought (`serve` does: it runs
/// for long, and its stderr is a log). Skipped tools are always named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Announce {
    /// One line per mounted server.
    Counts,
    /// Only the skipped tools.
    SkippedOnly,
}

/// Mounts each `--mount` server under `NAME_`. A server that cannot be reached is a usage
/// error, since a command without the tools asked for would surprise its caller; the
/// servers mounted before it are unmounted first.
pub(super) async fn mount_all(
    registry: &ToolRegistry,
    mounts: &[MountArg],
    tokens: &[MountToken],
    announce: Announce,
    io: &mut Io<'_>,
) -> Result<Mounted, CliError> {
    let servers = mount_servers(mounts, tokens)?;
    let mut mounted = Mounted {
        handles: Vec::with_capacity(servers.len()),
        skipped: 0,
    };
    for (name, server) in servers {
        let server = match server {
            Mount::Ready(server) => server,
            Mount::MayLogIn(url) => McpServer::http(&url).oauth(oauth_login(name, &url).await?),
        };
        let options = MountOptions::new().prefix(format!("{name}_"));
        let handle = match registry.mount_mcp(server, options).await {
            Ok(handle) => handle,
            Err(error) => {
                mounted.unmount().await;
                return Err(CliError(format!("cannot mount `{name}`: {error}")));
            }
        };
        if announce == Announce::Counts {
            let count = handle.tool_names().len();
            status(io, &format!("mounted {count} tools from `{name}` as {name}_*"));
        }
        let skipped = handle.skipped();
        for (tool, reason) in &skipped {
            status(io, &format!("skipped `{tool}` of `{name}`: {reason}"));
        }
        mounted.skipped += skipped.len();
        mounted.handles.push(handle);
    }
    Ok(mounted)
}

/// A server to mount.
enum Mount {
    /// As it is: a command, or an HTTP server with its `--mount-token-env` token.
    Ready(McpServer),
    /// An HTTP server that may ask for an OAuth login.
    MayLogIn(String),
}

/// The port the login's redirect comes back to, when it is free: a registration with an
/// authorization server names it, so a fixed one lets later logins reuse the client.
const REDIRECT_PORT: u16 = 33418;

/// The OAuth login of the HTTP server at `url` mounted as `name`, used if it asks.
async fn oauth_login(name: &str, url: &str) -> Result<OAuthClient, CliError> {
    let browser = match LoopbackBrowser::bind(REDIRECT_PORT).await {
        Ok(browser) => browser,
        Err(_) => LoopbackBrowser::bind(0).await.map_err(|error| {
            CliError(format!(
                "cannot listen for the OAuth redirect of `{name}`: {error}"
            ))
        })?,
    };
    let store = FileTokenStore::new(login_file(name, url)?);
    Ok(OAuthClient::builder()
        .authorizer(browser.open_browser(std::io::stderr().is_terminal()))
        .token_store(store)
        .build())
}

/// Where the login to `url`, mounted as `name`, is kept.
fn login_file(name: &str, url: &str) -> Result<PathBuf, CliError> {
    let state = match std::env::var_os("XDG_STATE_HOME").filter(|dir| !dir.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => std::env::var_os("HOME")
            .map(|home| PathBuf::from(home).join(".local/state"))
            .ok_or_else(|| {
                CliError("cannot keep an OAuth login: neither XDG_STATE_HOME nor HOME is set".to_owned())
            })?,
    };
    let server: String = url
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(120)
        .collect();
    Ok(state
        .join("agent-tools/oauth")
        .join(format!("{name}-{server}.json")))
}

/// The servers to mount, by name, each HTTP one with its `--mount-token-env` token.
fn mount_servers<'a>(
    mounts: &'a [MountArg],
    tokens: &[MountToken],
) -> Result<Vec<(&'a str, Mount)>, CliError> {
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
                (MountTarget::Url(url), None) => Mount::MayLogIn(url.clone()),
                (MountTarget::Url(url), Some(token)) => {
                    Mount::Ready(McpServer::http(url).bearer_token(env_token(&token.var, "--mount-token-env")?))
                }
                (MountTarget::Command(words), None) => Mount::Ready(McpServer::stdio(&words[0], &words[1..])),
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
