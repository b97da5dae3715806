//! The core of agent-tools: what a tool is, how its arguments are checked, and how calls
//! are dispatched and audited.
//!
//! - [`Tool`] is the object-safe trait a [`ToolRegistry`] holds; [`TypedTool`] is the
//!   typed form `#[tool]` generates, turned into a `Tool` by one blanket impl.
//! - A tool's [`ToolSpec`](tool::ToolSpec) carries its canonical JSON Schema ([`schema`]), generated once
//!   per argument type; the registry compiles it into a validator at registration and
//!   reports every problem with a model's arguments at once ([`InvalidArguments`](validation::InvalidArguments)).
//! - [`ToolRegistry::call`] never fails: unknown tools, bad JSON, invalid arguments, tool
//!   errors, timeouts, cancellation and panics all become a [`ToolResult`] with
//!   `is_error` set and a message the model can act on. Every call produces an
//!   [`AuditEvent`](audit::AuditEvent).
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
pub mod approval;
pub mod audit;
mod call_state;
pub mod caller;
pub mod context;
pub mod dialect;
mod direct;
mod dynamic;
pub mod error;
pub mod hooks;
pub mod output;
pub mod patch;
pub mod policy;
mod principal;
pub mod registry;
pub mod schema;
pub mod secrets;
mod soft_breaks;
mod spec;
pub mod suggest;
pub mod task;
pub mod testing;
pub mod tokens;
pub mod tool;
mod tool_search;
mod toolset;
mod trace_context;
mod tracer;
mod typed;
pub mod untrusted;
pub mod validation;

// The names almost every program uses; everything else is in the module named for its job.
pub use context::ToolContext;
pub use dialect::Dialect;
pub use error::ToolError;
pub use output::ToolOutput;
pub use registry::{ToolCall, ToolRegistry, ToolResult};
pub use tool::{Tool, TypedTool};

/// Finding tools on demand: deferred definitions and the `tool_search` tool.
pub mod search {
    pub use crate::tool_search::{TOOL_SEARCH, ToolSearchMode, ToolVisibility};
}

/// Following a call across services: the W3C trace context a call carries, and the
/// [`CallTracer`](crate::tracer::CallTracer) hook an OpenTelemetry layer implements.
pub mod trace {
    pub use crate::trace_context::TraceContext;
    pub use crate::tracer::{CallSpan, CallTracer, SpanStart};
}

/// Re-exported so that users name the same versions the macros generate code for.
pub use schemars;
/// Re-exported for argument structs and `Json` outputs.
pub use serde_json;
