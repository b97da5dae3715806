//! [`OtlpAudit`]: audit events as OTLP log records.

use agent_tools_core::audit::{AuditEvent, AuditSink};
use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _, Severity};
use opentelemetry::trace::{SpanId, TraceFlags, TraceId};
use opentelemetry_sdk::logs::SdkLogger;

use crate::Telemetry;

/// The instrumentation scope audit records are reported under.
const SCOPE: &str = "agent-tools.audit";

/// The event name of every record.
const EVENT_NAME: &str = "agent_tools.tool_call";

/// Sends each audit event to the OTLP logs pipeline: event name `agent_tools.tool_call`,
/// body `tool <name>: <outcome>`, severity INFO (WARN for failed calls), the call's trace
/// and span ids, and the event's fields as attributes (`gen_ai.tool.name`,
/// `gen_ai.tool.call.id`, `agent_tools.outcome`, `agent_tools.duration_ms`,
/// `agent_tools.output_bytes`, `agent_tools.session.id`, `user.id`, `client.id`,
/// `agent_tools.error`, `agent_tools.arguments` as redacted JSON, and each of what the tool
/// recorded, [`AuditEvent::details`], as `agent_tools.details.<key>` — an object's members each
/// as `agent_tools.details.<key>.<member>`; strings, booleans and numbers typed, the rest as
/// JSON). Records leave in batches; see the crate docs for what that means when a process
/// is killed.
#[derive(Debug, Clone)]
pub struct OtlpAudit {
    logger: SdkLogger,
}

impl OtlpAudit {
    /// A sink exporting through `telemetry`.
    pub fn new(telemetry: &Telemetry) -> Self {
        Self {
            logger: telemetry.logger_provider.logger(SCOPE),
        }
    }
}

impl AuditSink for OtlpAudit {
    fn record(&self, event: &AuditEvent) {
        let mut record = self.logger.create_log_record();
        record.set_event_name(EVENT_NAME);
        record.set_timestamp(event.timestamp);
        let (severity, text) = match event.outcome.is_error() {
            true => (Severity::Warn, "WARN"),
            false => (Severity::Info, "INFO"),
        };
        record.set_severity_number(severity);
        record.set_severity_text(text);
        record.set_body(AnyValue::from(format!(
            "tool {}: {}",
            event.tool,
            event.outcome.as_str()
        )));
        record.add_attribute("gen_ai.tool.name", event.tool.clone());
        record.add_attribute("gen_ai.tool.call.id", event.call_id.clone());
        record.add_attribute("agent_tools.outcome", event.outcome.as_str());
        record.add_attribute("agent_tools.duration_ms", event.duration.as_secs_f64() * 1000.0);
        record.add_attribute(
            "agent_tools.output_bytes",
            i64::try_from(event.output_bytes).unwrap_or(i64::MAX),
        );
        record.add_attribute("agent_tools.arguments", event.arguments.to_string());
        for (key, value) in crate::details::attributes(event) {
            record.add_attribute(key, value.into_value::<AnyValue>());
        }
        let optional = [
            ("agent_tools.session.id", &event.session_id),
            ("user.id", &event.subject),
            ("client.id", &event.client_id),
            ("agent_tools.error", &event.error),
        ];
        for (key, value) in optional {
            if let Some(value) = value {
                record.add_attribute(key, value.clone());
            }
        }
        if let (Some(trace), Some(span)) = (&event.trace_id, &event.span_id)
            && let (Ok(trace), Ok(span)) = (TraceId::from_hex(trace), SpanId::from_hex(span))
        {
            record.set_trace_context(trace, span, Some(TraceFlags::SAMPLED));
        }
        self.logger.emit(record);
    }
}
