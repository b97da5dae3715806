//! "Allow always": tools a person let run for the rest of a session.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

/// The tools granted per session; calls without a session share one set. Shared by a
/// registry and the registries derived from it.
#[derive(Debug, Default)]
pub(crate) struct SessionGrants {
    granted: Mutex<Granted>,
}

/// Granted tools by session.
type Granted = HashMap<Option<Arc<str>>, HashSet<Arc<str>>>;

impl SessionGrants {
    /// Lets `tool` run without asking for the rest of `session`.
    pub(crate) fn grant(&self, session: Option<&Arc<str>>, tool: &Arc<str>) {
        self.lock()
            .entry(session.cloned())
            .or_default()
            .insert(tool.clone());
    }

    /// Whether `tool` was granted for `session`.
    pub(crate) fn is_granted(&self, session: Option<&Arc<str>>, tool: &str) -> bool {
        self.lock()
            .get(&session.cloned())
            .is_some_and(|tools| tools.contains(tool))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Granted> {
        // Each change is one insertion: a panic elsewhere cannot leave it half-done.
        self.granted.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_hold_for_their_session_only() {
        let grants = SessionGrants::default();
        let (one, two): (Arc<str>, Arc<str>) = ("one".into(), "two".into());
        let exec: Arc<str> = "exec".into();
        grants.grant(Some(&one), &exec);
        assert!(grants.is_granted(Some(&one), "exec"));
        assert!(!grants.is_granted(Some(&two), "exec"));
        assert!(!grants.is_granted(None, "exec"));
        assert!(!grants.is_granted(Some(&one), "write_file"));
    }
}
