//! [`CallTracer`]: a span per tool call, in whatever tracing system the application runs.

use crate::{audit::AuditEvent, principal::Principal, trace_context::TraceContext};

/// Starts a span per tool call, in whatever tracing system the application runs.
///
/// The registry starts a span when a call begins (under the trace context the call came
/// with, [`ToolCall::with_trace_context`](crate::registry::ToolCall::with_trace_context)), gives
/// the tool the span's own context ([`ToolContext::trace_context`](crate::context::ToolContext::trace_context))
/// so that its outgoing calls continue the trace, and ends the span with the call's
/// [`AuditEvent`] — arguments and error text redacted as the audit log has them — when
/// the call ends, however it ends (cancelled calls included).
///
/// This crate only defines the interface, with no tracing dependency; the
/// `agent-tools-telemetry` crate implements it with OpenTelemetry.
pub trait CallTracer: Send + Sync + 'static {
    /// Starts the span of a call that is beginning.
    fn start(&self, call: &SpanStart<'_>) -> Box<dyn CallSpan>;

    /// Whether [`CallSpan::end`] should get the result's text (redacted). Default
    /// false: results are often large and may hold what the arguments' redaction cannot
    /// see, so a tracer asks for them only when its user opted in.
    fn records_results(&self) -> bool {
        false
    }
}

/// What the registry knows of a call when its span starts.
#[derive(Debug)]
#[non_exhaustive]
pub struct SpanStart<'a> {
    /// The provider's call id.
    pub call_id: &'a str,
    /// The tool name as called (possibly unknown to the registry).
    pub tool: &'a str,
    /// The trace context the call came with: the new span's parent.
    pub parent: Option<&'a TraceContext>,
    /// The session the call belongs to, if named.
    pub session_id: Option<&'a str>,
    /// Who the call is made for, if the transport authenticated someone.
    pub principal: Option<&'a Principal>,
}

/// The span of one call in progress.
pub trait CallSpan: Send + 'static {
    /// The span's own context, which the call's outgoing requests carry; `None` when the
    /// span is not recorded and carries nothing on.
    fn context(&self) -> Option<TraceContext>;

    /// Ends the span: `event` says how the call went (with its redacted arguments and
    /// error text), `result` is the result's redacted text when
    /// [`CallTracer::records_results`] asked for it.
    fn end(self: Box<Self>, event: &AuditEvent, result: Option<&str>);
}
