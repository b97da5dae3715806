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
use std::sync::Arc;
use std::time::Duration;

use agent_tools::ToolRegistry;
use agent_tools::mcp::oauth::{FileTokenStore, LoopbackBrowser, OAuthClient};
use agent_tools::mcp::trust::{Decision, DefinitionReviewer, LockFile, OnChange, OnSuspicious};
use agent_tools::mcp::{McpMount, McpServer, MountMcp as _, MountOptions};

use super::{CliError, Io, MountArg, MountConfig, MountTarget, MountToken, env_token, status};

/// The servers mounted for one command. [`unmount`](Self::unmount) must run before the
/// process exits: a child server would otherwise outlive us, and an HTTP session stay open.
pub(super) struct Mounted {
    /// Each mount's name and handle.
    handles: Vec<(String, McpMount)>,
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
        for (_, handle) in self.handles {
            handle.unmount().await;
        }
    }

    /// Each mount's name and handle, in the order they were mounted.
    pub(super) fn handles(&self) -> &[(String, McpMount)] {
        &self.handles
    }
}

/// How the mounts treat the lock file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pinning {
    /// As each mount's settings say: pinned on first use, changes per `on_change`.
    AsConfigured,
    /// Nothing pinned and nothing offered that is not pinned (`mounts verify|diff`).
    Compare,
}

/// The lock file and how to use it, for [`mount_all`].
pub(super) struct Trust {
    /// The lock file, when there is one.
    pub lock: Option<LockFile>,
    pub pinning: Pinning,
    /// Who is asked about changed and flagged definitions while mounting (the person at
    /// the terminal, for `call` and `serve` run interactively).
    pub reviewer: Option<Arc<dyn DefinitionReviewer>>,
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

/// Mounts each server, `--mount` flags first and then the configuration's `[[mount]]`
/// entries. A server that cannot be reached is a usage error, since a command without the
/// tools asked for would surprise its caller; the servers mounted before it are unmounted
/// first.
pub(super) async fn mount_all(
    registry: &ToolRegistry,
    servers: Vec<MountSpec>,
    announce: Announce,
    trust: &Trust,
    io: &mut Io<'_>,
) -> Result<Mounted, CliError> {
    let mut mounted = Mounted {
        handles: Vec::with_capacity(servers.len()),
        skipped: 0,
    };
    for spec in servers {
        let name = spec.name.clone();
        let prefix = spec.prefix.clone().unwrap_or_else(|| format!("{name}_"));
        let options = spec.options(&prefix, trust);
        let server = match spec.server().await {
            Ok(server) => server,
            Err(error) => {
                mounted.unmount().await;
                return Err(error);
            }
        };
        let handle = match registry.mount_mcp(server, options).await {
            Ok(handle) => handle,
            Err(error) => {
                mounted.unmount().await;
                return Err(CliError(format!("cannot mount `{name}`: {error}")));
            }
        };
        if announce == Announce::Counts {
            let count = handle.tool_names().len();
            status(io, &format!("mounted {count} tools from `{name}` as {prefix}*"));
        }
        let skipped = handle.skipped();
        for (tool, reason) in &skipped {
            status(io, &format!("skipped `{tool}` of `{name}`: {reason}"));
        }
        if trust.pinning == Pinning::AsConfigured {
            report_held_back(&name, &handle, trust.lock.is_some(), io);
        }
        mounted.skipped += skipped.len();
        mounted.handles.push((name, handle));
    }
    Ok(mounted)
}

/// One server to mount, from a `--mount` flag (with its `--mount-token-env`) or a
/// `[[mount]]` entry.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MountSpec {
    /// Names it in messages and, followed by `_`, prefixes its tools by default.
    pub name: String,
    /// Where the server runs.
    pub target: MountTarget,
    /// The prefix of its tools' names, when not `NAME_`.
    pub prefix: Option<String>,
    /// Environment variables for a child process.
    pub env: Vec<(String, String)>,
    /// The variable holding an HTTP server's bearer token, and where it was named (for
    /// messages).
    pub token_env: Option<(String, &'static str)>,
    /// Its tools are deferred.
    pub defer: bool,
    /// Each tool's timeout, which also bounds connecting.
    pub timeout: Option<Duration>,
    /// What to do with a definition that is not the pinned one.
    pub on_change: OnChange,
    /// What to do with flagged names and texts.
    pub on_suspicious: OnSuspicious,
    /// Offer only pinned tools.
    pub require_pinned: bool,
    /// Take invisible characters out of results.
    pub filter_results: bool,
}

/// Says on stderr which tools of the mount `name` are held back or stripped, and where to
/// look (`locked`: there is a lock file to accept them into).
fn report_held_back(name: &str, handle: &McpMount, locked: bool, io: &mut Io<'_>) {
    // Accepting pins, so without a lock file the way to accept is to give one.
    let see = if locked {
        format!("see `agent-tools mounts diff {name}`")
    } else {
        "see `agent-tools list --explain`; to accept it, pin it: --lock FILE".to_owned()
    };
    for review in handle.reviews() {
        match &review.decision {
            Decision::Withheld(reason) => status(
                io,
                &format!("held back `{}` of `{name}`: {reason} ({see})", review.remote_name),
            ),
            Decision::Stripped => status(
                io,
                &format!(
                    "offering `{}` of `{name}` with flagged passages removed (see `agent-tools list --explain`)",
                    review.remote_name
                ),
            ),
            _ => {}
        }
    }
}

impl MountSpec {
    /// The servers to mount: the flags' (each HTTP one with its `--mount-token-env`
    /// token), then the configuration's. Two mounts may not share a name.
    pub(super) fn all(
        flags: &[MountArg],
        tokens: &[MountToken],
        config: &[MountConfig],
    ) -> Result<Vec<Self>, CliError> {
        let mut specs: Vec<Self> = flags.iter().map(Self::from_flag).collect();
        specs.extend(config.iter().map(Self::from_config));
        for token in tokens {
            let Some(spec) = specs.iter_mut().find(|spec| spec.name == token.name) else {
                return Err(CliError(format!(
                    "--mount-token-env {}={}: no mount is named `{}`",
                    token.name, token.var, token.name
                )));
            };
            if let MountTarget::Command(_) = spec.target {
                return Err(CliError(format!(
                    "--mount-token-env: `{}` is a command, not an HTTP server; only HTTP mounts take a token",
                    spec.name
                )));
            }
            spec.token_env = Some((token.var.clone(), "--mount-token-env"));
        }
        for (index, spec) in specs.iter().enumerate() {
            if specs[..index].iter().any(|earlier| earlier.name == spec.name) {
                return Err(CliError(format!(
                    "two mounts are named `{}` (in --mount or [[mount]]); give each its own name",
                    spec.name
                )));
            }
        }
        Ok(specs)
    }

    fn from_flag(flag: &MountArg) -> Self {
        Self {
            name: flag.name.clone(),
            target: flag.target.clone(),
            prefix: None,
            env: Vec::new(),
            token_env: None,
            defer: false,
            timeout: None,
            on_change: OnChange::default(),
            on_suspicious: OnSuspicious::default(),
            require_pinned: false,
            filter_results: true,
        }
    }

    /// An entry `Config::load` checked: it has a command or a URL.
    fn from_config(entry: &MountConfig) -> Self {
        let target = match (&entry.command, &entry.url) {
            (Some(words), _) => MountTarget::Command(words.clone()),
            (None, url) => MountTarget::Url(url.clone().unwrap_or_default()),
        };
        Self {
            name: entry.name.clone(),
            target,
            prefix: entry.prefix.clone(),
            env: entry.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            token_env: entry.token_env.clone().map(|var| (var, "[[mount]] token_env")),
            defer: entry.defer,
            timeout: entry.timeout,
            on_change: entry.on_change,
            on_suspicious: entry.on_suspicious,
            require_pinned: entry.require_pinned,
            filter_results: entry.filter_results,
        }
    }

    fn options(&self, prefix: &str, trust: &Trust) -> MountOptions {
        let mut options = MountOptions::new()
            .prefix(prefix)
            .on_suspicious(self.on_suspicious);
        if let Some(lock) = &trust.lock {
            options = options.lock(lock.clone(), &self.name);
        }
        options = match trust.pinning {
            Pinning::AsConfigured => {
                let mut options = options.on_change(self.on_change);
                options.reviewer = trust.reviewer.clone();
                if self.require_pinned {
                    options.require_pinned()
                } else {
                    options
                }
            }
            Pinning::Compare => options.on_change(OnChange::Deny).require_pinned(),
        };
        if !self.filter_results {
            options = options.unfiltered_results();
        }
        if let Some(timeout) = self.timeout {
            options = options.timeout(timeout);
        }
        if self.defer {
            options = options.defer();
        }
        options
    }

    /// The server, with its token read from the environment now; an HTTP server
    /// without one gets the OAuth login it may ask for.
    async fn server(&self) -> Result<McpServer, CliError> {
        Ok(match (&self.target, &self.token_env) {
            (MountTarget::Url(url), None) => McpServer::http(url).oauth(oauth_login(&self.name, url).await?),
            (MountTarget::Url(url), Some((var, named_by))) => {
                McpServer::http(url).bearer_token(env_token(var, named_by)?)
            }
            (MountTarget::Command(words), _) => {
                let (program, args) = words
                    .split_first()
                    .ok_or_else(|| CliError(format!("no command given for `{}`", self.name)))?;
                let server = McpServer::stdio(program, args);
                self.env.iter().fold(server, |server, (k, v)| server.env(k, v))
            }
        })
    }
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
