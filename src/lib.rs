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
//! Attributes: `name = "..."`, `title = "..."`, `description = "..."` (else the doc
//! comment, which is required), `read_only`, `destructive`, `idempotent`, `open_world`,
//! `strict`, `timeout = "30s"`, `enabled = <expr>` (in toolsets) and `crate = path`.
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

#![warn(missing_docs)]

// Lets `#[tool]` name this crate `::agent_tools` in its own tests, examples and benches.
extern crate self as agent_tools;

#[cfg(feature = "cli")]
pub mod cli;

pub use tool_core::*;
pub use tool_macros::{tool, toolset};

/// The built-in agent tools: one Cargo feature per family (`fs`, `shell`, `web`, `memory`,
/// `agent`, `screen`, `media`; `builtins` for all).
#[cfg(feature = "builtin-tools")]
pub use builtin_tools;

/// MCP: serve a registry to MCP clients ([`serve_stdio`](mcp::serve_stdio),
/// [`serve_http`](mcp::serve_http)) and mount MCP servers' tools into a registry.
#[cfg(feature = "mcp")]
pub use tool_mcp as mcp;

/// PostgreSQL: the connection pool the memory store uses, and the audit log in a table
/// ([`PostgresAudit`](postgres::PostgresAudit)).
#[cfg(feature = "postgres")]
pub use tool_postgres as postgres;

/// OpenTelemetry: a GenAI `execute_tool` span per call ([`OtelTracer`](telemetry::OtelTracer))
/// and audit events as OTLP log records ([`OtlpAudit`](telemetry::OtlpAudit)).
#[cfg(feature = "telemetry")]
pub use tool_telemetry as telemetry;

/// The examples in README.md, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
