//! [`TracingAudit`]: audit events as `tracing` events, for applications that already
//! collect logs that way.

use super::{AuditEvent, AuditSink};

/// Emits each call as a `tracing` event with target `agent_tools::audit`: `INFO` for
/// successful calls, `WARN` for failed ones.
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingAudit;

impl AuditSink for TracingAudit {
    fn record(&self, event: &AuditEvent) {
        let duration_ms = event.duration.as_secs_f64() * 1000.0;
        let error = event.error.as_deref().unwrap_or("");
        let session_id = event.session_id.as_deref().unwrap_or("");
        if event.outcome.is_error() {
            tracing::warn!(
                target: "agent_tools::audit",
                tool = %event.tool,
                call_id = %event.call_id,
                session_id,
                outcome = event.outcome.as_str(),
                duration_ms,
                output_bytes = event.output_bytes,
                arguments = %event.arguments,
                error,
                "tool call failed"
            );
        } else {
            tracing::info!(
                target: "agent_tools::audit",
                tool = %event.tool,
                call_id = %event.call_id,
                session_id,
                outcome = event.outcome.as_str(),
                duration_ms,
                output_bytes = event.output_bytes,
                arguments = %event.arguments,
                "tool call"
            );
        }
    }
}
