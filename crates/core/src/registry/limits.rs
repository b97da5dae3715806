//! Limits on a session's calls: the retry budget of each tool ([`ToolError::retry`]) and
//! the number of calls a session may make. Per-tool concurrency is a semaphore on the
//! tool's entry (see `isolation.rs`).
//!
//! [`ToolError::retry`]: crate::error::ToolError::retry

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// A session (or, for calls without one, the registry) and a tool.
type Key = (Option<Arc<str>>, Arc<str>);

/// Retry answers in a row, per session and tool; shared with derived registries.
#[derive(Debug, Default)]
pub(crate) struct RetryCounts {
    counts: Mutex<HashMap<Key, u32>>,
}

impl RetryCounts {
    /// Counts a retry answer; returns how many there have been in a row.
    pub(crate) fn retried(&self, session: Option<&Arc<str>>, tool: &Arc<str>) -> u32 {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let count = counts.entry((session.cloned(), tool.clone())).or_default();
        *count = count.saturating_add(1);
        *count
    }

    /// A call that did not ask for a retry ends the run of them.
    pub(crate) fn reset(&self, session: Option<&Arc<str>>, tool: &Arc<str>) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        counts.remove(&(session.cloned(), tool.clone()));
    }
}

/// Calls made per session; shared with derived registries.
#[derive(Debug, Default)]
pub(crate) struct SessionCalls {
    counts: Mutex<HashMap<Option<Arc<str>>, u64>>,
}

impl SessionCalls {
    /// Counts a call of `session`, unless it has made `max` already: then `false`.
    pub(crate) fn admit(&self, session: Option<&Arc<str>>, max: u64) -> bool {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let count = counts.entry(session.cloned()).or_default();
        if *count >= max {
            return false;
        }
        *count += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_count_in_a_row_per_session_and_tool() {
        let counts = RetryCounts::default();
        let (one, exec, read): (Arc<str>, Arc<str>, Arc<str>) = ("one".into(), "exec".into(), "read".into());
        assert_eq!(counts.retried(Some(&one), &exec), 1);
        assert_eq!(counts.retried(Some(&one), &exec), 2);
        assert_eq!(counts.retried(None, &exec), 1, "another session");
        assert_eq!(counts.retried(Some(&one), &read), 1, "another tool");
        counts.reset(Some(&one), &exec);
        assert_eq!(counts.retried(Some(&one), &exec), 1);
    }

    #[test]
    fn sessions_are_admitted_up_to_their_cap() {
        let calls = SessionCalls::default();
        let one: Arc<str> = "one".into();
        assert!(calls.admit(Some(&one), 2));
        assert!(calls.admit(Some(&one), 2));
        assert!(!calls.admit(Some(&one), 2));
        assert!(calls.admit(None, 2), "another session");
    }
}
