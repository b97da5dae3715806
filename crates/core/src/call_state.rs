//! What a call's context shares with the registry that runs it: the call's id and its
//! cancellation ([`CallState`]).
//!
//! Both are read on both sides — the tool reads them through its
//! [`ToolContext`](crate::context::ToolContext), the registry cancels the call on a
//! timeout and names it in what it records — and both live as long as the longer of the
//! two. Kept apart they cost two allocations a call; together, one. The id is short
//! (providers' ids are about 30 bytes, MCP's are numbers), so it is kept inline in that
//! allocation, and only a longer one has an allocation of its own.

use std::sync::OnceLock;

use arrayvec::ArrayString;
use tokio_util::sync::CancellationToken;

/// A call's id and cancellation, shared by the registry and the tool's context.
#[derive(Debug, Default)]
pub(crate) struct CallState {
    id: CallId,
    cancellation: CallCancellation,
}

impl CallState {
    pub(crate) fn new(id: &str, cancellation: CallCancellation) -> Self {
        Self {
            id: CallId::new(id),
            cancellation,
        }
    }

    /// The provider's id for the call.
    pub(crate) fn id(&self) -> &str {
        match &self.id {
            CallId::Inline(id) => id,
            CallId::Long(id) => id,
        }
    }

    pub(crate) fn cancellation(&self) -> &CallCancellation {
        &self.cancellation
    }
}

/// Ids up to this many bytes are kept inline (the enum is then 48 bytes).
const INLINE_ID: usize = 40;

/// A call's id: inline when it is short, as nearly all are.
#[derive(Debug)]
enum CallId {
    Inline(ArrayString<INLINE_ID>),
    Long(Box<str>),
}

impl CallId {
    fn new(id: &str) -> Self {
        match ArrayString::from(id) {
            Ok(inline) => Self::Inline(inline),
            Err(_) => Self::Long(id.into()),
        }
    }
}

impl Default for CallId {
    fn default() -> Self {
        Self::Inline(ArrayString::new())
    }
}

/// A call's cancellation, shared by the registry and the tool's context.
///
/// The token is created only when someone needs it — the tool asks for it, or the registry
/// cancels the call — because most calls finish without either, and a token costs an
/// allocation and a lock per clone and drop. A token created later is still correct: it
/// derives from the caller's token, and cancelling goes through the same `OnceLock`.
#[derive(Debug, Default)]
pub(crate) struct CallCancellation {
    token: OnceLock<CancellationToken>,
    /// The caller's token, if the call came with one.
    parent: Option<CancellationToken>,
}

impl CallCancellation {
    /// Cancellation derived from the caller's token, if any.
    pub(crate) fn new(parent: Option<CancellationToken>) -> Self {
        Self {
            token: OnceLock::new(),
            parent,
        }
    }

    /// Cancellation by `token` itself, with no caller's token to watch.
    pub(crate) fn of_token(token: CancellationToken) -> Self {
        Self {
            token: OnceLock::from(token),
            parent: None,
        }
    }

    /// The call's token, created on first use.
    pub(crate) fn token(&self) -> &CancellationToken {
        self.token.get_or_init(|| match &self.parent {
            Some(parent) => parent.child_token(),
            None => CancellationToken::new(),
        })
    }

    /// The caller's token, which the registry watches while the tool runs.
    pub(crate) fn parent(&self) -> Option<&CancellationToken> {
        self.parent.as_ref()
    }

    /// Cancels the call (and anything the tool derived from its token).
    pub(crate) fn cancel(&self) {
        self.token().cancel();
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        match self.token.get() {
            Some(token) => token.is_cancelled(),
            None => self.parent.as_ref().is_some_and(CancellationToken::is_cancelled),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ToolContext;

    #[test]
    fn ids_of_every_length_read_back_as_given() {
        for id in [
            "",
            "7",
            "call_abc123",
            &"x".repeat(INLINE_ID),
            &"y".repeat(INLINE_ID + 1),
            "tööl_ünïcode",
        ] {
            assert_eq!(CallState::new(id, CallCancellation::default()).id(), id);
        }
    }

    #[test]
    fn cancellation_follows_the_callers_token_however_late_it_is_created() {
        let parent = CancellationToken::new();
        let early = CallCancellation::new(Some(parent.clone()));
        let early_token = early.token().clone();
        let late = CallCancellation::new(Some(parent.clone()));
        assert!(!late.is_cancelled());
        parent.cancel();
        assert!(early_token.is_cancelled());
        assert!(
            late.is_cancelled(),
            "seen through the parent before the token exists"
        );
        assert!(
            late.token().is_cancelled(),
            "a token made after the cancel starts cancelled"
        );
    }

    #[test]
    fn cancelling_a_call_leaves_the_callers_token_alone() {
        let parent = CancellationToken::new();
        let call = CallCancellation::new(Some(parent.clone()));
        call.cancel();
        assert!(call.is_cancelled());
        assert!(!parent.is_cancelled());
        let ctx = ToolContext::new("c").with_cancellation(CancellationToken::new());
        assert_eq!(ctx.call_id(), "c", "a new cancellation keeps the call's id");
        assert!(!ctx.is_cancelled());
        ctx.cancellation().cancel();
        assert!(ctx.is_cancelled());
    }
}
