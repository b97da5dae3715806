//! The core of agent-tools: what a tool is, how its arguments are checked, and how calls
//! are dispatched and audited.
//!
//! - [`Tool`] is the object-safe trait a [`ToolRegistry`] holds; [`TypedTool`] is the
//!   typed form `#[tool]` generates, turned into a `Tool` by one blanket impl.
//! - A tool's [`ToolSpec`] carries its canonical JSON Schema ([`schema`]), generated once
//!   per argument type; the registry compiles it into a validator at registration and
//!   reports every problem with a model's arguments at once ([`InvalidArguments`]).
//! - [`ToolRegistry::call`] never fails: unknown tools, bad JSON, invalid arguments, tool
//!   errors, timeouts, cancellation and panics all become a [`ToolResult`] with
//!   `is_error` set and a message the model can act on. Every call produces an
//!   [`AuditEvent`].
//!
//! Most applications use this crate through the `agent-tools` facade.

#![warn(missing_docs)]
// On docs.rs, each item says which features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// Lets `#[tool]` name this crate `::agent_tools_core` from inside it as well (its tests).
extern crate self as agent_tools_core;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;
mod append;
mod approval;
mod audit;
mod caller;
mod context;
mod dialect;
mod dynamic;
mod error;
mod hooks;
mod output;
mod policy;
mod principal;
mod registry;
pub mod schema;
pub mod secrets;
mod soft_breaks;
mod spec;
pub mod suggest;
pub mod testing;
mod tool;
mod tool_search;
mod toolset;
mod trace_context;
mod tracer;
mod typed;
mod validation;

pub use approval::{Approval, ApprovalRequest, ApproveLater, Approver, PendingCall, ResumeError};
pub use audit::{AuditEvent, AuditSink, JsonlAudit, MemoryAudit, Outcome, TracingAudit};
pub use caller::{
    Caller, CallerError, ElicitAction, ElicitRequest, ElicitResponse, Elicited, LogLevel, LogMessage, Role,
    SamplingContent, SamplingMessage, SamplingRequest, SamplingResponse, form_schema_for,
};
pub use context::{Extensions, Progress, ProgressReporter, ToolContext};
pub use dialect::{
    Definition, DefinitionOptions, Dialect, GeminiSchema, SchemaIssue, Strict, UnknownDialect,
};
pub use dynamic::DynamicTool;
pub use error::{RegistryError, SchemaError, ToolError, ToolErrorKind, error_chain};
pub use hooks::{BeforeCall, Hook, HookCall};
pub use output::{
    Audience, Audio, Content, ContentAnnotations, Image, IntoToolOutput, Json, ResourceContents, ToolOutput,
};
pub use policy::glob::{Glob, GlobError};
pub use policy::{
    Explanation, Policy, PolicyBuilder, PolicyError, PolicyExample, PolicyMode, Reason, RuleList,
    SeenArgument, ToolVerdict, Verdict, is_dangerous_variable,
};
pub use principal::Principal;
pub use registry::{
    ToolArguments, ToolCall, ToolChanges, ToolRegistry, ToolRegistryBuilder, ToolResult, WeakToolRegistry,
};
pub use spec::{ArgumentKind, ToolAnnotations, ToolMeta, ToolNameError, ToolSpec, validate_tool_name};
pub use tool::{BoxFuture, Tool};
pub use tool_search::{TOOL_SEARCH, ToolSearchMode, ToolVisibility};
pub use toolset::Toolset;
pub use trace_context::TraceContext;
pub use tracer::{CallSpan, CallTracer, SpanStart};
pub use typed::{ToolArgs, TypedTool};
pub use validation::{ArgValidator, InvalidArguments};

/// Re-exported so that users name the same versions the macros generate code for.
pub use schemars;
/// Re-exported for argument structs and `Json` outputs.
pub use serde_json;
/// Re-exported for [`ToolContext::cancellation`] tokens.
pub use tokio_util::sync::CancellationToken;
