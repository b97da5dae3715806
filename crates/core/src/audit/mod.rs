//! The audit log: one [`AuditEvent`] per tool call, sent to every configured
//! [`AuditSink`].
//!
//! Events are built only when a registry has sinks, so an unaudited registry pays nothing.
//! Audit logs tend to be kept longer and read by more people than the conversation
//! itself, so arguments and error texts are recorded with their secrets redacted by the
//! project's one rule ([`crate::secrets`]): values under secret-looking keys (`api_key`,
//! `token`, `password`, `authorization`), the values of `{name, value}` pairs with such a
//! name, and secrets inside any string (token shapes, URL credentials, `Authorization:`
//! headers, `NAME=value`) — also in arguments that did not parse. Argument sizes are
//! capped.

mod details;
mod jsonl;
mod memory;
pub(crate) mod redact;
mod tracing_sink;

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub(crate) use details::AuditDetails;
pub use jsonl::JsonlAudit;
pub use memory::MemoryAudit;
pub use tracing_sink::TracingAudit;

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// The tool ran and succeeded.
    Ok,
    /// The arguments were malformed JSON, not an object, or failed validation.
    InvalidArguments,
    /// No tool has the requested name.
    UnknownTool,
    /// The tool ran and returned an error.
    Error,
    /// The call took longer than its timeout and was stopped.
    Timeout,
    /// The call was cancelled by the caller.
    Cancelled,
    /// The tool panicked; the panic was contained.
    Panicked,
    /// The [policy](crate::policy::Policy) refused the call, or it needed an approval it did not
    /// get; the tool did not run.
    Denied,
    /// The call waits for an approval that was deferred
    /// ([`Approval::Defer`](crate::approval::Approval::Defer)); the tool has not run. Resuming it
    /// records a second event with how it ended.
    Pending,
    /// Not a call: a mounted tool's definition was held back from the model (changed
    /// since it was pinned, or found suspicious) and the tool not offered. The event's
    /// `error` says why and its `details` hold what was found (see [`AuditEvent::notice`]).
    Withheld,
}

impl Outcome {
    /// The snake_case name used in logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::InvalidArguments => "invalid_arguments",
            Outcome::UnknownTool => "unknown_tool",
            Outcome::Error => "error",
            Outcome::Timeout => "timeout",
            Outcome::Cancelled => "cancelled",
            Outcome::Panicked => "panicked",
            Outcome::Denied => "denied",
            Outcome::Pending => "pending",
            Outcome::Withheld => "withheld",
        }
    }

    /// Whether the outcome is a failure of any kind (a pending call has not failed).
    pub fn is_error(self) -> bool {
        !matches!(self, Outcome::Ok | Outcome::Pending)
    }
}

/// The record of one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuditEvent {
    /// When the call started (RFC 3339, UTC, in serialized form).
    #[serde(with = "rfc3339")]
    pub timestamp: SystemTime,
    /// The session the call belongs to, if named.
    pub session_id: Option<String>,
    /// The user the call was made for ([`Principal::subject`](crate::principal::Principal)), when the
    /// transport authenticated one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The client application that made it ([`Principal::client_id`](crate::principal::Principal)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The trace the call belongs to (32 hex digits): its span's, when a
    /// [`CallTracer`](crate::tracer::CallTracer) traced it, else the one it came with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    /// The call's span (16 hex digits), when a tracer traced it: the audit line and the
    /// span are about the same call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_id: Option<String>,
    /// The provider's call id.
    pub call_id: String,
    /// The tool name as called (possibly unknown).
    pub tool: String,
    /// The arguments, secrets redacted and size capped; for arguments that did not
    /// parse, their text (redacted and capped).
    pub arguments: Value,
    /// How the call ended.
    pub outcome: Outcome,
    /// How long the call took, validation included.
    #[serde(rename = "duration_ms", with = "millis")]
    pub duration: Duration,
    /// Size of the output in bytes.
    pub output_bytes: usize,
    /// The error text the model saw, for failed calls, with its secrets redacted (also
    /// any value the arguments had under a secret key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Repairs made to the arguments before validation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<String>,
    /// The answer to the policy's question about the call, when it asked one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalRecord>,
    /// What the tool recorded about the call, by key (see
    /// [`ToolContext::audit_detail`](crate::ToolContext::audit_detail)): e.g. `exec`'s
    /// `network`, each connection its command's proxy allowed or refused. Left out when
    /// empty.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub details: serde_json::Map<String, Value>,
}

impl AuditEvent {
    /// An event about `tool` that is not one of its calls, dated now: no session, no call
    /// id, no arguments, no duration; set `error` and `details` to say what happened, and
    /// record it with [`ToolRegistry::record_audit`](crate::ToolRegistry::record_audit).
    /// The MCP mount records one per tool it holds back ([`Outcome::Withheld`]).
    pub fn notice(tool: impl Into<String>, outcome: Outcome) -> Self {
        Self {
            timestamp: SystemTime::now(),
            session_id: None,
            subject: None,
            client_id: None,
            trace_id: None,
            span_id: None,
            call_id: String::new(),
            tool: tool.into(),
            arguments: Value::Null,
            outcome,
            duration: Duration::ZERO,
            output_bytes: 0,
            error: None,
            repairs: Vec::new(),
            approval: None,
            details: serde_json::Map::new(),
        }
    }
}

/// A person's answer to the policy's question about a call, as the audit log keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApprovalRecord {
    /// The answer: `allow_once`, `allow_always`, `allow_edited`, `deny` or `defer`.
    pub decision: String,
    /// Who gave it, when known (the name given with a task's answer, e.g. by
    /// `agent-tools approvals allow`); absent when an approver or a client answered
    /// without saying who.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// Where audit events go. Called once per call, after it ends, from the task that made
/// the call; implementations must be quick or hand off to a background writer.
///
/// Events are built only when a registry has sinks, so an unaudited registry pays
/// nothing. Audit logs tend to be kept longer and read by more people than the
/// conversation itself, so arguments and error texts are recorded with their secrets
/// redacted by the project's one rule ([`crate::secrets`]): values under secret-looking
/// keys (`api_key`, `token`, `password`, `authorization`), the values of `{name, value}`
/// pairs with such a name, and secrets inside any string (token shapes, URL credentials,
/// `Authorization:` headers, `NAME=value`) — also in arguments that did not parse.
/// Argument sizes are capped. The sinks here: [`JsonlAudit`], [`MemoryAudit`],
/// [`TracingAudit`].
pub trait AuditSink: Send + Sync + 'static {
    /// Records one event. Sinks handle their own failures (a failed audit write never
    /// fails a tool call).
    fn record(&self, event: &AuditEvent);

    /// For sinks that store events in the background: a future that completes once
    /// every event recorded so far is stored (or storing failed). The registry waits for
    /// it before it returns the call's result, so that a result the caller received
    /// means the call is in the log, even if the process dies the next moment. Default:
    /// nothing to wait for.
    fn stored(&self) -> Option<crate::tool::BoxFuture<'static, ()>> {
        None
    }
}

/// A shared sink, so the application keeps a handle (e.g. to read
/// [`JsonlAudit::failed_writes`]) while the registry records to it.
impl<S: AuditSink + ?Sized> AuditSink for std::sync::Arc<S> {
    fn record(&self, event: &AuditEvent) {
        (**self).record(event);
    }

    fn stored(&self) -> Option<crate::tool::BoxFuture<'static, ()>> {
        (**self).stored()
    }
}

// The log's own formats, not humantime-serde's: that writes durations as text
// (`"1ms 500us"`) and times to the nanosecond, while the log has milliseconds as a number
// and times to the microsecond, which readers of existing logs rely on.
mod rfc3339 {
    use std::time::SystemTime;

    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    pub(super) fn serialize<S: Serializer>(time: &SystemTime, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&humantime::format_rfc3339_micros(*time))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SystemTime, D::Error> {
        let text = String::deserialize(deserializer)?;
        humantime::parse_rfc3339(&text).map_err(D::Error::custom)
    }
}

mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    pub(super) fn serialize<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        // Whole microseconds, so the text stays short (`0.032287`, not `0.032286999…`).
        let micros = u64::try_from(duration.as_micros()).unwrap_or(u64::MAX);
        serializer.serialize_f64(micros as f64 / 1000.0)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        let millis = f64::deserialize(deserializer)?;
        Duration::try_from_secs_f64(millis / 1000.0).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_through_json() {
        let event = AuditEvent {
            timestamp: SystemTime::UNIX_EPOCH + Duration::from_micros(1_700_000_000_123_456),
            session_id: Some("s1".into()),
            subject: None,
            client_id: None,
            trace_id: None,
            span_id: None,
            call_id: "call_1".into(),
            tool: "read_file".into(),
            arguments: serde_json::json!({"path": "a.txt"}),
            outcome: Outcome::InvalidArguments,
            duration: Duration::from_micros(1500),
            output_bytes: 42,
            error: Some("bad".into()),
            repairs: vec![],
            approval: None,
            details: serde_json::Map::new(),
        };
        let line = serde_json::to_string(&event).unwrap();
        assert!(
            line.contains(r#""timestamp":"2023-11-14T22:13:20.123456Z""#),
            "{line}"
        );
        assert!(line.contains(r#""outcome":"invalid_arguments""#), "{line}");
        assert!(line.contains(r#""duration_ms":1.5"#), "{line}");
        let back: AuditEvent = serde_json::from_str(&line).unwrap();
        assert_eq!(back, event);
    }
}
