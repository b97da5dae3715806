//! [`MemoryAudit`]: keeps events in memory, for tests and for showing recent calls.

use std::sync::{Arc, Mutex, PoisonError};

use super::{AuditEvent, AuditSink};

/// Collects events in memory. Clones share the same list, so keep one clone to read
/// what the registry recorded.
#[derive(Debug, Clone, Default)]
pub struct MemoryAudit {
    events: Arc<Mutex<Vec<AuditEvent>>>,
}

impl MemoryAudit {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of the events recorded so far, oldest first.
    pub fn events(&self) -> Vec<AuditEvent> {
        self.lock().clone()
    }

    /// How many events were recorded.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no event was recorded.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Forgets all events.
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<AuditEvent>> {
        self.events.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl AuditSink for MemoryAudit {
    fn record(&self, event: &AuditEvent) {
        self.lock().push(event.clone());
    }
}
