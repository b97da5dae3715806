//! The end of a session: one cancellation token per session id, which tools that keep
//! something for a session (a background process, a connection) watch to let it go.
//!
//! A session is only an id on calls ([`ToolCall::with_session_id`], [`ToolRegistry::session`]);
//! nothing tells the registry when the conversation behind it is over except the
//! application, through [`ToolRegistry::end_session`] (the MCP server calls it when a
//! client's session ends). A tool learns of it through
//! [`ToolContext::session_ended`](crate::ToolContext::session_ended).
//!
//! The token of a session is made at the first call that names it, kept until the session
//! ends, and shared by the registries derived from this one (`filter`, `subset`,
//! `with_prefix`, `session`), which share the rest of the per-session state. Calls
//! without a session share one token that only the registry's end cancels. When the last
//! handle of the registry (and of those derived from it) is dropped, every token is
//! cancelled.
//!
//! [`ToolCall::with_session_id`]: super::ToolCall::with_session_id

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use tokio_util::sync::CancellationToken;

use super::ToolRegistry;

/// The end-of-session tokens of one registry and those derived from it.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    /// Sessions that have made a call and not ended. Behind an `Arc` so that a call's
    /// context holds its token for the price of a reference count (cloning a token
    /// takes a lock).
    open: RwLock<HashMap<Arc<str>, Arc<CancellationToken>>>,
    /// Calls without a session.
    none: Arc<CancellationToken>,
}

impl Sessions {
    /// The token of `session` (made now if this is its first call since it began).
    pub(crate) fn token(&self, session: Option<&Arc<str>>) -> Arc<CancellationToken> {
        let Some(session) = session else {
            return self.none.clone();
        };
        let open = self.open.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(token) = open.get(session) {
            return token.clone();
        }
        drop(open);
        let mut open = self.open.write().unwrap_or_else(PoisonError::into_inner);
        open.entry(session.clone()).or_default().clone()
    }

    /// Cancels and forgets the token of `session`; whether there was one.
    fn end(&self, session: &str) -> bool {
        let ended = self
            .open
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(session);
        ended.map(|token| token.cancel()).is_some()
    }
}

impl Drop for Sessions {
    fn drop(&mut self) {
        let open = self.open.get_mut().unwrap_or_else(PoisonError::into_inner);
        open.values().for_each(|token| token.cancel());
        self.none.cancel();
    }
}

impl ToolRegistry {
    /// Ends the session `session_id`: what tools keep for it is let go (they watch
    /// [`ToolContext::session_ended`](crate::ToolContext::session_ended); the built-in
    /// `exec` kills the session's background processes). Returns whether a call had named
    /// the session since it began.
    ///
    /// Calls already running are not cancelled. A later call naming the same id begins a
    /// new session. Every session ends when the last handle of the registry (and of the
    /// registries derived from it, which share sessions) is dropped; the registry keeps
    /// a small entry per session until then, so an application that makes many sessions
    /// should end each when its conversation is over. The MCP server does so when a
    /// client's session ends.
    ///
    /// ```
    /// # async fn example() {
    /// use agent_tools_core::{ToolCall, ToolContext, ToolError, ToolRegistry, tool::DynamicTool};
    ///
    /// let registry = ToolRegistry::new();
    /// registry.register(DynamicTool::new("watch", "Watch the session.", serde_json::json!({"type": "object"}),
    ///     |_, ctx: ToolContext| async move {
    ///         let ended = ctx.session_ended();
    ///         tokio::spawn(async move { ended.cancelled().await; /* let go of the session's things */ });
    ///         Ok::<_, ToolError>("watching")
    ///     })).unwrap();
    /// let chat = registry.session("chat-1");
    /// chat.call(ToolCall::new("1", "watch", "{}")).await;
    /// assert!(registry.end_session("chat-1"));
    /// assert!(!registry.end_session("chat-1"), "already ended");
    /// # }
    /// ```
    pub fn end_session(&self, session_id: &str) -> bool {
        self.config().sessions.end(session_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_has_one_token_until_it_ends() {
        let sessions = Sessions::default();
        let one: Arc<str> = "one".into();
        let first = sessions.token(Some(&one));
        assert!(Arc::ptr_eq(&first, &sessions.token(Some(&one))));
        let other = sessions.token(Some(&"two".into()));
        let none = sessions.token(None);
        assert!(sessions.end("one"));
        assert!(first.is_cancelled());
        assert!(!other.is_cancelled() && !none.is_cancelled());
        assert!(!sessions.end("one"), "forgotten");
        let again = sessions.token(Some(&one));
        assert!(!again.is_cancelled(), "the same id begins a new session");
    }

    #[test]
    fn dropping_the_sessions_ends_them_all() {
        let sessions = Sessions::default();
        let tokens = [sessions.token(Some(&"a".into())), sessions.token(None)];
        drop(sessions);
        assert!(tokens.iter().all(|token| token.is_cancelled()));
    }

    /// A registry whose `keep` tool hands out the session token of each call.
    fn keeping() -> (
        ToolRegistry,
        tokio::sync::mpsc::UnboundedReceiver<CancellationToken>,
    ) {
        let (send, kept) = tokio::sync::mpsc::unbounded_channel();
        let registry = ToolRegistry::new();
        let tool = crate::dynamic::DynamicTool::new(
            "keep",
            "Keep the session's end.",
            serde_json::json!({"type": "object"}),
            move |_, ctx: crate::ToolContext| {
                let _ = send.send(ctx.session_ended());
                async { Ok::<_, crate::ToolError>("kept") }
            },
        );
        registry.register(tool).unwrap();
        (registry, kept)
    }

    async fn keep(registry: &ToolRegistry, session: Option<&str>) -> CancellationToken {
        let mut call = super::super::ToolCall::new("1", "keep", "{}");
        if let Some(session) = session {
            call = call.with_session_id(session);
        }
        assert_eq!(registry.call(call).await.text(), "kept");
        registry
            .config()
            .sessions
            .token(session.map(Arc::from).as_ref())
            .child_token()
    }

    #[tokio::test]
    async fn tools_see_their_sessions_end_through_derived_registries_too() {
        let (registry, mut kept) = keeping();
        let derived = registry.filter(|_| true).session("chat");
        let _ = keep(&derived, None).await;
        let chat = kept.recv().await.unwrap();
        let _ = keep(&registry, Some("other")).await;
        let other = kept.recv().await.unwrap();
        let _ = keep(&registry, None).await;
        let none = kept.recv().await.unwrap();
        assert!(!registry.end_session("never-called"));
        assert!(
            registry.end_session("chat"),
            "the derived registry's call named it"
        );
        assert!(chat.is_cancelled());
        assert!(!other.is_cancelled() && !none.is_cancelled());
        // Cancelling what a tool was given ends nothing else.
        other.cancel();
        let _ = keep(&registry, Some("other")).await;
        assert!(!kept.recv().await.unwrap().is_cancelled());
        drop(registry);
        assert!(
            !none.is_cancelled(),
            "the derived registry still holds the sessions"
        );
        drop(derived);
        assert!(none.is_cancelled(), "the last handle ends every session");
    }

    #[test]
    fn outside_a_registry_the_session_never_ends_unless_given() {
        let ctx = crate::ToolContext::new("c");
        assert!(!ctx.session_ended().is_cancelled());
        let end = CancellationToken::new();
        let ctx = ctx.with_session_end(end.clone());
        let seen = ctx.session_ended();
        end.cancel();
        assert!(seen.is_cancelled());
    }
}
