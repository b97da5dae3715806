//! Calls whose approval was deferred ([`Approval::Defer`]): kept
//! until an application decides them with [`ToolRegistry::resume`](crate::registry::ToolRegistry::resume).

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Approval, ApprovalRequest, Approver};
use crate::principal::Principal;
use crate::tool::BoxFuture;

/// A call the policy asked about whose approval was deferred: the tool has not run.
///
/// It is what an application keeps to decide the call later — serializable, so a web
/// application can store it with the conversation and, after a restart, hand it to
/// [`ToolRegistry::restore`](crate::registry::ToolRegistry::restore) in a new process before
/// [`ToolRegistry::resume`](crate::registry::ToolRegistry::resume)`(id, decision)`. Resuming
/// validates the arguments again and asks the policy again, so a stored call that was
/// changed, or a tool or policy that changed since, cannot run what the policy now refuses.
///
/// ```
/// use agent_tools_core::approval::PendingCall;
///
/// let stored = r#"{"id": "p-1", "call_id": "call_7", "tool": "exec",
///     "arguments": {"command": "make deploy"}, "reason": "the ask rule `exec`",
///     "session_id": "chat-42", "preview": null}"#;
/// let pending: PendingCall = serde_json::from_str(stored)?;
/// assert_eq!(pending.tool, "exec");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingCall {
    /// What [`ToolRegistry::resume`](crate::registry::ToolRegistry::resume) is given to decide it;
    /// unique in the process that deferred it, and across restarts in practice (it holds
    /// the time and the process id).
    pub id: String,
    /// The call's id, as the model made it.
    pub call_id: String,
    /// The tool to run.
    pub tool: String,
    /// The validated arguments.
    pub arguments: Value,
    /// Why the policy asked, as a person reads it.
    pub reason: String,
    /// The session the call belongs to, if any.
    pub session_id: Option<String>,
    /// Who the call is made for, if the transport authenticated a user; resuming makes
    /// the call for them again.
    #[serde(default)]
    pub principal: Option<Principal>,
    /// What the call would do, if the tool can say ([`Tool::preview`](crate::tool::Tool::preview)).
    pub preview: Option<String>,
}

impl PendingCall {
    /// Defers `request`, giving it a fresh id.
    pub(crate) fn new(request: ApprovalRequest) -> Self {
        Self {
            id: next_id(),
            call_id: request.call_id,
            tool: request.tool,
            arguments: request.arguments,
            reason: request.reason.to_string(),
            session_id: request.session_id,
            principal: request.principal,
            preview: request.preview,
        }
    }

    /// The message the model gets while the call waits.
    pub(crate) fn message(&self) -> String {
        format!(
            "`{}` has not run yet: it is waiting for a person's approval ({}). Do not call it \
             again; its result will come once it is decided.",
            self.tool, self.reason
        )
    }
}

/// `p-<time>-<process>-<counter>`: distinct within the process by the counter, and from
/// other processes and earlier runs by the process id and the time.
fn next_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let micros = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_micros());
    format!("p-{micros:x}-{:x}-{count}", std::process::id())
}

/// The pending calls of a registry and those derived from it, by id.
#[derive(Debug, Default)]
pub(crate) struct PendingCalls {
    calls: Mutex<HashMap<String, PendingCall>>,
}

impl PendingCalls {
    /// Keeps `call` until it is taken.
    pub(crate) fn insert(&self, call: PendingCall) {
        self.lock().insert(call.id.clone(), call);
    }

    /// Removes and returns the call with `id`: each is resumed at most once.
    pub(crate) fn take(&self, id: &str) -> Option<PendingCall> {
        self.lock().remove(id)
    }

    /// Every call still waiting, in the order of their ids.
    pub(crate) fn list(&self) -> Vec<PendingCall> {
        let mut calls: Vec<PendingCall> = self.lock().values().cloned().collect();
        calls.sort_by(|a, b| a.id.cmp(&b.id));
        calls
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, PendingCall>> {
        // Each change is one insertion or removal: a panic elsewhere cannot leave it
        // half-done.
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An approver that decides nothing now: every call the policy asks about ends with a
/// pending result ([`ToolResult::pending`](crate::registry::ToolResult::pending)), to be decided
/// with [`ToolRegistry::resume`](crate::registry::ToolRegistry::resume) — for applications whose
/// person answers later, in another request or another process.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveLater;

impl Approver for ApproveLater {
    fn approve<'a>(&'a self, _request: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
        Box::pin(std::future::ready(Approval::Defer))
    }
}

/// Why a call could not be resumed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// No pending call has this id here: it was resumed already, or was deferred in
    /// another process and not [restored](crate::registry::ToolRegistry::restore).
    #[error("no pending call has the id `{id}`: it was decided already, or was not restored in this process")]
    UnknownId {
        /// The id asked for.
        id: String,
    },
}

impl fmt::Display for PendingCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} `{}` ({})", self.id, self.tool, self.reason)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(id: &str) -> PendingCall {
        PendingCall {
            id: id.to_owned(),
            call_id: "c".into(),
            tool: "exec".into(),
            arguments: json!({"command": "ls"}),
            reason: "the ask rule `exec`".into(),
            session_id: None,
            principal: None,
            preview: None,
        }
    }

    #[test]
    fn ids_differ_and_a_call_is_taken_once() {
        let (first, second) = (next_id(), next_id());
        assert_ne!(first, second);
        let calls = PendingCalls::default();
        calls.insert(call("b"));
        calls.insert(call("a"));
        let ids: Vec<String> = calls.list().into_iter().map(|call| call.id).collect();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(calls.take("a"), Some(call("a")));
        assert_eq!(calls.take("a"), None);
    }

    #[test]
    fn a_pending_call_survives_json() {
        let pending = call("p-1");
        let text = serde_json::to_string(&pending).unwrap();
        assert_eq!(serde_json::from_str::<PendingCall>(&text).unwrap(), pending);
    }
}
