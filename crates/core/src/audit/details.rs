//! What a tool adds to its call's audit record ([`AuditEvent::details`](super::AuditEvent::details)).
//!
//! The registry knows what every call shares (its arguments, how it ended); only the tool
//! knows some facts worth keeping about what it did — which connections a command made,
//! where a mounted tool came from. A tool records them under a key of its own with
//! [`ToolContext::audit_detail`](crate::ToolContext::audit_detail), and they reach every
//! sink with the event. A call the registry does not audit collects nothing: the context
//! has no collector then, and recording is a no-op.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};

/// The details one call's tool recorded, shared by the call's context and its recorder.
#[derive(Debug, Clone, Default)]
pub(crate) struct AuditDetails(Arc<Mutex<Map<String, Value>>>);

impl AuditDetails {
    /// Records `value` under `key`, replacing what was there.
    pub(crate) fn insert(&self, key: &str, value: Value) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.to_owned(), value);
    }

    /// What was recorded, leaving the collector empty.
    pub(crate) fn take(&self) -> Map<String, Value> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}
