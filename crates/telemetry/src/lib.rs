//! OpenTelemetry for agent-tools: tool calls traced next to the model calls, in the
//! tracing system a team already runs.
//!
//! - [`OtelTracer`], a [`CallTracer`](agent_tools_core::trace::CallTracer): one span per tool call,
//!   named and attributed by the GenAI semantic conventions (`execute_tool {tool}`,
//!   `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `error.type`;
//!   v1.41.0, where the conventions were last published in the core repository). The
//!   span continues the trace the call came with — over MCP, the client's
//!   `_meta.traceparent` — and the calls the tool makes in turn (a mounted MCP server's)
//!   carry the span on, so one trace runs from the client through every hop. Arguments
//!   and results are recorded only on opt-in ([`OtelTracer::record_payloads`]), redacted
//!   as the audit log redacts them.
//! - [`OtlpAudit`], an [`AuditSink`](agent_tools_core::audit::AuditSink): each audit event as an OTLP
//!   log record (`agent_tools.tool_call`), carrying the call's trace and span ids.
//! - [`Telemetry`]: the OTLP/HTTP exporters (protobuf) for both, configured by the
//!   standard `OTEL_*` variables (endpoint, headers, timeout, compression, service name,
//!   resource attributes, sampler, batching), `OTEL_SDK_DISABLED` and
//!   `OTEL_TRACES_EXPORTER`/`OTEL_LOGS_EXPORTER=none` included, with an endpoint given
//!   in code winning over the environment.
//!
//! ```no_run
//! # async fn example() -> Result<(), agent_tools_telemetry::TelemetryError> {
//! use agent_tools_telemetry::{OtelTracer, OtlpAudit, Telemetry};
//!
//! // Inside the tokio runtime that will carry the exports.
//! let Some(telemetry) = Telemetry::builder().endpoint("http://127.0.0.1:4318").build()? else {
//!     return Ok(()); // OTEL_SDK_DISABLED=true
//! };
//! let registry = agent_tools_core::ToolRegistry::builder()
//!     .tracer(OtelTracer::new(&telemetry))
//!     .audit(OtlpAudit::new(&telemetry))
//!     .build();
//! // … serve or call tools …
//! telemetry.shutdown().await; // flushes what is queued
//! # Ok(())
//! # }
//! ```
//!
//! What this does not do: traces leave the process in batches (every 5 s, or when 512
//! spans are queued), so a process killed outright loses the spans and log records of its
//! last seconds; the audit log that must not lose a call is the JSONL file or
//! PostgreSQL, not this one.

#![warn(missing_docs)]
// On docs.rs, each item says which features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod audit;
mod context;
mod details;
mod http_client;
mod span;
mod telemetry;

pub use audit::OtlpAudit;
pub use span::OtelTracer;
pub use telemetry::{Telemetry, TelemetryBuilder, TelemetryError};
