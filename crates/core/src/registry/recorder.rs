//! Collects what the audit log and the call's span need while a call runs, and records
//! it exactly once — also when the caller drops the call before it finishes.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use super::call::CallOptions;
use super::{Config, ToolArguments, ToolResult};
use crate::{
    audit::{ApprovalRecord, AuditDetails, AuditEvent, AuditSink, Outcome},
    caller::Caller,
    principal::Principal,
    tool::BoxFuture,
    trace_context::TraceContext,
    tracer::{CallSpan, SpanStart},
};

/// The audit record (and span) of one call in progress; does nothing when there are no
/// sinks and no tracer.
pub(crate) struct AuditRecorder<'a> {
    /// Boxed: the recorder lives in every call's future, most often without sinks.
    pending: Option<Box<Pending<'a>>>,
}

struct Pending<'a> {
    config: &'a Config,
    timestamp: SystemTime,
    started: Instant,
    session_id: Option<String>,
    principal: Option<Arc<Principal>>,
    call_id: String,
    tool: String,
    arguments: Value,
    /// The tool's own cap on recorded arguments, when it keeps more than the registry's.
    argument_bytes: Option<usize>,
    /// Values the arguments had under secret keys, to keep out of the error text.
    secrets: Vec<String>,
    /// The call's span, when the registry has a tracer.
    span: Option<Box<dyn CallSpan>>,
    /// The span's context, or else the one the call came with.
    trace_context: Option<Arc<TraceContext>>,
    /// The answer to the policy's question, if it asked.
    approval: Option<ApprovalRecord>,
    /// The call's caller, asked when the call is dropped whether it was put aside for
    /// answers rather than cancelled.
    caller: Option<Arc<dyn Caller>>,
    /// What the tool recorded through its context.
    details: AuditDetails,
}

/// What the audit sinks that store in the background still have to store: the registry
/// waits for it before it returns a result (see [`AuditSink::stored`]).
pub(crate) struct Storing(Vec<BoxFuture<'static, ()>>);

impl Storing {
    /// What `sinks` still have to store of the event they were just given, if anything.
    pub(crate) fn of(sinks: &[Arc<dyn AuditSink>]) -> Option<Self> {
        let storing: Vec<_> = sinks.iter().filter_map(|sink| sink.stored()).collect();
        (!storing.is_empty()).then_some(Self(storing))
    }

    /// Waits until the sinks have stored the call's event.
    pub(crate) async fn wait(self) {
        for stored in self.0 {
            stored.await;
        }
    }
}

impl<'a> AuditRecorder<'a> {
    pub(crate) fn begin(
        config: &'a Config,
        started: Instant,
        call_id: &str,
        tool: &str,
        options: &CallOptions,
    ) -> Self {
        let pending = (!config.sinks.is_empty() || config.tracer.is_some()).then(|| {
            let span = config.tracer.as_ref().map(|tracer| {
                tracer.start(&SpanStart {
                    call_id,
                    tool,
                    parent: options.trace_context.as_deref(),
                    session_id: options.session_id.as_deref(),
                    principal: options.principal.as_deref(),
                })
            });
            let trace_context = match &span {
                Some(span) => span.context().map(Arc::new),
                None => options.trace_context.clone(),
            };
            Box::new(Pending {
                config,
                timestamp: SystemTime::now(),
                started,
                session_id: options.session_id.as_deref().map(str::to_owned),
                principal: options.principal.clone(),
                call_id: call_id.to_owned(),
                tool: tool.to_owned(),
                arguments: Value::Null,
                argument_bytes: None,
                secrets: Vec::new(),
                span,
                trace_context,
                approval: None,
                caller: options.caller.clone(),
                details: AuditDetails::default(),
            })
        });
        Self { pending }
    }

    /// The context the call's tool and its outgoing calls carry: the call's span's when
    /// it is traced. `None` when there is nothing to replace the incoming context with.
    pub(crate) fn span_context(&self) -> Option<Arc<TraceContext>> {
        let pending = self.pending.as_ref()?;
        pending.span.as_ref()?;
        pending.trace_context.clone()
    }

    /// Keeps up to `bytes` of the arguments, when the tool asks for more than the
    /// registry's cap ([`ToolMeta::audit_argument_bytes`](crate::tool::ToolMeta::audit_argument_bytes)).
    pub(crate) fn argument_bytes(&mut self, bytes: Option<usize>) {
        if let Some(pending) = &mut self.pending {
            pending.argument_bytes = bytes;
        }
    }

    /// Records the arguments as parsed (redacted and capped).
    pub(crate) fn arguments(&mut self, arguments: &Value) {
        if let Some(pending) = &mut self.pending {
            pending.redacted(arguments);
        }
    }

    /// Records the answer to the policy's question about the call, and who gave it.
    pub(crate) fn approval(&mut self, decision: &str, by: Option<String>) {
        if let Some(pending) = &mut self.pending {
            pending.approval = Some(ApprovalRecord {
                decision: decision.to_owned(),
                by,
            });
        }
    }

    /// Records arguments that may not parse.
    pub(crate) fn raw_arguments(&mut self, arguments: &ToolArguments) {
        if let Some(pending) = &mut self.pending {
            match arguments {
                ToolArguments::Value(value) => pending.redacted(value),
                ToolArguments::Json(text) => match serde_json::from_str::<Value>(text) {
                    Ok(value) => pending.redacted(&value),
                    Err(_) => pending.arguments = pending.config.redactor.raw(text),
                },
                ToolArguments::Freeform(text) => pending.arguments = pending.config.redactor.raw(text),
            }
        }
    }

    /// The collector the call's context records the tool's details in, when the call is
    /// audited.
    pub(crate) fn details(&self) -> Option<AuditDetails> {
        self.pending.as_ref().map(|pending| pending.details.clone())
    }

    /// Records the finished call; `output_bytes` is the output's size when the caller
    /// measured it already. Returns what the sinks still have to store.
    pub(crate) fn finish(mut self, result: &ToolResult, output_bytes: Option<usize>) -> Option<Storing> {
        let pending = self.pending.take()?;
        let redactor = &pending.config.redactor;
        let error = result
            .is_error()
            .then(|| redactor.error(&result.text(), &pending.secrets));
        let traced_result = (!result.is_error()
            && pending
                .config
                .tracer
                .as_ref()
                .is_some_and(|tracer| tracer.records_results()))
        .then(|| redactor.result(&result.text(), &pending.secrets));
        let config = pending.config;
        pending.emit(
            Ended {
                outcome: result.outcome,
                duration: result.duration,
                output_bytes: output_bytes.unwrap_or_else(|| result.output.byte_len()),
                error,
                repairs: result.repairs.clone(),
            },
            traced_result.as_deref(),
        );
        Storing::of(&config.sinks)
    }
}

/// How a call ended, for its audit event.
struct Ended {
    outcome: Outcome,
    duration: Duration,
    output_bytes: usize,
    error: Option<String>,
    repairs: Vec<String>,
}

impl Pending<'_> {
    fn redacted(&mut self, arguments: &Value) {
        let redacted = self
            .config
            .redactor
            .at_least(self.argument_bytes)
            .arguments(arguments);
        self.arguments = redacted.arguments;
        self.secrets = redacted.secrets;
    }

    /// Records the event to every sink and ends the span; `result` is the result's
    /// redacted text when the tracer asked for it.
    fn emit(self, ended: Ended, result: Option<&str>) {
        let traced = self.span.is_some();
        let event = AuditEvent {
            timestamp: self.timestamp,
            session_id: self.session_id,
            subject: self.principal.as_ref().map(|principal| principal.subject.clone()),
            client_id: self.principal.and_then(|principal| principal.client_id.clone()),
            trace_id: self
                .trace_context
                .as_ref()
                .map(|context| context.trace_id().to_owned()),
            span_id: self
                .trace_context
                .as_ref()
                .filter(|_| traced)
                .map(|context| context.span_id().to_owned()),
            call_id: self.call_id,
            tool: self.tool,
            arguments: self.arguments,
            outcome: ended.outcome,
            duration: ended.duration,
            output_bytes: ended.output_bytes,
            error: ended.error,
            repairs: ended.repairs,
            approval: self.approval,
            details: self.details.take(),
        };
        for sink in self.config.sinks.iter() {
            sink.record(&event);
        }
        if let Some(span) = self.span {
            span.end(&event, result);
        }
    }
}

impl Drop for AuditRecorder<'_> {
    /// The call future was dropped before it finished: the caller cancelled it, or put
    /// it aside until questions it asked are answered (a round of an input-required
    /// result or a task), which the log records as pending, not cancelled.
    fn drop(&mut self) {
        if let Some(pending) = self.pending.take() {
            let waiting = pending.caller.as_ref().and_then(|caller| caller.waiting_for());
            let (outcome, error) = match waiting {
                Some(questions) => (
                    Outcome::Pending,
                    format!("waiting for answers to: {}", questions.join(", ")),
                ),
                None => (
                    Outcome::Cancelled,
                    "the caller dropped the call before it finished".to_owned(),
                ),
            };
            let ended = Ended {
                outcome,
                duration: pending.started.elapsed(),
                output_bytes: 0,
                error: Some(error),
                repairs: Vec::new(),
            };
            pending.emit(ended, None);
        }
    }
}
