//! Trace contexts between agent-tools' [`TraceContext`] (what calls carry) and
//! OpenTelemetry's span contexts.

use std::str::FromStr as _;

use agent_tools_core::trace::TraceContext;
use opentelemetry::Context;
use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState};

/// An OpenTelemetry context whose (remote) span is `trace`: the parent of a span started
/// under it.
pub(crate) fn parent(trace: &TraceContext) -> Context {
    let span = SpanContext::new(
        TraceId::from_hex(trace.trace_id()).unwrap_or(TraceId::INVALID),
        SpanId::from_hex(trace.span_id()).unwrap_or(SpanId::INVALID),
        if trace.sampled() {
            TraceFlags::SAMPLED
        } else {
            TraceFlags::default()
        },
        true,
        trace
            .tracestate()
            .and_then(|state| TraceState::from_str(state).ok())
            .unwrap_or_default(),
    );
    Context::new().with_remote_span_context(span)
}

/// `span` as a trace context to carry on; `None` when it is not valid.
pub(crate) fn of(span: &SpanContext) -> Option<TraceContext> {
    if !span.is_valid() {
        return None;
    }
    let flags = if span.is_sampled() { "01" } else { "00" };
    let traceparent = format!("00-{}-{}-{flags}", span.trace_id(), span.span_id());
    let state = span.trace_state().header();
    TraceContext::parse(&traceparent, (!state.is_empty()).then_some(state.as_str()))
}
