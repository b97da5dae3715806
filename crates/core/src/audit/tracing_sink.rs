//! [`TracingAudit`]: audit events as `tracing` events, for applications that already
//! collect logs that way.

use super::{AuditEvent, AuditSink};

/// Emits each call as a `tracing` event with target `agent_tools::audit`: `INFO` for
/// successful calls, `WARN` for failed ones.
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingAudit;

/// One `tracing` event at `$level` with every field of the audit event.
macro_rules! audit_event {
    ($level:expr, $event:expr, $message:literal) => {{
        let event: &AuditEvent = $event;
        tracing::event!(
            target: "agent_tools::audit",
            $level,
            tool = %event.tool,
            call_id = %event.call_id,
            session_id = event.session_id.as_deref().unwrap_or(""),
            outcome = event.outcome.as_str(),
            duration_ms = event.duration.as_secs_f64() * 1000.0,
            output_bytes = event.output_bytes,
            arguments = %event.arguments,
            error = event.error.as_deref().unwrap_or(""),
            $message
        )
    }};
}

impl AuditSink for TracingAudit {
    fn record(&self, event: &AuditEvent) {
        // The level of a `tracing` event is part of its static metadata, hence one call
        // per level.
        if event.outcome.is_error() {
            audit_event!(tracing::Level::WARN, event, "tool call failed");
        } else {
            audit_event!(tracing::Level::INFO, event, "tool call");
        }
    }
}
