//! Mounting the tools of a remote MCP server into a [`ToolRegistry`].
//!
//! [`MountMcp::mount_mcp`] connects to the server as an MCP client, lists its tools and
//! registers each one (prefixed) as a tool of the registry; a call forwards `tools/call`.
//! The pieces:
//!
//! - [`connection`]: the client connection, which starts the server (or opens an HTTP
//!   session), notices when it dies and reconnects on the next call;
//! - [`remote_tool`]: one imported tool, and the import rules (prefix, filter, what is
//!   skipped);
//! - [`progress`] and [`cancel`]: a call's progress reports and its cancellation,
//!   carried between the caller and the remote request; [`in_order`] takes progress and
//!   log messages off the transport so they arrive complete and in order;
//! - [`requests`]: the server's questions, sampling requests and log messages during a
//!   call, passed to that call's caller;
//! - [`input_rounds`]: the same questions when a 2026-07-28 server ends the call with
//!   them (an input-required result), answered and the call made again;
//! - [`follow`]: the background task that re-lists the tools on `list_changed` and swaps
//!   them into the registry;
//! - [`review`]: what a model may see of a listing — each definition against the lock
//!   file ([`lock_file`], [`definition`]) and its texts and name against the checks — with
//!   the settings and reports in [`trust`].
//!
//! Every listing, the first and each one after `list_changed`, goes through the same
//! review, so a server cannot change a definition after it was accepted and have the
//! change offered unseen.

mod cancel;
mod client;
mod connection;
mod definition;
mod follow;
mod in_order;
mod input_rounds;
mod lock_file;
mod progress;
mod remote_task;
mod remote_tool;
mod requests;
mod review;
mod trust;

use std::ffi::OsString;
use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_tools_core::audit::{AuditEvent, Outcome};
use agent_tools_core::{ToolRegistry, error::RegistryError, registry::WeakToolRegistry};
use rmcp::model::Tool as McpTool;
use tokio_util::sync::CancellationToken;

#[cfg(feature = "oauth")]
use crate::oauth::client::login::OAuthClient;

use connection::{Connection, describe};
pub use lock_file::{LockError, LockFile};
use remote_tool::Imported;
pub use trust::{Change, Decision, DefinitionReviewer, Flagged, OnChange, OnSuspicious, ToolReview};

/// A remote MCP server to mount: a command to start (stdio) or an HTTP endpoint.
///
/// ```
/// use agent_tools_mcp::McpServer;
///
/// let github = McpServer::stdio("github-mcp-server", ["stdio"]).env("GITHUB_TOKEN", "…");
/// let docs = McpServer::http("http://127.0.0.1:8080/mcp");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum McpServer {
    /// A child process speaking MCP on its stdin and stdout; see [`McpServer::stdio`].
    Stdio(StdioCommand),
    /// A streamable HTTP endpoint; see [`McpServer::http`].
    Http(HttpEndpoint),
}

/// How to start a stdio MCP server; built by [`McpServer::stdio`].
#[derive(Debug, Clone)]
pub struct StdioCommand {
    program: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    current_dir: Option<PathBuf>,
}

impl StdioCommand {
    /// The command to run for a new connection; stdin and stdout become the transport,
    /// stderr is inherited.
    fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.program);
        command.args(&self.args);
        command.envs(self.env.iter().map(|(name, value)| (name, value)));
        if let Some(dir) = &self.current_dir {
            command.current_dir(dir);
        }
        command
    }
}

/// Where a streamable HTTP MCP server listens; built by [`McpServer::http`].
#[derive(Clone)]
pub struct HttpEndpoint {
    url: String,
    bearer_token: Option<String>,
    #[cfg(feature = "oauth")]
    oauth: Option<OAuthClient>,
}

impl fmt::Debug for HttpEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("HttpEndpoint");
        debug
            .field("url", &self.url)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "<redacted>"));
        #[cfg(feature = "oauth")]
        debug.field("oauth", &self.oauth);
        debug.finish()
    }
}

impl McpServer {
    /// A server started as a child process, `command` with `args`, that speaks MCP on its
    /// stdin and stdout; its stderr goes to ours. A new process is started when the
    /// previous one has exited, on the next call.
    pub fn stdio(command: impl Into<OsString>, args: impl IntoIterator<Item = impl Into<OsString>>) -> Self {
        Self::Stdio(StdioCommand {
            program: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
            current_dir: None,
        })
    }

    /// A server at a streamable HTTP endpoint, e.g. `http://127.0.0.1:8080/mcp`.
    pub fn http(url: impl Into<String>) -> Self {
        Self::Http(HttpEndpoint {
            url: url.into(),
            bearer_token: None,
            #[cfg(feature = "oauth")]
            oauth: None,
        })
    }

    /// Sends `Authorization: Bearer <token>` with every request (HTTP only; ignored for
    /// stdio), for servers such as one started with
    /// [`HttpOptions::bearer_token`](crate::HttpOptions::bearer_token).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        if let Self::Http(endpoint) = &mut self {
            endpoint.bearer_token = Some(token.into());
        }
        self
    }

    /// Logs in with OAuth when the server asks for it (HTTP only; ignored for stdio): the
    /// first `401` starts a login as `client` is configured, and later requests carry its
    /// token; see [`crate::oauth`].
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, client: OAuthClient) -> Self {
        if let Self::Http(endpoint) = &mut self {
            endpoint.oauth = Some(client);
        }
        self
    }

    /// Sets an environment variable for the child process (stdio only; ignored for HTTP).
    pub fn env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        if let Self::Stdio(command) = &mut self {
            command.env.push((name.into(), value.into()));
        }
        self
    }

    /// Sets the child process's working directory (stdio only; ignored for HTTP).
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Self::Stdio(command) = &mut self {
            command.current_dir = Some(dir.into());
        }
        self
    }
}

/// The server as messages name it: the command line, or the URL.
impl fmt::Display for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio(command) => {
                f.write_str(&command.program.to_string_lossy())?;
                for arg in &command.args {
                    write!(f, " {}", arg.to_string_lossy())?;
                }
                Ok(())
            }
            Self::Http(endpoint) => f.write_str(&endpoint.url),
        }
    }
}

/// Chooses which remote tools to mount, by their remote (unprefixed) name.
pub type ToolFilter = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// How to mount a server's tools.
///
/// ```
/// use std::time::Duration;
///
/// use agent_tools_mcp::MountOptions;
///
/// let options = MountOptions::new()
///     .prefix("gh_")
///     .filter(|name| !name.starts_with("delete_"))
///     .timeout(Duration::from_secs(30));
/// assert_eq!(options.prefix, "gh_");
/// ```
#[derive(Clone, Default)]
pub struct MountOptions {
    /// Put before every remote name to make the local name, e.g. `gh_`.
    pub prefix: String,
    /// Mount only the remote tools for which this returns `true` (all when `None`).
    pub filter: Option<ToolFilter>,
    /// Each mounted tool's timeout (the registry enforces it, and cancels the remote
    /// request when it passes); also bounds connecting and listing. Without it, calls
    /// have the registry's default timeout and connecting is bounded by 30 seconds.
    pub timeout: Option<Duration>,
    /// Connect with `initialize` (protocol 2025-11-25) even to servers that speak
    /// 2026-07-28; see [`prefer_initialize`](Self::prefer_initialize).
    pub prefer_initialize: bool,
    /// Defer the server's tools: see [`defer`](Self::defer).
    pub defer: bool,
    /// The lock file the definitions are pinned in, and the mount's name in it: see
    /// [`lock`](Self::lock).
    pub lock: Option<(LockFile, String)>,
    /// What to do with a definition that is not the pinned one (default: ask).
    pub on_change: OnChange,
    /// What to do with a tool whose texts are flagged (default: ask).
    pub on_suspicious: OnSuspicious,
    /// Offer only pinned tools: see [`require_pinned`](Self::require_pinned).
    pub require_pinned: bool,
    /// Who is asked about changed and suspicious definitions (see [`DefinitionReviewer`]).
    pub reviewer: Option<Arc<dyn DefinitionReviewer>>,
    /// Pass results on with their invisible characters: see
    /// [`unfiltered_results`](Self::unfiltered_results).
    pub unfiltered_results: bool,
}

impl MountOptions {
    /// No prefix, no filter, no timeout of its own.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the prefix of local names.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Mounts only the remote tools whose (remote) name `filter` accepts.
    pub fn filter(mut self, filter: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        self.filter = Some(Arc::new(filter));
        self
    }

    /// Sets the timeout of each mounted tool, which also bounds connecting.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Connects with `initialize` (protocol 2025-11-25) even to a server that speaks
    /// 2026-07-28, for a server whose 2026-07-28 side misbehaves. Either way a mounted
    /// tool's questions reach the caller: during the call on 2025-11-25, as input-required
    /// results answered in a retry on 2026-07-28. Servers that speak only 2025-11-25 or
    /// older are connected with `initialize` anyway.
    pub fn prefer_initialize(mut self) -> Self {
        self.prefer_initialize = true;
        self
    }

    /// Defers every tool of the server ([`ToolMeta::defer`](agent_tools_core::tool::ToolMeta::defer)):
    /// a model finds them through a tool search instead of seeing each definition on
    /// every turn — for servers with many tools, of which a task needs few.
    pub fn defer(mut self) -> Self {
        self.defer = true;
        self
    }

    /// Pins the server's tool definitions in `lock` under `name` (the mount's name: one
    /// entry per mount). The first listing of a mount the file has no entry for pins
    /// every tool that passes the checks; a later listing that differs — a definition
    /// changed, a tool added or removed — is handled by [`on_change`](Self::on_change).
    pub fn lock(mut self, lock: LockFile, name: impl Into<String>) -> Self {
        self.lock = Some((lock, name.into()));
        self
    }

    /// What to do with a definition that differs from the pinned one: hold it back for a
    /// person ([`OnChange::Ask`], the default), hold it back ([`OnChange::Deny`]), or pin
    /// and offer it ([`OnChange::Accept`]).
    pub fn on_change(mut self, on_change: OnChange) -> Self {
        self.on_change = on_change;
        self
    }

    /// What to do with a tool whose texts the checks flag: hold it back for a person
    /// ([`OnSuspicious::Ask`], the default), never offer it ([`OnSuspicious::Deny`]), or
    /// offer it with the flagged passages taken out ([`OnSuspicious::Strip`]).
    pub fn on_suspicious(mut self, on_suspicious: OnSuspicious) -> Self {
        self.on_suspicious = on_suspicious;
        self
    }

    /// Never pins on first use: a tool the lock file does not have counts as added (and
    /// [`on_change`](Self::on_change) decides), so a deployment offers exactly what was
    /// reviewed and committed. For a gateway whose lock file is checked in.
    pub fn require_pinned(mut self) -> Self {
        self.require_pinned = true;
        self
    }

    /// Asks `reviewer` about each changed or suspicious definition that waits for a
    /// person, while the mount lists its tools.
    pub fn reviewer(mut self, reviewer: impl DefinitionReviewer) -> Self {
        self.reviewer = Some(Arc::new(reviewer));
        self
    }

    /// Passes the server's results on with their invisible characters (zero-width,
    /// bidirectional controls, tag characters), which are otherwise taken out and noted
    /// in the call's audit record.
    pub fn unfiltered_results(mut self) -> Self {
        self.unfiltered_results = true;
        self
    }
}

impl fmt::Debug for MountOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MountOptions")
            .field("prefix", &self.prefix)
            .field("filter", &self.filter.as_ref().map(|_| "Fn(&str) -> bool"))
            .field("timeout", &self.timeout)
            .field("prefer_initialize", &self.prefer_initialize)
            .field("defer", &self.defer)
            .field("lock", &self.lock)
            .field("on_change", &self.on_change)
            .field("on_suspicious", &self.on_suspicious)
            .field("require_pinned", &self.require_pinned)
            .field("reviewer", &self.reviewer.as_ref().map(|_| "DefinitionReviewer"))
            .field("unfiltered_results", &self.unfiltered_results)
            .finish()
    }
}

/// Why a server's tools could not be mounted.
///
/// The message tells the cause in the same line, with its own causes, or, for a `401`,
/// what to do about it. The cause is also the error's
/// [`source`](std::error::Error::source): rmcp's error, or the [`std::io::Error`] of
/// starting the server's process, boxed so that this type does not change with rmcp's.
/// [`agent_tools_core::error::error_chain`] does not repeat it (after a `401` it adds rmcp's own words
/// to the advice).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MountError {
    /// The server could not be started or reached.
    #[error("cannot connect to the MCP server `{server}`: {}", describe(.source.as_ref()))]
    Connect {
        /// The server, as its command line or URL.
        server: String,
        /// What went wrong.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The server was reached but the MCP handshake failed.
    #[error("the MCP handshake with the server `{server}` failed: {}", describe(.source.as_ref()))]
    Handshake {
        /// The server, as its command line or URL.
        server: String,
        /// What went wrong.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Connecting or listing took longer than the mount's timeout.
    #[error("the MCP server `{server}` did not answer within {timeout:?}")]
    Timeout {
        /// The server, as its command line or URL.
        server: String,
        /// The timeout that passed.
        timeout: Duration,
    },
    /// `tools/list` failed.
    #[error("cannot list the tools of the MCP server `{server}`: {}", describe(.source.as_ref()))]
    List {
        /// The server, as its command line or URL.
        server: String,
        /// What went wrong.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The lock file could not be read or written.
    #[error("cannot pin the tools of the MCP server `{server}`: {source}")]
    Lock {
        /// The server, as its command line or URL.
        server: String,
        /// What went wrong.
        #[source]
        source: LockError,
    },
    /// The registry refused the tools, e.g. because a local tool has one of their names.
    #[error("cannot mount the tools of the MCP server `{server}`: {source}")]
    Registry {
        /// The server, as its command line or URL.
        server: String,
        /// The registry's reason.
        #[source]
        source: RegistryError,
    },
    /// A person accepted a definition by its hash
    /// ([`McpMount::accept_as_reviewed`]), and the server lists another one now.
    #[error(
        "the MCP server `{server}` no longer lists the definition of `{tool}` that was reviewed ({reviewed}): it lists {}; nothing was pinned, review it again",
        .listed.as_deref().unwrap_or("no such tool")
    )]
    NotAsReviewed {
        /// The server, as its command line or URL.
        server: String,
        /// The tool, by its name on the server.
        tool: String,
        /// The hash the person accepted.
        reviewed: String,
        /// The hash of the definition listed now (for a removed tool, the pinned one);
        /// `None` when the server has no such tool.
        listed: Option<String>,
    },
}

/// Mounts the tools of remote MCP servers into a registry.
pub trait MountMcp {
    /// Connects to `server`, lists its tools (every page) and registers them in this
    /// registry as `options.prefix + remote name`, with their descriptions, annotations
    /// and schemas as served. Then:
    ///
    /// - a call forwards `tools/call` with the call's arguments (already checked against
    ///   the served schema) and returns the remote result; a remote JSON-RPC error becomes
    ///   an error result with its message. Cancelling the call (a timeout, the caller's
    ///   token) sends `notifications/cancelled`; remote progress reaches
    ///   [`ToolContext::report_progress`](agent_tools_core::ToolContext::report_progress);
    /// - the server's questions (elicitation, sampling, roots) go to the call's caller
    ///   ([`ToolContext`](agent_tools_core::ToolContext)'s): during the call on protocol
    ///   2025-11-25; on 2026-07-28, where the server ends the call with an input-required
    ///   result, by name, and the call is made again with the answers and the server's
    ///   `requestState` (at most 10 rounds);
    /// - over HTTP on 2026-07-28 every request carries `Mcp-Method` and `Mcp-Name`, and a
    ///   call the arguments the tool's schema marks `x-mcp-header` as `Mcp-Param-*`
    ///   headers; a tool whose marks no client could send is not mounted;
    /// - when the server says its tool list changed, the mounted tools are replaced by
    ///   the new list in one change of the registry; calls in flight finish;
    /// - when the server dies, calls in flight and later calls end with an error result
    ///   at once, and the next call starts it again (or opens a new HTTP session); a call
    ///   that could not be sent is retried once on the new connection.
    ///
    /// Tools whose local name would be invalid, or whose schema the registry cannot use,
    /// are skipped (see [`McpMount::skipped`]), not an error. Fails if the server cannot
    /// be reached, the handshake or `tools/list` fails, or a local tool already has one
    /// of the names.
    fn mount_mcp(
        &self,
        server: McpServer,
        options: MountOptions,
    ) -> impl Future<Output = Result<McpMount, MountError>> + Send;
}

impl MountMcp for ToolRegistry {
    fn mount_mcp(
        &self,
        server: McpServer,
        options: MountOptions,
    ) -> impl Future<Output = Result<McpMount, MountError>> + Send {
        mount(self.clone(), server, options)
    }
}

async fn mount(
    registry: ToolRegistry,
    server: McpServer,
    options: MountOptions,
) -> Result<McpMount, MountError> {
    let name = server.to_string();
    let connection = Arc::new(Connection::new(
        server,
        options.timeout,
        options.prefer_initialize,
    ));
    // Subscribed before listing, so a change while we list is not missed.
    let remote_changes = connection.list_changes();
    let reviewed = list_reviewed(&connection, &options, &registry, &[], None).await?;
    let imported = remote_tool::import(reviewed, &options, &connection, |_| false);
    record_withheld(&registry, &name, &imported).await;
    registry
        .replace_tools(&[], imported.tools.clone())
        .map_err(|source| MountError::Registry {
            server: name.clone(),
            source,
        })?;
    let shared = Arc::new(MountShared {
        server: name,
        options,
        connection,
        registry: registry.downgrade(),
        mounted: Mutex::new(imported),
        swap: tokio::sync::Mutex::new(()),
        unmounted: CancellationToken::new(),
    });
    follow::spawn(shared.clone(), registry.changes(), remote_changes);
    Ok(McpMount { shared })
}

/// Lists the server's tools (those the mount's filter selects) and reviews them: against
/// the lock file, through the checks, past the reviewer (or, when `accepting`, accepting
/// the named tools as a person does), the lock file updated. `own` are the mount's
/// current local names, which the checks do not compare it with.
async fn list_reviewed(
    connection: &Connection,
    options: &MountOptions,
    registry: &ToolRegistry,
    own: &[String],
    accepting: Option<&[review::Accepted<'_>]>,
) -> Result<review::Reviewed, MountError> {
    let server = connection.server_name();
    let mut listed: Vec<McpTool> = connection
        .list_tools()
        .await
        .map_err(|error| error.into_mount_error(server))?;
    if let Some(filter) = &options.filter {
        listed.retain(|tool| filter(&tool.name));
    }
    let pinned = match &options.lock {
        Some((lock, name)) => lock.pinned(name).map_err(|source| MountError::Lock {
            server: server.to_owned(),
            source,
        })?,
        None => None,
    };
    let names = registry.names();
    let others: Vec<&str> = names
        .iter()
        .filter(|name| !own.contains(name))
        .map(String::as_str)
        .collect();
    let mut reviewed = review::review(listed, options, pinned.as_ref(), &others);
    match (accepting, &options.reviewer) {
        (Some(tools), _) => {
            review::accept(&mut reviewed, tools).map_err(|not| MountError::NotAsReviewed {
                server: server.to_owned(),
                tool: not.tool,
                reviewed: not.reviewed,
                listed: not.listed,
            })?
        }
        (None, Some(reviewer)) => review::ask(&mut reviewed, reviewer.as_ref(), server).await,
        (None, None) => {}
    }
    review::pin(&mut reviewed, options, server).map_err(|source| MountError::Lock {
        server: server.to_owned(),
        source,
    })?;
    Ok(reviewed)
}

/// Records an audit event ([`Outcome::Withheld`]) for each tool the mount holds back, and
/// logs it.
async fn record_withheld(registry: &ToolRegistry, server: &str, imported: &Imported) {
    for review in &imported.reviews {
        let Decision::Withheld(reason) = &review.decision else {
            continue;
        };
        tracing::warn!(server, tool = %review.name, %reason, "holding back a tool of a mounted MCP server");
        let mut event = AuditEvent::notice(&review.name, Outcome::Withheld);
        event.error = Some(format!("withheld: {reason}"));
        event
            .details
            .insert("mount".to_owned(), review.audit_detail(server));
        registry.record_audit(&event).await;
    }
}

/// What a mount and its follower share.
struct MountShared {
    /// The server, as messages name it.
    server: String,
    options: MountOptions,
    connection: Arc<Connection>,
    registry: WeakToolRegistry,
    /// The tools mounted now, and the ones skipped.
    mounted: Mutex<Imported>,
    /// Held while the mounted tools are replaced, so a re-list and an unmount don't
    /// interleave.
    swap: tokio::sync::Mutex<()>,
    /// Cancelled by [`McpMount::unmount`]; stops the follower.
    unmounted: CancellationToken,
}

impl MountShared {
    fn mounted(&self) -> std::sync::MutexGuard<'_, Imported> {
        self.mounted.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn names(&self) -> Vec<String> {
        self.mounted().names()
    }
}

/// The tools of one MCP server mounted into a registry, from
/// [`MountMcp::mount_mcp`].
///
/// Dropping the handle leaves the tools mounted (and following the server's list) for as
/// long as the registry lives; [`unmount`](Self::unmount) removes them.
pub struct McpMount {
    shared: Arc<MountShared>,
}

impl McpMount {
    /// The local (prefixed) names of the tools mounted now.
    pub fn tool_names(&self) -> Vec<String> {
        self.shared.names()
    }

    /// The remote tools left out, as (remote name, reason): an invalid local name, a
    /// schema the registry cannot use, or a name a local tool already has.
    pub fn skipped(&self) -> Vec<(String, String)> {
        self.shared.mounted().skipped.clone()
    }

    /// The server, as its command line or URL.
    pub fn server(&self) -> &str {
        &self.shared.server
    }

    /// What the last listing's review found about each tool the server lists (and each
    /// pinned one it no longer lists): changes against the lock file, findings, and
    /// whether it is offered. [`ToolReview::is_notable`] picks the ones with something
    /// to say.
    pub fn reviews(&self) -> Vec<ToolReview> {
        self.shared.mounted().reviews.clone()
    }

    /// Accepts, as a person does, the definitions the server lists now for the tools
    /// named in `tools` (by remote name; every tool not pinned, and every pinned one no
    /// longer listed, when empty): pins them in the lock file and lists again, so they
    /// are offered unless the checks still hold them back (a confusable name;
    /// [`OnSuspicious::Deny`]). Without a lock file there is nothing to pin, and the tools
    /// are only listed again.
    pub async fn accept(&self, tools: &[&str]) -> Result<(), MountError> {
        let tools: Vec<review::Accepted<'_>> = tools
            .iter()
            .map(|tool| review::Accepted { tool, sha256: None })
            .collect();
        self.accept_listed(&tools).await
    }

    /// Accepts the definitions a person reviewed, each named by its tool's remote name and
    /// its hash as [`ToolReview::sha256`] gave it (`sha256:` and hex, or a prefix of at
    /// least 16 hex digits): like [`accept`](Self::accept), but only if the server still
    /// lists each definition with that hash (a removed tool: still pinned with it). When
    /// one differs, for a server that changed it after the person looked, nothing is
    /// pinned and the error names the tool and both hashes.
    ///
    /// ```no_run
    /// # async fn run(mount: &agent_tools_mcp::McpMount) -> Result<(), agent_tools_mcp::MountError> {
    /// for review in mount.reviews() {
    ///     if review.change.is_some() {
    ///         println!("{}", review.explain(true)); // a person reads the diff
    ///         mount.accept_as_reviewed(&[(&review.remote_name, &review.sha256)]).await?;
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn accept_as_reviewed(&self, definitions: &[(&str, &str)]) -> Result<(), MountError> {
        let tools: Vec<review::Accepted<'_>> = definitions
            .iter()
            .map(|(tool, sha256)| review::Accepted {
                tool,
                sha256: Some(sha256),
            })
            .collect();
        self.accept_listed(&tools).await
    }

    async fn accept_listed(&self, tools: &[review::Accepted<'_>]) -> Result<(), MountError> {
        let shared = &self.shared;
        let Some(registry) = shared.registry.upgrade() else {
            return Ok(());
        };
        {
            let _swap = shared.swap.lock().await;
            let own = shared.names();
            list_reviewed(&shared.connection, &shared.options, &registry, &own, Some(tools)).await?;
        }
        follow::refresh(shared).await;
        Ok(())
    }

    /// Removes the mounted tools from the registry and closes the connection (a child
    /// process is asked to exit, then killed). Calls still running end with an error.
    pub async fn unmount(self) {
        let shared = self.shared;
        {
            // Cancelled first, so a re-list in progress gives up instead of making us wait.
            shared.unmounted.cancel();
            let _swap = shared.swap.lock().await;
            let mut mounted = shared.mounted();
            let names = mounted.names();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            if let Some(registry) = shared.registry.upgrade()
                && let Err(error) = registry.replace_tools(&names, Vec::new())
            {
                tracing::warn!(server = %shared.server, %error, "cannot remove mounted MCP tools");
            }
            mounted.tools.clear();
        }
        shared.connection.close().await;
    }
}

impl fmt::Debug for McpMount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpMount")
            .field("server", &self.shared.server)
            .field("tools", &self.tool_names())
            .field("skipped", &self.skipped())
            .finish()
    }
}
