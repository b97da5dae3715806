//! [`OtelTracer`]: the GenAI `execute_tool` span of each tool call.

use agent_tools_core::{
    audit::{AuditEvent, Outcome},
    trace::{CallSpan, CallTracer, SpanStart, TraceContext},
};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt as _, Tracer as _, TracerProvider as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::SdkTracer;

use crate::Telemetry;

/// The instrumentation scope spans are reported under.
const SCOPE: &str = "agent-tools";

/// Starts an `execute_tool {tool}` span (kind INTERNAL) for every call of the registry it
/// is given to ([`ToolRegistryBuilder::tracer`](agent_tools_core::registry::ToolRegistryBuilder::tracer)).
///
/// Attributes, after the GenAI semantic conventions: `gen_ai.operation.name`
/// (`execute_tool`), `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`
/// (`function`); on failure `error.type` (`tool_error`, `invalid_arguments`,
/// `unknown_tool`, `timeout`, `cancelled`, `panicked`, `denied`) and an error status with
/// the redacted error text; `user.id` when an authenticated principal made the call, and
/// `agent_tools.outcome`, `agent_tools.session.id`; what the tool recorded for its audit
/// ([`ToolContext::audit_detail`](agent_tools_core::ToolContext::audit_detail)) as
/// `agent_tools.details.<key>`, an object's members each as
/// `agent_tools.details.<key>.<member>` (a mounted tool's `…mount.server`,
/// `…mount.definition_sha256`, `…mount.pinned`). With
/// [`record_payloads`](Self::record_payloads), `gen_ai.tool.call.arguments` and
/// `gen_ai.tool.call.result` (as JSON text, redacted and capped as the audit log has
/// them).
#[derive(Debug, Clone)]
pub struct OtelTracer {
    tracer: SdkTracer,
    payloads: bool,
}

impl OtelTracer {
    /// A tracer exporting through `telemetry`.
    pub fn new(telemetry: &Telemetry) -> Self {
        Self {
            tracer: telemetry.tracer_provider.tracer(SCOPE),
            payloads: false,
        }
    }

    /// Records arguments and results on the spans (opt-in: they may hold what a team
    /// does not want in its tracing system, even redacted).
    pub fn record_payloads(mut self, yes: bool) -> Self {
        self.payloads = yes;
        self
    }
}

impl CallTracer for OtelTracer {
    fn start(&self, call: &SpanStart<'_>) -> Box<dyn CallSpan> {
        let parent = call.parent.map(crate::context::parent).unwrap_or_default();
        let mut attributes = vec![
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            KeyValue::new("gen_ai.tool.name", call.tool.to_owned()),
            KeyValue::new("gen_ai.tool.call.id", call.call_id.to_owned()),
            KeyValue::new("gen_ai.tool.type", "function"),
        ];
        if let Some(session) = call.session_id {
            attributes.push(KeyValue::new("agent_tools.session.id", session.to_owned()));
        }
        if let Some(principal) = call.principal {
            attributes.push(KeyValue::new("user.id", principal.subject.clone()));
        }
        let span = self
            .tracer
            .span_builder(format!("execute_tool {}", call.tool))
            .with_kind(SpanKind::Internal)
            // Given at creation, so that samplers see them.
            .with_attributes(attributes)
            .start_with_context(&self.tracer, &parent);
        Box::new(ToolSpan {
            context: parent.with_span(span),
            payloads: self.payloads,
        })
    }

    fn records_results(&self) -> bool {
        self.payloads
    }
}

/// One call's span, in the context that carries it.
struct ToolSpan {
    context: Context,
    payloads: bool,
}

impl CallSpan for ToolSpan {
    fn context(&self) -> Option<TraceContext> {
        crate::context::of(self.context.span().span_context())
    }

    fn end(self: Box<Self>, event: &AuditEvent, result: Option<&str>) {
        let span = self.context.span();
        span.set_attribute(KeyValue::new("agent_tools.outcome", event.outcome.as_str()));
        for (key, value) in crate::details::attributes(event) {
            span.set_attribute(KeyValue::new(key, value.into_value::<opentelemetry::Value>()));
        }
        if self.payloads {
            span.set_attribute(KeyValue::new(
                "gen_ai.tool.call.arguments",
                event.arguments.to_string(),
            ));
            if let Some(result) = result {
                span.set_attribute(KeyValue::new("gen_ai.tool.call.result", result.to_owned()));
            }
        }
        if event.outcome.is_error() {
            span.set_attribute(KeyValue::new("error.type", error_type(event.outcome)));
            span.set_status(Status::error(event.error.clone().unwrap_or_default()));
        }
        span.end();
    }
}

/// `error.type` of a failed call: low-cardinality, the MCP conventions' `tool_error` for
/// a tool that failed, the outcome's name otherwise.
fn error_type(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Error => "tool_error",
        Outcome::InvalidArguments => "invalid_arguments",
        Outcome::UnknownTool => "unknown_tool",
        Outcome::Timeout => "timeout",
        Outcome::Cancelled => "cancelled",
        Outcome::Panicked => "panicked",
        Outcome::Denied => "denied",
        // The conventions' value for a class without a name of its own.
        _ => "_OTHER",
    }
}
