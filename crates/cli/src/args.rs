//! The command line, as clap parses it.
//!
//! The doc comments of the items below are clap's help text, printed as written: `[auth]`
//! names a config section and a URL is an example, not rustdoc links.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::bare_urls)]

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// List, describe, call and serve agent tools.
#[derive(Debug, Parser)]
#[command(name = "agent-tools", version, about, propagate_version = true)]
#[command(
    after_help = "Examples:\n  agent-tools list\n  agent-tools schema --tool read_file\n  agent-tools --workspace ./project call read_file '{\"path\": \"README.md\"}'\n  agent-tools --workspace ./project serve\n  agent-tools --mount gh=http://127.0.0.1:9000/mcp schema --dialect gemini\n  agent-tools --policy policy.toml serve\n  agent-tools --mount gh=http://127.0.0.1:9000/mcp --tool-search call tool_search '{\"query\": \"open an issue\"}'\n\nWith --mount, another MCP server's tools join the built-in ones as NAME_<tool> for every\ncommand: listed, described, called and served through this registry's validation,\ntimeouts and audit log. The servers are unmounted (a child process is stopped) before\nthe command exits.\n\nWith --policy FILE, or a [policy] section in --config (--policy wins entirely: the\nconfig's section is then ignored), the policy decides every call, whether called, served\nor mounted: a refused call is an error result that names the rule or mode."
)]
pub(super) struct Cli {
    /// Options shared by all commands.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options accepted before or after the subcommand.
#[derive(Debug, Args)]
pub(super) struct GlobalArgs {
    /// The directory tools may work in (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// A TOML configuration file.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// A TOML policy file deciding which tool calls run: `[policy]` with `mode`
    /// (default | accept_edits | read_only | bypass) and `deny`, `ask`, `allow` rules such
    /// as "exec(command: git status*)". It replaces a `[policy]` section of --config
    /// entirely. Who approves the calls it asks about: see --ask.
    #[arg(long, global = true, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Who approves the calls the policy asks about. auto: the person at the terminal
    /// when there is one (stderr a terminal), else, for serve, the MCP client (by an
    /// elicitation form, if it supports them); terminal: always the terminal; client:
    /// never the terminal. A call no one can approve is refused.
    #[arg(long, global = true, value_enum, default_value_t = AskArg::Auto, value_name = "WHO")]
    pub ask: AskArg,
    /// Append one JSON line per tool call to this file.
    #[arg(long, global = true, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
    /// Let web_fetch reach private, loopback and link-local addresses (turns the SSRF
    /// guard off).
    #[arg(long, global = true)]
    pub allow_private_network: bool,
    /// The memory database (default: outside the workspace, under `$XDG_DATA_HOME` or
    /// `~/.local/share`, in `agent-tools/workspaces/<name>-<hash>/memory.db`).
    #[arg(long, global = true, value_name = "FILE")]
    pub memory_db: Option<PathBuf>,
    /// Also take another MCP server's tools, prefixed `NAME_`: NAME=COMMAND (a command
    /// line started as a child speaking stdio) or NAME=URL (streamable HTTP). Repeatable.
    #[arg(long = "mount", global = true, value_name = "NAME=COMMAND|URL", value_parser = parse_mount)]
    pub mounts: Vec<MountArg>,
    /// The lock file pinning the mounted tools' definitions (default: agent-tools.lock
    /// beside --config; without either, definitions are checked but not pinned).
    #[arg(long = "lock", global = true, value_name = "FILE")]
    pub lock: Option<PathBuf>,
    /// Send `Authorization: Bearer $VAR` to the HTTP server mounted as NAME (for a
    /// server started with `--token-env`).
    #[arg(long = "mount-token-env", global = true, value_name = "NAME=VAR", value_parser = parse_mount_token)]
    pub mount_tokens: Vec<MountToken>,
    /// Defer every tool and register `tool_search`, which finds them: a model is shown
    /// only the search (and, for Anthropic and OpenAI Responses definitions, the
    /// provider's own search over the deferred tools) and loads what it needs. For
    /// large tool sets, e.g. several mounted servers.
    #[arg(long, global = true)]
    pub tool_search: bool,
}

/// `policy …`: tools for writing a policy.
#[derive(Debug, Subcommand)]
pub(super) enum PolicyCommand {
    /// Print the verdict on one call, what the rules saw in its arguments (the parsed
    /// commands, the resolved paths) and the rule or mode that decided. The call is not
    /// made.
    #[command(
        after_help = "Examples:\n  agent-tools --policy policy.toml policy check exec '{\"command\": \"git status && rm -rf ~\"}'\n  agent-tools --policy policy.toml policy check write_file '{\"path\": \"src/../.env\", \"content\": \"\"}'\n\nThe policy file's [[policy.example]] calls are checked first, as they are whenever the\nfile is loaded: a failing example stops every command with exit status 2."
    )]
    Check {
        /// The tool's name.
        tool: String,
        /// The arguments as a JSON object (default `{}`).
        #[arg(value_name = "ARGS_JSON", default_value = "{}")]
        arguments: String,
    },
}

/// `mounts …`: the mounted servers' tool definitions against the lock file.
#[derive(Debug, Subcommand)]
pub(super) enum MountsCommand {
    /// Pin every mounted tool's definition as the servers list it now (all mounts, or
    /// the ones named), whatever the lock file held.
    #[command(after_help = "Examples:
  agent-tools --config gateway.toml mounts lock
  agent-tools --config gateway.toml mounts lock git

The lock file (--lock, else agent-tools.lock beside --config) is JSON to review and
commit: one entry per mount, one per tool, with its definition and SHA-256.")]
    Lock {
        /// Only these mounts.
        names: Vec<String>,
    },
    /// Compare each mounted tool's definition with the pinned one; print every change
    /// and exit 1 if there is any (for CI).
    #[command(after_help = "Example:
  agent-tools --config gateway.toml mounts verify || exit 1

A tool the lock file does not have counts as added, a pinned tool the server no longer
lists as removed. Nothing is pinned. Exit status 0 when every definition is the pinned one.")]
    Verify {
        /// Only these mounts.
        names: Vec<String>,
    },
    /// Show how each mounted tool's definition differs from the pinned one (a unified
    /// diff), and what the checks found in its name and texts.
    Diff {
        /// Only these mounts.
        names: Vec<String>,
    },
    /// Accept the definitions a mounted server lists now: pin them, for the tools named
    /// (by their name on the server), or every tool that differs.
    #[command(after_help = "Examples:
  agent-tools --config gateway.toml mounts diff git
  agent-tools --config gateway.toml mounts accept git
  agent-tools --config gateway.toml mounts accept git git_commit
  agent-tools --config gateway.toml mounts accept git git_commit@sha256:3f9a0c2e7b1d4e85

TOOL@sha256:HASH accepts the definition `mounts diff` showed with that hash (its first
16 hex digits or more), and nothing if the server lists another one by now: without
it, accept pins what the server lists at the moment it runs.

A running gateway reads the lock file at each listing: it offers an accepted tool when
the server next says its list changed, or when it is restarted.")]
    Accept {
        /// The mount.
        name: String,
        /// Only these tools, by their name on the server; TOOL@sha256:HASH only if its
        /// definition still has that hash.
        #[arg(value_name = "TOOL[@sha256:HASH]")]
        tools: Vec<String>,
    },
}

/// `approvals …`.
#[derive(Debug, Subcommand)]
pub(super) enum ApprovalsCommand {
    /// List the tasks waiting for an approval: id, tool, arguments, since when.
    #[command(
        after_help = "Example:\n  agent-tools --config gateway.toml approvals list\n\nA task waits for an approval when the policy asks about its call (an ask rule, or a\nmode that asks) and the call runs as an MCP task: nobody is asked at once, the task is\ninput_required until a person answers, here or in the MCP client."
    )]
    List,
    /// Let the task's call run (its next round runs when the client next polls).
    Allow {
        /// The task's id (from `approvals list`).
        id: String,
        /// Let the tool's later calls of the same session run without asking.
        #[arg(long)]
        always: bool,
        /// Who decides, for the audit log (default: $USER).
        #[arg(long = "as", value_name = "NAME")]
        by: Option<String>,
    },
    /// Refuse the task's call; the model is told the reason.
    Deny {
        /// The task's id (from `approvals list`).
        id: String,
        /// What to tell the model.
        #[arg(long)]
        reason: Option<String>,
        /// Who decides, for the audit log (default: $USER).
        #[arg(long = "as", value_name = "NAME")]
        by: Option<String>,
    },
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// List the tools: name, hints, and the first sentence of the description.
    #[command(
        after_help = "Examples:\n  agent-tools list\n  agent-tools --mount docs=http://127.0.0.1:9000/mcp list    (the built-in tools and docs_*)\n  agent-tools --policy policy.toml list\n\nWith a policy (--policy, or [policy] in --config), a column after the name says what it\ndoes with the tool's calls: allowed; asks (RULE or MODE) — the person at the terminal,\nor the MCP client when served, is asked (see --ask), and without either the call is\nrefused; denied (RULE or MODE); or depends on arguments (rules over its arguments\ndecide call by call)."
    )]
    List {
        /// Also say, for each mounted tool, how its definition compares with the pinned
        /// one, what the checks found in its name and texts, and whether it is offered
        /// (also the tools held back, which the list leaves out).
        #[arg(long)]
        explain: bool,
    },
    /// Print tool definitions as a JSON array, in a provider's format.
    #[command(
        after_help = "Examples:\n  agent-tools schema\n  agent-tools schema --dialect gemini --tool read_file\n  agent-tools schema --dialect anthropic --strict always\n  agent-tools --mount gh='github-mcp-server stdio' schema --dialect gemini\n\nstderr names each tool whose definition is not the preferred form, with the reason:\n  note:   a fallback the provider accepts (no strict form, so sent non-strict; Gemini's\n          parametersJsonSchema instead of parameters)\n  error:  the provider would reject the definition: the dialect could not express part\n          of the schema, or the definition breaks one of the provider's documented\n          rules (as agent_tools::testing's independent checkers restate them)\n\nExit status 1 when any definition printed has an error line, or, without --tool, when a\nmounted server offers a tool that could not be mounted at all (an invalid name, a schema\nthe registry cannot use: named on stderr as skipped). Otherwise 0."
    )]
    Schema {
        /// The provider format.
        #[arg(long, value_enum, default_value_t = DialectArg::OpenaiChat)]
        dialect: DialectArg,
        /// Whether definitions are strict (schema-constrained arguments).
        #[arg(long, value_enum, default_value_t = StrictArg::Auto)]
        strict: StrictArg,
        /// Only this tool.
        #[arg(long, value_name = "NAME")]
        tool: Option<String>,
        /// How deferred tools (--tool-search, or tools marked so) are offered: native —
        /// the provider's own tool search where it has one (anthropic, openai-responses),
        /// else tool_search; local — tool_search for every dialect; load-all — every
        /// definition in full.
        #[arg(long, value_enum, default_value_t = SearchModeArg::Native, value_name = "MODE")]
        search_mode: SearchModeArg,
    },
    /// Call one tool and print its text output (exit status 1 if the result is an error).
    #[command(
        after_help = "Examples:\n  agent-tools call read_file '{\"path\": \"README.md\"}'\n  echo '{\"path\": \"README.md\"}' | agent-tools call read_file -\n  agent-tools call read_file '{\"path\": \"README.md\"}' --json\n  agent-tools --mount git='uvx mcp-server-git' call git_git_status '{\"repo_path\": \".\"}'"
    )]
    Call {
        /// The tool's name.
        name: String,
        /// The arguments as a JSON object, or `-` to read them from stdin (default `{}`).
        #[arg(value_name = "ARGS_JSON")]
        arguments: Option<String>,
        /// Print the whole result as JSON (content parts, structured output, is_error).
        #[arg(long)]
        json: bool,
        /// Make the call in this session (e.g. update_plan's plan is the session's).
        #[arg(long, value_name = "ID")]
        session: Option<String>,
    },
    /// Show the plans models keep with update_plan in the workspace's sessions, the one
    /// updated last first, as checklists: [x] completed, [~] in progress, [ ] pending.
    #[command(
        after_help = "Examples:\n  agent-tools --workspace ./project plan\n  agent-tools plan --session 5f0c…   (one session's plan)\n  agent-tools plan --json\n\nPlans are kept outside the workspace, in $XDG_DATA_HOME (or ~/.local/share)\n/agent-tools/workspaces/<name>-<hash>/plans/, one file per session, written by every\nprocess serving or calling the workspace's tools. Exit status 1 when --session has no plan."
    )]
    Plan {
        /// Only this session's plan.
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Print JSON: the plan with --session, else an array of plans.
        #[arg(long)]
        json: bool,
    },
    /// Test a policy: what it does with a call, and why.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Decide the approvals served calls wait for as MCP tasks, in the task store the
    /// servers share ([tasks] postgres_url in --config).
    #[command(subcommand)]
    Approvals(ApprovalsCommand),
    /// Pin, verify, compare and accept the mounted servers' tool definitions.
    #[command(subcommand)]
    Mounts(MountsCommand),
    /// Serve the tools to MCP clients, over stdio (default) or streamable HTTP.
    #[command(
        after_help = "Examples:\n  agent-tools --workspace ./project serve\n  agent-tools serve --http 127.0.0.1:8080          (endpoint http://127.0.0.1:8080/mcp)\n  MCP_TOKEN=… agent-tools serve --http 0.0.0.0:8080 --token-env MCP_TOKEN\n  agent-tools serve --mount git='uvx mcp-server-git' --mount docs=http://127.0.0.1:9000/mcp\n  DOCS_TOKEN=… agent-tools serve --mount docs=http://10.0.0.7:9000/mcp --mount-token-env docs=DOCS_TOKEN\n\nOver stdio, stdout carries the protocol; progress and errors go to stderr. A mounted\nserver's tools are served as NAME_<tool>, through this server's validation, timeouts\nand audit log."
    )]
    Serve {
        /// Serve streamable HTTP on this address instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// Require HTTP clients to send `Authorization: Bearer <token>`, the token read
        /// from the environment variable NAME (never the command line, which other users
        /// can see). Needed to serve an address other than loopback.
        #[arg(long, value_name = "NAME", requires = "http")]
        token_env: Option<String>,
        /// Admit OAuth access tokens from this authorization server (its issuer URL):
        /// JWTs checked against its keys, others introspected (see [auth] in --config).
        /// Clients without a token are sent to it by the protected resource metadata.
        #[arg(long, value_name = "URL", requires = "http", conflicts_with = "token_env")]
        oauth_issuer: Option<String>,
        /// This server's resource URI as clients reach it (e.g.
        /// https://mcp.example.com/mcp): the audience tokens must name.
        #[arg(long, value_name = "URI", requires = "http")]
        oauth_audience: Option<String>,
        /// A TOML file of [[scope]] tables (name, tools, read_only) saying which scopes
        /// reach which tools; without one, every valid token reaches every tool.
        #[arg(long, value_name = "FILE", requires = "http")]
        oauth_scopes: Option<std::path::PathBuf>,
        /// Serve HTTP without MCP sessions, so that replicas behind a round-robin load
        /// balancer can each answer any request (also `[serve] stateless = true`).
        /// Server-to-client messages outside a request (list changes, elicitation,
        /// sampling) are then not available.
        #[arg(long, requires = "http")]
        stateless: bool,
    },
}

/// One `--mount NAME=COMMAND|URL`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MountArg {
    /// The prefix stem: tools are served as `NAME_<tool>`.
    pub name: String,
    /// Where the server is.
    pub target: MountTarget,
}

/// Where a mounted server runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum MountTarget {
    /// A program and its arguments, started as a child speaking MCP over stdio.
    Command(Vec<String>),
    /// A streamable HTTP endpoint.
    Url(String),
}

/// One `--mount-token-env NAME=VAR`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MountToken {
    /// The mount's name.
    pub name: String,
    /// The environment variable holding its bearer token.
    pub var: String,
}

fn parse_mount_token(text: &str) -> Result<MountToken, String> {
    match text.split_once('=') {
        Some((name, var)) if !name.trim().is_empty() && !var.trim().is_empty() => Ok(MountToken {
            name: name.trim().to_owned(),
            var: var.trim().to_owned(),
        }),
        _ => Err("expected NAME=VAR: the mount's name and the variable holding its token".to_owned()),
    }
}

fn parse_mount(text: &str) -> Result<MountArg, String> {
    let (name, target) = text
        .split_once('=')
        .ok_or("expected NAME=COMMAND or NAME=URL, e.g. git='uvx mcp-server-git'")?;
    let name = name.trim();
    check_mount_name(name)?;
    let target = target.trim();
    let target = if target.starts_with("http://") || target.starts_with("https://") {
        MountTarget::Url(target.to_owned())
    } else {
        let words = split_command(target)?;
        if words.is_empty() {
            return Err(format!("no command given for `{name}`"));
        }
        MountTarget::Command(words)
    };
    Ok(MountArg {
        name: name.to_owned(),
        target,
    })
}

/// A mount's name becomes the prefix of its tools' names: letters, digits, `_` and `-`.
pub(super) fn check_mount_name(name: &str) -> Result<(), String> {
    let usable = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match usable {
        true => Ok(()),
        false => Err(format!(
            "`{name}` is not a usable name: use letters, digits, `_` or `-`"
        )),
    }
}

/// Splits a command line into words the way a POSIX shell would for the simple cases:
/// whitespace separates, single quotes keep everything, double quotes and backslashes
/// escape. No expansion of any kind happens.
pub(super) fn split_command(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let quoted: String = chars.by_ref().take_while(|&c| c != '\'').collect();
                word.get_or_insert_with(String::new).push_str(&quoted);
            }
            '"' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => word.extend(chars.next()),
                        Some(c) => word.push(c),
                        None => return Err("unclosed `\"` in the command".to_owned()),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

/// `--dialect` values.
/// `--ask`: who approves the calls a policy asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum AskArg {
    /// The terminal when someone is at it, else the MCP client.
    Auto,
    /// The terminal (an error without one).
    Terminal,
    /// The MCP client, never the terminal.
    Client,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// OpenAI Chat Completions.
    OpenaiChat,
    /// OpenAI Responses.
    OpenaiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini.
    Gemini,
    /// Model Context Protocol.
    Mcp,
}

impl From<DialectArg> for agent_tools::Dialect {
    fn from(dialect: DialectArg) -> Self {
        match dialect {
            DialectArg::OpenaiChat => agent_tools::Dialect::OpenAiChat,
            DialectArg::OpenaiResponses => agent_tools::Dialect::OpenAiResponses,
            DialectArg::Anthropic => agent_tools::Dialect::Anthropic,
            DialectArg::Gemini => agent_tools::Dialect::Gemini,
            DialectArg::Mcp => agent_tools::Dialect::Mcp,
        }
    }
}

/// `--strict` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StrictArg {
    /// Strict where the provider defaults to it or the tool asks, and the schema allows.
    Auto,
    /// Strict wherever the schema allows.
    Always,
    /// Never strict.
    Never,
}

impl From<StrictArg> for agent_tools::dialect::Strict {
    fn from(strict: StrictArg) -> Self {
        match strict {
            StrictArg::Auto => agent_tools::dialect::Strict::Auto,
            StrictArg::Always => agent_tools::dialect::Strict::Always,
            StrictArg::Never => agent_tools::dialect::Strict::Never,
        }
    }
}

/// `--search-mode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SearchModeArg {
    /// The provider's own tool search where it has one, else `tool_search`.
    Native,
    /// The registry's `tool_search` for every dialect.
    Local,
    /// Every definition in full; no search.
    LoadAll,
}

impl From<SearchModeArg> for agent_tools::search::ToolSearchMode {
    fn from(mode: SearchModeArg) -> Self {
        match mode {
            SearchModeArg::Native => agent_tools::search::ToolSearchMode::Native,
            SearchModeArg::Local => agent_tools::search::ToolSearchMode::Local,
            SearchModeArg::LoadAll => agent_tools::search::ToolSearchMode::LoadAll,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mounts_parse_commands_and_urls() {
        let mount = parse_mount(r#"git=uvx "mcp server" 'a b'\ c --flag"#).unwrap();
        assert_eq!(mount.name, "git");
        let words = ["uvx", "mcp server", "a b c", "--flag"].map(String::from);
        assert_eq!(mount.target, MountTarget::Command(words.to_vec()));
        let mount = parse_mount("docs=http://127.0.0.1:9000/mcp").unwrap();
        assert_eq!(mount.target, MountTarget::Url("http://127.0.0.1:9000/mcp".into()));
        assert!(parse_mount("nocommand").unwrap_err().contains("NAME=COMMAND"));
        assert!(parse_mount("a b=x").unwrap_err().contains("not a usable name"));
        assert!(parse_mount("x=").unwrap_err().contains("no command"));
        assert!(parse_mount(r#"x=say "hi"#).unwrap_err().contains("unclosed"));
        let token = parse_mount_token("docs=DOCS_TOKEN").unwrap();
        assert_eq!((token.name.as_str(), token.var.as_str()), ("docs", "DOCS_TOKEN"));
        for bad in ["docs", "=VAR", "docs="] {
            assert!(
                parse_mount_token(bad)
                    .unwrap_err()
                    .starts_with("expected NAME=VAR"),
                "{bad}"
            );
        }
    }
}
