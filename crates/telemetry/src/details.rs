//! What a call's tool recorded for its audit ([`AuditEvent::details`]) as OpenTelemetry
//! attributes, the same on the call's span and on its audit log record.
//!
//! Each key becomes `agent_tools.details.<key>`; a key holding an object becomes one
//! attribute per member, `agent_tools.details.<key>.<member>` (the MCP mount's `mount`
//! detail: `…mount.server`, `…mount.definition_sha256`, `…mount.pinned`), so a tracing
//! system can filter on them. Strings, booleans and numbers keep their type; lists and
//! deeper objects are their JSON text.

use agent_tools_core::audit::AuditEvent;
use serde_json::Value;

/// One attribute's value, before it becomes a span's or a log record's kind of value.
pub(crate) enum Detail {
    Text(String),
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Detail {
    fn of(value: &Value) -> Self {
        match value {
            Value::String(text) => Self::Text(text.clone()),
            Value::Bool(yes) => Self::Bool(*yes),
            Value::Number(number) => match number.as_i64() {
                Some(int) => Self::Int(int),
                None => Self::Float(number.as_f64().unwrap_or(f64::NAN)),
            },
            other => Self::Text(other.to_string()),
        }
    }

    /// As the value type of a span attribute or a log record attribute.
    pub(crate) fn into_value<T>(self) -> T
    where
        T: From<String> + From<bool> + From<i64> + From<f64>,
    {
        match self {
            Self::Text(text) => text.into(),
            Self::Bool(yes) => yes.into(),
            Self::Int(int) => int.into(),
            Self::Float(float) => float.into(),
        }
    }
}

/// The attributes of `event`'s details, by name.
pub(crate) fn attributes(event: &AuditEvent) -> Vec<(String, Detail)> {
    let mut attributes = Vec::new();
    for (key, value) in &event.details {
        match value {
            Value::Object(members) => {
                for (member, value) in members {
                    attributes.push((format!("agent_tools.details.{key}.{member}"), Detail::of(value)));
                }
            }
            value => attributes.push((format!("agent_tools.details.{key}"), Detail::of(value))),
        }
    }
    attributes
}
