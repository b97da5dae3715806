//! The command line, as clap parses it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// List, describe and call agent tools.
#[derive(Debug, Parser)]
#[command(name = "agent-tools", version, about, propagate_version = true)]
#[command(
    after_help = "Examples:\n  agent-tools list\n  agent-tools schema --tool read_file\n  agent-tools --workspace ./project call read_file '{\"path\": \"README.md\"}'"
)]
pub struct Cli {
    /// Options shared by all commands.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options accepted before or after the subcommand.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// The directory tools may work in (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// A TOML configuration file.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Append one JSON line per tool call to this file.
    #[arg(long, global = true, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
    /// Let web_fetch reach private, loopback and link-local addresses (turns the SSRF
    /// guard off).
    #[arg(long, global = true)]
    pub allow_private_network: bool,
    /// The memory database (default: the workspace's `.agent-tools/memory.db`).
    #[arg(long, global = true, value_name = "FILE")]
    pub memory_db: Option<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the tools: name, hints, and the first sentence of the description.
    #[command(after_help = "Example:\n  agent-tools list")]
    List,
    /// Print tool definitions as a JSON array, in a provider's format.
    #[command(
        after_help = "Examples:\n  agent-tools schema\n  agent-tools schema --dialect gemini --tool read_file\n  agent-tools schema --dialect anthropic --strict always\n\nTools whose schema has no strict form, or that a provider cannot take as they are, are\nnamed on stderr with the reason."
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
    },
    /// Call one tool and print its text output (exit status 1 if the result is an error).
    #[command(
        after_help = "Examples:\n  agent-tools call read_file '{\"path\": \"README.md\"}'\n  echo '{\"path\": \"README.md\"}' | agent-tools call read_file -\n  agent-tools call read_file '{\"path\": \"README.md\"}' --json"
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
    },
}

/// `--dialect` values.
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

impl From<DialectArg> for crate::Dialect {
    fn from(dialect: DialectArg) -> Self {
        match dialect {
            DialectArg::OpenaiChat => crate::Dialect::OpenAiChat,
            DialectArg::OpenaiResponses => crate::Dialect::OpenAiResponses,
            DialectArg::Anthropic => crate::Dialect::Anthropic,
            DialectArg::Gemini => crate::Dialect::Gemini,
            DialectArg::Mcp => crate::Dialect::Mcp,
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

impl From<StrictArg> for crate::Strict {
    fn from(strict: StrictArg) -> Self {
        match strict {
            StrictArg::Auto => crate::Strict::Auto,
            StrictArg::Always => crate::Strict::Always,
            StrictArg::Never => crate::Strict::Never,
        }
    }
}
