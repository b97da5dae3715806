//! # agent-tools
//!
//! Typed, validated, sandboxed tools for LLM agents.
//!
//! Annotate an async function whose argument is a typed struct with [`#[tool]`](tool) and
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
//! # async fn main() -> Result<(), agent_tools::RegistryError> {
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
//! ## Dependencies
//!
//! The crates need Rust 1.95 or newer (their `rust-version`; CI lints with that
//! toolchain).
//!
//! Argument structs derive serde's `Deserialize` and schemars' `JsonSchema`, and tools
//! run on Tokio, so a crate of tools depends on those too — at the major versions this
//! crate uses (serde 1 and schemars 1: a `JsonSchema` of schemars 0.8 is another trait,
//! and the struct is then refused as tool arguments):
//!
//! ```toml
//! [dependencies]
//! agent-tools = { version = "0.1", default-features = false }  # + features: mcp, fs, shell, …
//! serde = { version = "1", features = ["derive"] }
//! schemars = "1"
//! serde_json = "1"
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! ```
//!
//! A tool with plain parameters (`async fn add(a: i64, b: i64)`) needs neither serde nor
//! schemars in the crate: `#[tool]` derives the arguments through this crate.
//!
//! ## Writing tools
//!
//! `#[tool]` goes on a free `async fn` (a plain `fn` runs on Tokio's blocking pool) and
//! generates a `<Name>Tool` struct implementing [`TypedTool`]. Its parameters are, in any
//! order:
//!
//! - **the arguments**: one struct deriving `Deserialize` and `JsonSchema` (named `args`,
//!   or of a type whose name ends in `Args`, or marked `#[args]`) — or plain parameters
//!   (`path: String, limit: Option<u32>`), from which the macro generates the struct;
//!   `///` on a plain parameter becomes its description;
//! - optionally **one state** parameter `&State`: the tool struct then holds an
//!   `Arc<State>` and is built with `ReadFileTool::new(state)`;
//! - optionally **`&ToolContext`**: ids, cancellation, deadline, extensions, progress.
//!
//! It returns `T` or `Result<T, E>` where `T:` [`IntoToolOutput`] (`String`, `&str`, `()`,
//! `serde_json::Value`, [`Json<T>`](Json), [`Image`], [`Audio`], [`Content`], [`ToolOutput`])
//! and `E` implements `Display` or `Into<ToolError>`. A [`ToolOutput`]'s parts are MCP's
//! kinds (text, image, audio, embedded resource, resource link), each with optional
//! [`ContentAnnotations`].
//!
//! Attributes (each with an example in [`macro@tool`]'s docs): `name`, `title`,
//! `description` (else the doc comment, which is required), `read_only`, `destructive`,
//! `idempotent`, `open_world`, `strict`, `timeout`, `cancel_grace`, `retries`,
//! `max_concurrency`, `edits_files`, `preview`, `defer`, `kinds`, `enabled` (in
//! toolsets) and `crate`.
//!
//! [`#[toolset]`](toolset) on an `impl` block turns its `#[tool]` methods (taking `&self`)
//! into tools sharing the value, implements [`Toolset`] and adds
//! `register_all(self: Arc<Self>, &ToolRegistry)`.
//!
//! A synchronous tool runs on Tokio's blocking pool; when its call times out or is
//! cancelled, the caller gets its result at once, but the thread runs the function to its
//! end (threads cannot be stopped), and its result is dropped. Long synchronous work
//! should check [`ToolContext::is_cancelled`].
//!
//! Every `#[tool]` also emits a `#[cfg(test)]` test that builds its spec, its schema
//! validator and its definition in every provider dialect, and checks each against the
//! provider's documented rules ([`testing`]), so `cargo test` catches an unusable schema
//! or a definition a provider would reject. (Define tools at module level; a test inside a
//! function body cannot run.)
//!
//! ## Providers
//!
//! [`ToolRegistry::definitions`] renders the tools for OpenAI Chat and Responses,
//! Anthropic, Gemini or MCP ([`Dialect`]), strict where the provider and the schema allow
//! ([`DefinitionOptions`], [`Strict`]); [`Dialect::tool_result`] renders a call's result as
//! that provider's message, carrying what its format can and saying in text what it
//! cannot (a part meant for the user only becomes a note). Each dialect is a transformation of the one canonical schema;
//! see the `dialect` table in the README for what each changes.
//!
//! ## MCP
//!
//! [`mcp::serve_stdio`] and [`mcp::serve_http`] serve any registry to MCP clients, with
//! the registry's validation, timeouts and audit log; [`mcp::MountMcp::mount_mcp`]
//! brings another MCP server's tools into a registry. The `agent-tools` binary
//! (`agent-tools serve`) does both for the built-in tools.
//!
//! A server is named `agent-tools` unless you name it: clients show the name and
//! version, and may give the model its instructions.
//!
//! ```no_run
//! # #[cfg(feature = "mcp")]
//! # async fn serve(registry: agent_tools::ToolRegistry) -> Result<(), agent_tools::mcp::ServeError> {
//! agent_tools::mcp::McpHandler::new(registry)
//!     .server_info("notes-server", env!("CARGO_PKG_VERSION"))
//!     .instructions("Note names are case-sensitive.")
//!     .serve_stdio()
//!     .await
//! # }
//! ```

#![warn(missing_docs)]
// On docs.rs, each item says which features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// Lets `#[tool]` name this crate `::agent_tools` in its own tests, examples and benches.
extern crate self as agent_tools;

pub use agent_tools_core::*;

/// Turns an `async fn` (or a plain `fn`, which runs on Tokio's blocking pool) into a
/// tool: generates `<PascalName>Tool`, which implements [`TypedTool`]; see [Writing
/// tools](crate#writing-tools) for its parameters and return types.
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
/// | `edits_files` | `#[tool(edits_files)]` | only edits files in the workspace: policy mode `accept_edits` runs it |
/// | `preview` | `#[tool(preview = describe)]` | a `fn(&Args) -> Option<String>` that tells a person asked to approve what the call would do |
/// | `defer` | `#[tool(defer)]` | the definition is loaded on demand, through a tool search |
/// | `kinds` | `#[tool(kinds(command = command, cwd = path))]` | what arguments are — `command` (a shell script), `path` (in the workspace), `url`, `env` (variables) — so policy rules over them see the parsed value ([`ArgumentKind`]) |
/// | `enabled` | `#[tool(enabled = self.web)]` | in a [`#[toolset]`](toolset): registered only when the expression is true |
/// | `crate` | `#[tool(crate = my_app::agent_tools)]` | where this crate is, when it is reached through a re-export |
///
/// A tool that states none of `read_only`, `destructive` and `open_world` counts as
/// destructive and open-world, as MCP says; under a [`Policy`] in its default mode it
/// then needs a person's approval ([`PolicyMode::Default`]). State what the tool does.
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
/// assert_eq!(spec.name, "edit_note");
/// assert_eq!(spec.annotations.destructive, Some(true));
/// assert_eq!(spec.max_concurrency, Some(1));
/// ```
pub use agent_tools_macros::tool;
pub use agent_tools_macros::toolset;

/// The built-in agent tools: one Cargo feature per family (`fs`, `shell`, `web`, `memory`,
/// `agent`, `screen`, `media`; `builtins` for all).
#[cfg(any(
    feature = "fs",
    feature = "shell",
    feature = "web",
    feature = "memory",
    feature = "agent",
    feature = "screen",
    feature = "media"
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

/// The examples in README.md, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
