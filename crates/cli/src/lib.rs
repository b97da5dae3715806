//! The `agent-tools` command line: list, describe, call and serve the tools of a registry.
//!
//! The binary serves the built-in tools; [`run`] serves any registry, so an application
//! can ship the same command line over its own tools:
//!
//! ```no_run
//! use agent_tools_cli::{self as cli, Io};
//!
//! # fn register_my_tools(_: &agent_tools::ToolRegistry) {}
//! # #[tokio::main] async fn main() {
//! let mut stdin = std::io::stdin();
//! let (mut stdout, mut stderr) = (std::io::stdout(), std::io::stderr());
//! let io = Io { stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr };
//! let status = cli::run(std::env::args_os(), |registry, _settings| {
//!     register_my_tools(registry);
//!     Ok(())
//! }, io)
//! .await;
//! std::process::exit(status.into());
//! # }
//! ```
//!
//! `--mount NAME=COMMAND|URL` adds another MCP server's tools (as `NAME_<tool>`) for any
//! subcommand; the servers are unmounted, a child process stopped, before `run` returns.
//!
//! `--policy FILE` (or a `[policy]` section in `--config`; the `--policy` file wins
//! entirely) sets the registry's [`Policy`]: it decides every call, served, called or
//! mounted, and `list` shows what it does with each tool.
//!
//! Exit status: 0 on success; 1 when `call`'s result is an error (a call the policy
//! refuses among them), or when `schema` prints a definition its provider would reject
//! (see `schema --help`); 2 for usage and configuration errors (a server that cannot be
//! mounted, a policy file with a bad rule among them), which are reported as one line on
//! stderr.

mod args;
mod auth;
mod commands;
mod config;
mod mounts;
mod mounts_command;
mod observe;
mod plans;
mod policy;
mod runtime;
mod serve;
mod struct_fields;
mod tasks;
mod terminal_approver;
mod toml_file;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser as _;

use args::{
    AskArg, Cli, Command, GlobalArgs, MountArg, MountTarget, MountToken, MountsCommand, PolicyCommand,
};
pub use auth::{AuthConfig, ScopeConfig};
pub use config::{
    AuditConfig, Config, DEFAULT_RESULT_TOKENS, MountConfig, ResultsConfig, ServeConfig, TasksConfig,
    TelemetryConfig, ToolSearchConfig,
};
use mounts::Announce;
use terminal_approver::TerminalApprover;
pub use toml_file::{ConfigError, FileKind};

use agent_tools::builtins::Workspace;
use agent_tools::builtins::result_files::ResultFiles;
use agent_tools::mcp::trust::{DefinitionReviewer, LockFile};
use agent_tools::{ToolRegistry, dialect::DefinitionOptions, policy::Policy};

/// Exit status: success.
pub const EXIT_OK: u8 = 0;
/// Exit status: the tool call returned an error result (`call`), or a provider would
/// reject a definition printed (`schema`).
pub const EXIT_TOOL_ERROR: u8 = 1;
/// Exit status: bad usage or configuration.
pub const EXIT_USAGE: u8 = 2;

/// Where the command line reads and writes; the process's streams in the binary, buffers
/// in tests.
pub struct Io<'a> {
    /// Read by `call NAME -`.
    pub stdin: &'a mut dyn Read,
    /// Results.
    pub stdout: &'a mut dyn Write,
    /// Diagnostics and errors.
    pub stderr: &'a mut dyn Write,
}

/// What a setup function gets to build its tools from.
#[derive(Debug)]
#[non_exhaustive]
pub struct Settings {
    /// The opened `--workspace` directory.
    pub workspace: Workspace,
    /// The `--config` file's settings (defaults without one).
    pub config: Config,
    /// `--allow-private-network`: web tools may reach private addresses.
    pub allow_private_network: bool,
    /// `--memory-db`: where the memory tools keep their database.
    pub memory_db: Option<std::path::PathBuf>,
    /// The policy the registry decides calls by: the `--policy` file's, else the
    /// `--config` file's `[policy]`; `None` without either.
    pub policy: Option<Policy>,
    /// `--tool-search`, or `[tool_search] enabled`: tools are deferred (all but the
    /// configuration's `core`) and found through `tool_search`.
    pub tool_search: bool,
    /// The lock file pinning the mounted tools' definitions: `--lock`, else the config's
    /// `lock_file`, else `agent-tools.lock` beside the config file; `None` without any
    /// (definitions are then checked but not pinned).
    pub lock_file: Option<std::path::PathBuf>,
}

/// A usage or configuration error of the command line itself (not of a tool): one line
/// for stderr, exit status 2.
#[derive(Debug)]
struct CliError(String);

impl CliError {
    /// Writing to stdout failed (e.g. a closed pipe).
    fn output(error: std::io::Error) -> Self {
        CliError(format!("cannot write output: {error}"))
    }
}

/// The binary's entry point: the built-in tools over the process's streams.
pub fn main() -> ExitCode {
    main_with(|registry, settings| register_builtins(registry, settings).map_err(Into::into))
}

/// The command line over the tools `setup` registers, on the process's arguments and
/// streams, in the async runtime the binary uses: a `main` for an application that ships
/// this command line over its own tools (use [`run`] from inside a runtime of its own).
///
/// ```no_run
/// # fn register_my_tools(_: &agent_tools::ToolRegistry) {}
/// fn main() -> std::process::ExitCode {
///     agent_tools_cli::main_with(|registry, _settings| {
///         register_my_tools(registry);
///         Ok(())
///     })
/// }
/// ```
pub fn main_with<F>(setup: F) -> ExitCode
where
    F: FnOnce(&ToolRegistry, &Settings) -> Result<(), Box<dyn std::error::Error + Send + Sync>>,
{
    let mut stdin = std::io::stdin();
    let (mut stdout, mut stderr) = (std::io::stdout(), std::io::stderr());
    let mut io = Io {
        stdin: &mut stdin,
        stdout: &mut stdout,
        stderr: &mut stderr,
    };
    let cli = match Cli::try_parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(error) => return ExitCode::from(print_clap_error(&error, &mut io)),
    };
    let runtime = match runtime::for_command(&cli.command) {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("agent-tools: cannot start the async runtime: {error}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    ExitCode::from(runtime.block_on(run_parsed(cli, setup, io)))
}

/// Registers the built-in tools the binary serves, over `--workspace`, as the `--config`
/// sections and flags say: what [`main`] passes to [`main_with`], for a `setup` that adds
/// its own tools beside them.
///
/// ```no_run
/// # fn register_my_tools(_: &agent_tools::ToolRegistry) {}
/// fn main() -> std::process::ExitCode {
///     agent_tools_cli::main_with(|registry, settings| {
///         agent_tools_cli::register_builtins(registry, settings)?;
///         register_my_tools(registry);
///         Ok(())
///     })
/// }
/// ```
pub fn register_builtins(
    registry: &ToolRegistry,
    settings: &Settings,
) -> Result<(), agent_tools::builtins::SetupError> {
    let mut config = settings.config.builtins.clone();
    if settings.allow_private_network {
        config.web.allow_private_network = true;
    }
    if let Some(path) = &settings.memory_db {
        // The command line wins over the file, PostgreSQL settings included.
        config.memory.path = Some(path.clone());
        config.memory.url = None;
        config.memory.url_env = None;
    }
    let sqlite_default =
        config.memory.path.is_none() && config.memory.url.is_none() && config.memory.url_env.is_none();
    if config.memory.enabled && sqlite_default {
        note_legacy_memory(settings.workspace.root());
    }
    // The lock file decides what mounted tools a model sees; the model's file tools must
    // not rewrite it (a lock file outside the workspace needs no protection).
    if let Some(lock) = &settings.lock_file {
        config.workspace.protect.push(lock.clone());
    }
    let root = Some(settings.workspace.root().to_path_buf());
    agent_tools::builtins::register_all(registry, root, &config).map(drop)
}

/// Says on stderr where the memories are kept now, when the workspace holds a database
/// at the old default place and the new one does not exist yet. It is not taken in
/// unasked: it lies where the agent, or whoever made the repository, could have written
/// it (see `builtins::memory`'s docs).
fn note_legacy_memory(root: &std::path::Path) {
    use agent_tools::builtins::memory::{LEGACY_PATH, MemoryStore};
    let legacy = root.join(LEGACY_PATH);
    let Ok(current) = MemoryStore::default_path(root) else {
        return;
    };
    if legacy.is_file() && !current.exists() {
        eprintln!(
            "agent-tools: note: {} holds memories of an older agent-tools and is not used; memories \
             are now kept outside the workspace, in {}. If the old file is yours, move it there \
             (with its -wal file, if any) before the first memory call.",
            legacy.display(),
            current.display()
        );
    }
}

/// Parses `args` (program name first), builds a registry, lets `setup` register tools on
/// it, runs the subcommand and returns the exit status. Never panics on bad input.
///
/// `setup` may fail with any error (`?` converts one, as it does a `String` message);
/// that is a configuration error: its message and causes
/// ([`error_chain`](agent_tools::error::error_chain)) go to stderr, and the status is [`EXIT_USAGE`].
pub async fn run<I, T, F>(args: I, setup: F, mut io: Io<'_>) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
    F: FnOnce(&ToolRegistry, &Settings) -> Result<(), Box<dyn std::error::Error + Send + Sync>>,
{
    match Cli::try_parse_from(args) {
        Ok(cli) => run_parsed(cli, setup, io).await,
        Err(error) => print_clap_error(&error, &mut io),
    }
}

/// [`run`] once the arguments are parsed.
async fn run_parsed<F>(cli: Cli, setup: F, mut io: Io<'_>) -> u8
where
    F: FnOnce(&ToolRegistry, &Settings) -> Result<(), Box<dyn std::error::Error + Send + Sync>>,
{
    match execute(cli, setup, &mut io).await {
        Ok(status) => status,
        Err(CliError(message)) => {
            // A closed stderr leaves nothing to report to.
            let _ = writeln!(io.stderr, "agent-tools: {message}");
            EXIT_USAGE
        }
    }
}

/// `--help` and `--version` go to stdout with status 0; usage errors to stderr with 2.
fn print_clap_error(error: &clap::Error, io: &mut Io<'_>) -> u8 {
    let mut text = error.render().to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if error.use_stderr() {
        let _ = write!(io.stderr, "{text}");
        EXIT_USAGE
    } else {
        let _ = write!(io.stdout, "{text}");
        EXIT_OK
    }
}

async fn execute<F>(cli: Cli, setup: F, io: &mut Io<'_>) -> Result<u8, CliError>
where
    F: FnOnce(&ToolRegistry, &Settings) -> Result<(), Box<dyn std::error::Error + Send + Sync>>,
{
    let settings = settings(&cli.global)?;
    // Approvals are answered in the task store: no tools, no mounts.
    if let Command::Approvals(command) = &cli.command {
        return tasks::approvals(command, &settings.config.tasks, io).await;
    }
    // Plans are read from their files: no tools, no mounts.
    if let Command::Plan { session, json } = &cli.command {
        return plans::show(settings.workspace.root(), session.as_deref(), *json, io);
    }
    let observers = observe::Observers::open(&cli.global, &settings).await?;
    let approver = terminal_approver(cli.global.ask, &cli.command)?;
    // The person at the terminal also decides on mounted tools whose definitions changed.
    let reviewer = approver
        .clone()
        .map(|approver| Arc::new(approver) as Arc<dyn DefinitionReviewer>);
    let registry = build_registry(&settings, &observers, approver)?;
    setup(&registry, &settings).map_err(|error| CliError(agent_tools::error::error_chain(&*error)))?;
    let announce = match cli.command {
        Command::Serve { .. } => Announce::Counts,
        _ => Announce::SkippedOnly,
    };
    let global = &cli.global;
    let servers = mounts::MountSpec::all(&global.mounts, &global.mount_tokens, &settings.config.mounts)?;
    let trust = mounts::Trust {
        lock: match &settings.lock_file {
            Some(path) => Some(LockFile::open(path).map_err(|error| CliError(error.to_string()))?),
            None => None,
        },
        pinning: match &cli.command {
            Command::Mounts(MountsCommand::Verify { .. } | MountsCommand::Diff { .. }) => {
                mounts::Pinning::Compare
            }
            _ => mounts::Pinning::AsConfigured,
        },
        reviewer,
    };
    let mounted = mounts::mount_all(&registry, servers, announce, &trust, io).await?;
    let status = match policy::check_examples(settings.policy.as_ref(), &registry) {
        Ok(()) => run_command(&cli.command, registry, &settings, &mounted, &trust, io).await,
        Err(failures) => Err(CliError(failures)),
    };
    // Whatever the command's outcome: a child server must not outlive us.
    mounted.unmount().await;
    observers.finish(io).await;
    status
}

/// Runs the subcommand over `registry`, built from `settings`, with the servers
/// `mounted`.
async fn run_command(
    command: &Command,
    registry: ToolRegistry,
    settings: &Settings,
    mounted: &mounts::Mounted,
    trust: &mounts::Trust,
    io: &mut Io<'_>,
) -> Result<u8, CliError> {
    let policy = settings.policy.as_ref();
    let skipped = mounted.skipped();
    match command {
        Command::List { explain } => {
            commands::list(&registry, policy, io)?;
            if *explain {
                mounts_command::explain(mounted, io)?;
            }
            Ok(EXIT_OK)
        }
        Command::Mounts(command) => mounts_command::run(command, mounted, trust.lock.as_ref(), io).await,
        Command::Schema {
            dialect,
            strict,
            tool,
            search_mode,
        } => {
            let options = DefinitionOptions::new((*dialect).into())
                .strict((*strict).into())
                .tool_search((*search_mode).into());
            let rejected = commands::schema(&registry, options, tool.as_deref(), io)?;
            // Without `--tool`, the question is whether all the tools reach the provider.
            let unmounted = tool.is_none() && skipped > 0;
            Ok(if rejected > 0 || unmounted {
                EXIT_TOOL_ERROR
            } else {
                EXIT_OK
            })
        }
        Command::Policy(PolicyCommand::Check { tool, arguments }) => {
            let explained = policy::check(policy, &registry, tool, arguments).map_err(CliError)?;
            write!(io.stdout, "{explained}").map_err(CliError::output)?;
            Ok(EXIT_OK)
        }
        Command::Call {
            name,
            arguments,
            json,
            session,
        } => {
            let failed = commands::call(
                &registry,
                name,
                arguments.as_deref(),
                *json,
                session.as_deref(),
                io,
            )
            .await?;
            Ok(if failed { EXIT_TOOL_ERROR } else { EXIT_OK })
        }
        Command::Serve {
            http,
            token_env,
            oauth_issuer,
            oauth_audience,
            oauth_scopes,
            stateless,
        } => {
            let flags = auth::OAuthFlags {
                issuer: oauth_issuer.as_deref(),
                audience: oauth_audience.as_deref(),
                scopes: oauth_scopes.as_deref(),
            };
            let oauth = auth::resource(&flags, settings.config.auth.as_ref())?;
            let http = http.as_deref().map(|addr| serve::Http {
                addr,
                token_env: token_env.as_deref(),
                oauth,
                stateless: *stateless || settings.config.serve.stateless,
            });
            let tasks = tasks::open(&settings.config.tasks).await?;
            serve::serve(registry, http, tasks, io).await.map(|()| EXIT_OK)
        }
        // Answered before the registry is built (`execute`).
        Command::Approvals(_) | Command::Plan { .. } => Ok(EXIT_OK),
    }
}

fn settings(global: &GlobalArgs) -> Result<Settings, CliError> {
    let config = match &global.config {
        Some(path) => Config::load(path).map_err(|error| CliError(error.to_string()))?,
        None => Config::default(),
    };
    let root = match global
        .workspace
        .as_ref()
        .or(config.builtins.workspace.root.as_ref())
    {
        Some(root) => root.clone(),
        None => std::env::current_dir()
            .map_err(|error| CliError(format!("cannot find the current directory: {error}")))?,
    };
    let workspace = Workspace::open(&root).map_err(|error| CliError(error.to_string()))?;
    // `--policy` replaces the config's section as a whole: merging two lists of rules
    // would leave it unclear which file decided a call.
    let policy = match &global.policy {
        Some(path) => Some(policy::load(path).map_err(|error| CliError(error.to_string()))?),
        None => config.policy.clone(),
    };
    // Rules over paths see them as the file tools resolve them, in this workspace.
    let policy = policy.map(|policy| policy.with_workspace(workspace.root()));
    let tool_search = global.tool_search || config.tool_search.enabled;
    let lock_file = global
        .lock
        .clone()
        .or_else(|| config.lock_file.clone())
        .or_else(|| {
            let config_file = global.config.as_ref()?;
            Some(
                config_file
                    .parent()
                    .unwrap_or(Path::new(""))
                    .join("agent-tools.lock"),
            )
        })
        .map(|path| std::path::absolute(&path).unwrap_or(path));
    Ok(Settings {
        workspace,
        config,
        allow_private_network: global.allow_private_network,
        memory_db: global.memory_db.clone(),
        policy,
        tool_search,
        lock_file,
    })
}

/// The terminal approver, for the commands that make calls when `--ask` lets the terminal
/// decide and someone is at it.
fn terminal_approver(ask: AskArg, command: &Command) -> Result<Option<TerminalApprover>, CliError> {
    if !matches!(command, Command::Call { .. } | Command::Serve { .. }) {
        return Ok(None);
    }
    match ask {
        AskArg::Client => Ok(None),
        AskArg::Auto => Ok(TerminalApprover::for_interactive_use()),
        AskArg::Terminal => TerminalApprover::for_interactive_use()
            .map(Some)
            .ok_or_else(|| CliError("--ask terminal: there is no terminal to ask at".to_owned())),
    }
}

fn build_registry(
    settings: &Settings,
    observers: &observe::Observers,
    approver: Option<TerminalApprover>,
) -> Result<ToolRegistry, CliError> {
    let mut builder = observers.register(ToolRegistry::builder().extension(settings.workspace.clone()));
    if let Some(timeout) = settings.config.default_timeout {
        builder = builder.default_timeout(timeout);
    }
    if let Some(policy) = &settings.policy {
        builder = builder.policy(policy.clone());
    }
    if let Some(approver) = approver {
        builder = builder.approver(approver);
    }
    if settings.tool_search {
        builder = builder.defer_all_except(settings.config.tool_search.core.iter().cloned());
    }
    if let Some(support) = tasks::default_support(&settings.config.tasks)? {
        builder = builder.task_support(support);
    }
    let results = &settings.config.results;
    match results.max_tokens.unwrap_or(config::DEFAULT_RESULT_TOKENS) {
        0 => {}
        tokens => {
            let kept = ResultFiles::new(settings.workspace.clone());
            let kept = match results.keep {
                Some(files) => kept.keep_at_most(files),
                None => kept,
            };
            builder = builder.max_result_tokens(tokens).result_overflow(kept);
        }
    }
    Ok(builder.build())
}

/// The non-empty token in `$var`, for the option `flag`.
fn env_token(var: &str, flag: &str) -> Result<String, CliError> {
    match std::env::var(var) {
        Ok(token) if !token.trim().is_empty() => Ok(token.trim().to_owned()),
        _ => Err(CliError(format!("{flag}: ${var} is not set or empty"))),
    }
}

/// A progress line on stderr; stdout may be the protocol.
fn status(io: &mut Io<'_>, message: &str) {
    // A closed stderr leaves nothing to report to, and must not stop serving.
    let _ = writeln!(io.stderr, "agent-tools: {message}");
}
