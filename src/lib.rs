//! # agent-tools
//!
//! Typed, validated, sandboxed tools for LLM agents.
//!
//! Annotate an async function whose argument is a typed struct with [`#[tool]`](macro@tool) and
//! get a tool with a JSON Schema generated from the struct (doc comments become
//! descriptions), argument validation that reports every problem in words a model can act
//! on, and provider definitions. A [`ToolRegistry`] dispatches calls safely — timeouts,
//! cancellation, panic isolation — and keeps an audit log.
//!
//! ```
//! use agent_tools::{tool, Dialect, ToolCall, ToolRegistry};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! /// Arguments of `add`.
//! #[derive(Deserialize, JsonSchema)]
//! struct AddArgs {
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! }
//!
//! /// Add two integers.
//! #[tool(read_only)]
//! async fn add(args: AddArgs) -> String {
//!     (args.a + args.b).to_string()
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), agent_tools::error::RegistryError> {
//! let registry = ToolRegistry::new();
//! registry.register(AddTool)?;
//! let definitions = registry.definitions(Dialect::OpenAiChat);
//! assert_eq!(definitions[0]["function"]["name"], "add");
//!
//! let result = registry.call(ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#)).await;
//! assert_eq!(result.text(), "5");
//!
//! let result = registry.call(ToolCall::new("call_2", "add", r#"{"a": "2"}"#)).await;
//! assert!(result.is_error());
//! assert_eq!(
//!     result.text(),
//!     "invalid arguments for `add`:\n\
//!      - `/a`: expected integer, got string \"2\"\n\
//!      - `/b`: required property is missing"
//! );
//! # Ok(())
//! # }
//! ```
//!
//! ## The guide
//!
//! The [`guide`] says the rest, one chapter per subject; every example in it is a doc
//! test:
//!
//! - [Writing tools](guide::tools): the dependencies a crate of tools needs, `#[tool]`'s
//!   parameters, return types and attributes, `#[toolset]`, the tests each tool gets, and
//!   talking to the caller (log messages, questions, the caller's model);
//! - [Calling tools](guide::registry): the registry, the audit log and its redaction,
//!   the provider dialects ([`ToolRegistry::definitions`], [`Dialect::tool_result`]) and
//!   what each changes of the canonical schema;
//! - [Deciding what runs](guide::policy): policy, approval, hooks, limits;
//! - [Large tool sets](guide::tool_search): deferred tools and tool search;
//! - the built-in tools (feature `builtins`), MCP (`mcp`, `oauth`), telemetry
//!   (`telemetry`) and deployment (`postgres`), compiled in with those features;
//! - [the command line](guide::cli), [performance](guide::performance) and
//!   [development](guide::development).

#![warn(missing_docs)]
// On docs.rs, each item says which features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod guide;

// Lets `#[tool]` name this crate `::agent_tools` in its own tests, examples and benches.
extern crate self as agent_tools;

pub use agent_tools_core::*;

/// Turns an `async fn` (or a plain `fn`, which runs on Tokio's blocking pool) into a
/// tool: generates `<PascalName>Tool`, which implements [`TypedTool`]; see [Writing
/// tools](crate::guide::tools) for its parameters and return types.
///
/// # Attributes
///
/// All optional; flags take `= false` too (`destructive = false`).
///
/// | attribute | example | what it says |
/// |---|---|---|
/// | `name` | `#[tool(name = "read")]` | the tool's name; default the function's |
/// | `title` | `#[tool(title = "Read file")]` | a title for people (MCP `title`) |
/// | `description` | `#[tool(description = "Read a file.")]` | what the model reads; default the doc comment (one of the two is required) |
/// | `read_only` | `#[tool(read_only)]` | changes nothing (MCP `readOnlyHint`); a policy runs it without asking |
/// | `destructive` | `#[tool(destructive = false)]` | may delete or overwrite (MCP `destructiveHint`; MCP's default when a tool states nothing) |
/// | `idempotent` | `#[tool(idempotent)]` | calling it twice is calling it once (MCP `idempotentHint`) |
/// | `open_world` | `#[tool(open_world = false)]` | reaches things outside this program, such as the web (MCP `openWorldHint`, also a default) |
/// | `strict` | `#[tool(strict)]` | ask providers for strict, schema-constrained arguments |
/// | `timeout` | `#[tool(timeout = "30s")]` | the call's deadline (else the registry's, 60 s by default) |
/// | `cancel_grace` | `#[tool(cancel_grace = "3s")]` | after a cancellation, how long the tool may take to return what it has |
/// | `retries` | `#[tool(retries = 2)]` | how many [`ToolError::retry`] answers in a row a session gets |
/// | `max_concurrency` | `#[tool(max_concurrency = 4)]` | at most this many calls at once; the rest wait |
/// | `max_result_tokens` | `#[tool(max_result_tokens = 20000)]` | its results fitted to this many tokens of the model's context, counted for the call's dialect (else the registry's budget): see [`ToolRegistryBuilder::max_result_tokens`](registry::ToolRegistryBuilder::max_result_tokens) |
/// | `edits_files` | `#[tool(edits_files)]` | only edits files in the workspace: policy mode `accept_edits` runs it |
/// | `preview` | `#[tool(preview = describe)]` | a `fn(&Args) -> Option<String>` that tells a person asked to approve what the call would do |
/// | `defer` | `#[tool(defer)]` | the definition is loaded on demand, through a tool search |
/// | `kinds` | `#[tool(kinds(command = command, cwd = path))]` | what arguments are — `command` (a shell script), `path` (in the workspace), `url`, `env` (variables), `patch` (a Codex patch: the paths it names) — so policy rules over them see the parsed value ([`ArgumentKind`](tool::ArgumentKind)) |
/// | `headers` | `#[tool(headers(region = "Region"))]` | arguments MCP clients (2026-07-28) also send as the HTTP header `Mcp-Param-Region`, for a proxy to route on; a string, integer or boolean argument ([`ToolMeta::header_argument`](tool::ToolMeta::header_argument)) |
/// | `task` | `#[tool(task = "optional")]` | calls may run as MCP tasks (`"optional"`, `"required"`, `"forbidden"`; else the registry's default): see [`TaskSupport`](tool::TaskSupport) |
/// | `explicit_task_start` | `#[tool(task = "required", explicit_task_start)]` | a task call runs within its request until the tool calls [`ToolContext::start_task`] ([`ToolMeta::explicit_task_start`](tool::ToolMeta::explicit_task_start)) |
/// | `freeform` | `#[tool(freeform = Freeform::lark(GRAMMAR, "input"))]` | the tool also takes one raw text filling that string argument, offered as an OpenAI custom tool when a request asks ([`ToolMeta::freeform`](tool::ToolMeta::freeform)) |
/// | `enabled` | `#[tool(enabled = self.web)]` | in a [`#[toolset]`](toolset): registered only when the expression is true |
/// | `crate` | `#[tool(crate = my_app::agent_tools)]` | where this crate is, when it is reached through a re-export |
///
/// A tool that states none of `read_only`, `destructive` and `open_world` counts as
/// destructive and open-world, as MCP says; under a [`Policy`](policy::Policy) in its default mode it
/// then needs a person's approval ([`PolicyMode::Default`](policy::PolicyMode::Default)). State what the tool does.
///
/// ```
/// use agent_tools::{tool, ToolError};
///
/// /// Replace a note's text.
/// #[tool(
///     title = "Edit note",
///     destructive,
///     idempotent,
///     open_world = false,
///     timeout = "10s",
///     max_concurrency = 1,
///     preview = describe_edit,
/// )]
/// async fn edit_note(
///     /// The note's name.
///     name: String,
///     /// Its new text.
///     text: String,
/// ) -> Result<String, ToolError> {
///     Ok(format!("{name} now reads {} characters", text.len()))
/// }
///
/// /// What a person approving the call sees.
/// fn describe_edit(args: &EditNoteArgs) -> Option<String> {
///     Some(format!("replace the text of `{}`", args.name))
/// }
///
/// let spec = agent_tools::Tool::spec(&EditNoteTool);
/// assert_eq!(spec.meta.name, "edit_note");
/// assert_eq!(spec.meta.annotations.destructive, Some(true));
/// assert_eq!(spec.meta.max_concurrency, Some(1));
/// ```
pub use agent_tools_macros::tool;
pub use agent_tools_macros::toolset;

/// The built-in agent tools: one Cargo feature per family (`fs`, `shell`, `web`, `memory`,
/// `agent`, `screen`, `media`, `image`, `plan`; `builtins` for all).
#[cfg(any(
    feature = "fs",
    feature = "shell",
    feature = "web",
    feature = "memory",
    feature = "agent",
    feature = "screen",
    feature = "media",
    feature = "image",
    feature = "plan"
))]
pub use agent_tools_builtins as builtins;

/// MCP: serve a registry to MCP clients ([`serve_stdio`](mcp::serve_stdio),
/// [`serve_http`](mcp::serve_http)) and mount MCP servers' tools into a registry.
#[cfg(feature = "mcp")]
pub use agent_tools_mcp as mcp;

/// PostgreSQL: the connection pool the memory store uses, and the audit log in a table
/// ([`PostgresAudit`](postgres::PostgresAudit)).
#[cfg(feature = "postgres")]
pub use agent_tools_postgres as postgres;

/// OpenTelemetry: a GenAI `execute_tool` span per call ([`OtelTracer`](telemetry::OtelTracer))
/// and audit events as OTLP log records ([`OtlpAudit`](telemetry::OtlpAudit)).
#[cfg(feature = "telemetry")]
pub use agent_tools_telemetry as telemetry;

/// The example in README.md, compiled and run as a doc test (the guide's are in [`guide`]).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
