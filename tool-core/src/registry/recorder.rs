//! Collects what the audit log needs while a call runs, and records it exactly once —
//! also when the caller drops the call before it finishes.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use super::call::CallOptions;
use super::{Config, ToolArguments, ToolResult};
use crate::{AuditEvent, Outcome, Principal};

/// The audit record of one call in progress; does nothing when there are no sinks.
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
    /// Values the arguments had under secret keys, to keep out of the error text.
    secrets: Vec<String>,
}

impl<'a> AuditRecorder<'a> {
    pub(crate) fn begin(
        config: &'a Config,
        started: Instant,
        call_id: &str,
        tool: &str,
        options: &CallOptions,
    ) -> Self {
        let pending = (!config.sinks.is_empty()).then(|| {
            Box::new(Pending {
                config,
                timestamp: SystemTime::now(),
                started,
                session_id: options.session_id.as_deref().map(str::to_owned),
                principal: options.principal.clone(),
                call_id: call_id.to_owned(),
                tool: tool.to_owned(),
                arguments: Value::Null,
                secrets: Vec::new(),
            })
        });
        Self { pending }
    }

    /// Records the arguments as parsed (redacted and capped).
    pub(crate) fn arguments(&mut self, arguments: &Value) {
        if let Some(pending) = &mut self.pending {
            pending.redacted(arguments);
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
            }
        }
    }

    /// Records the finished call; `output_bytes` is the output's size when the caller
    /// measured it already.
    pub(crate) fn finish(mut self, result: &ToolResult, output_bytes: Option<usize>) {
        if let Some(pending) = self.pending.take() {
            let error = result
                .is_error()
                .then(|| pending.config.redactor.error(&result.text(), &pending.secrets));
            pending.emit(
                result.outcome,
                result.duration,
                output_bytes.unwrap_or_else(|| result.output.byte_len()),
                error,
                result.repairs.clone(),
            );
        }
    }
}

impl Pending<'_> {
    fn redacted(&mut self, arguments: &Value) {
        let redacted = self.config.redactor.arguments(arguments);
        self.arguments = redacted.arguments;
        self.secrets = redacted.secrets;
    }

    fn emit(
        self,
        outcome: Outcome,
        duration: Duration,
        output_bytes: usize,
        error: Option<String>,
        repairs: Vec<String>,
    ) {
        let event = AuditEvent {
            timestamp: self.timestamp,
            session_id: self.session_id,
            subject: self.principal.as_ref().map(|principal| principal.subject.clone()),
            client_id: self.principal.and_then(|principal| principal.client_id.clone()),
            call_id: self.call_id,
            tool: self.tool,
            arguments: self.arguments,
            outcome,
            duration,
            output_bytes,
            error,
            repairs,
        };
        for sink in self.config.sinks.iter() {
            sink.record(&event);
        }
    }
}

impl Drop for AuditRecorder<'_> {
    /// The call future was dropped before it finished: the caller cancelled it.
    fn drop(&mut self) {
        if let Some(pending) = self.pending.take() {
            let duration = pending.started.elapsed();
            let error = Some("the caller dropped the call before it finished".to_owned());
            pending.emit(Outcome::Cancelled, duration, 0, error, Vec::new());
        }
    }
}
