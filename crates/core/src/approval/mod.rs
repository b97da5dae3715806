//! Approval: who decides the calls a [`Policy`](crate::policy::Policy) asks about.
//!
//! When the policy says *ask*, the registry asks, in this order: the call's own
//! [`Approver`] ([`ToolCall::with_approver`](crate::registry::ToolCall::with_approver)), the
//! registry's ([`ToolRegistryBuilder::approver`](crate::registry::ToolRegistryBuilder::approver)),
//! and otherwise the call's [`Caller`](crate::caller::Caller) through a form
//! ([elicitation](crate::caller::ElicitRequest)) — over MCP that is the client, so a person approves
//! in Claude Desktop's or VS Code's own UI. When none of them can ask (a client without
//! elicitation, a program without a person), the call is refused with a message saying
//! that approval was needed and how to allow the call.
//!
//! An answer is one of [`Approval`]: allow once; allow always (the tool runs without asking
//! for the rest of the session, [`ToolCall::with_session_id`](crate::registry::ToolCall::with_session_id));
//! deny, with a reason the model is told; allow with edited arguments, which are
//! validated again and checked against the deny rules again; or defer: the call ends with
//! a pending result whose [`PendingCall`] the application keeps (it is serializable) and
//! decides later with [`ToolRegistry::resume`](crate::registry::ToolRegistry::resume) — in this
//! process, or in another after [`ToolRegistry::restore`](crate::registry::ToolRegistry::restore).
//! [`ApproveLater`] defers every call.
//!
//! Before asking, the registry asks the tool what the call would do
//! ([`Tool::preview`](crate::tool::Tool::preview)): `write_file` and `edit_file` show the diff
//! they would apply. The question ([`ApprovalRequest::question`]) carries it, and frames
//! everything the call brings (its arguments, its preview, a mounted tool's title) so that
//! a model cannot draw a question of its own into it: the call's text is quoted behind a
//! gutter, escaped and folded, and the real prompt comes last with the call's
//! [digest](ApprovalRequest::digest) (`framing.rs` says what this stops and what not).
//!
//! What this does not do: it does not check that a person, not a program, gave the answer
//! (an MCP client answers for its user), and waiting for an answer is bounded by the call's
//! cancellation, not its timeout — the timeout starts when the tool does.

mod by_form;
mod framing;
mod grants;
mod pending;

use std::sync::Arc;

use serde_json::Value;

use crate::tool::BoxFuture;
use crate::{policy::Reason, principal::Principal};

pub use by_form::APPROVAL_QUESTION;

/// `text` that someone other than the person asked controls (a model, a mounted server),
/// framed as a call's arguments are in its question ([`ApprovalRequest::question`]): every
/// line behind a gutter (`  │ `, or `  ┆ ` where a long line is folded) that a question's
/// own lines never start with, control, bidirectional and invisible characters shown
/// escaped, folded to fit a screen `columns` wide, cut after 200 lines with a note naming
/// `what` was cut. For questions of one's own about such text, such as the command line's
/// about a mounted tool's changed definition.
pub fn quote_for_person(text: &str, columns: usize, what: &str) -> String {
    framing::quoted(text, columns, what)
}
pub(crate) use by_form::ask_by_form;
pub(crate) use grants::SessionGrants;
pub(crate) use pending::PendingCalls;
pub use pending::{ApproveLater, PendingCall, ResumeError};

/// Decides the calls a policy asks about.
///
/// ```
/// use agent_tools_core::{approval::{Approval, ApprovalRequest, Approver}, tool::BoxFuture};
///
/// /// Allows everything but `exec`.
/// struct NoShell;
///
/// impl Approver for NoShell {
///     fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
///         Box::pin(async move {
///             if request.tool == "exec" {
///                 Approval::Deny(Some("no shell commands today".into()))
///             } else {
///                 Approval::AllowOnce
///             }
///         })
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an approver",
    note = "implement `agent_tools_core::approval::Approver`: `fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Approval>`"
)]
pub trait Approver: Send + Sync + 'static {
    /// The answer for one call.
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Approval>;
}

impl<A: Approver + ?Sized> Approver for Arc<A> {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
        (**self).approve(request)
    }
}

/// A call waiting for approval: what an approver shows a person.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The call's id.
    pub call_id: String,
    /// The tool to run.
    pub tool: String,
    /// The tool's human-readable title, if it has one.
    pub title: Option<String>,
    /// The validated arguments.
    pub arguments: Value,
    /// Why the policy asks.
    pub reason: Reason,
    /// The session the call belongs to, if any.
    pub session_id: Option<String>,
    /// Who the call is made for, when the transport authenticated a user.
    pub principal: Option<Principal>,
    /// What the call would do, if the tool can say ([`Tool::preview`](crate::tool::Tool::preview)):
    /// for `write_file` and `edit_file`, the diff they would apply.
    pub preview: Option<String>,
}

impl ApprovalRequest {
    /// The question for a person, folded to 80 columns: the tool, its arguments, why the
    /// policy asks and what the call would do, and, last, the prompt again with the
    /// call's [`digest`](Self::digest).
    ///
    /// The arguments and the preview are the model's text, so they are quoted: each of
    /// their lines starts with a gutter (`  │ `, or `  ┆ ` where a long line is folded)
    /// that the question's own lines never start with; control, bidirectional and
    /// invisible format characters in them are shown escaped (`\u{1b}`), long lines are
    /// folded and long blocks cut with a note of what was left out. No text in a call
    /// can therefore put a line of its own into the question, only quote one:
    ///
    /// ```text
    /// Allow `exec` to run with these arguments? [call 77117285]
    ///   │ {
    ///   │   "command": "ls"
    ///   │ }
    /// Asked because of the ask rule `exec`.
    /// Lines after │ or ┆ quote the call; they are not part of this question.
    /// Allow `exec` to run? [call 77117285]
    /// ```
    ///
    /// Quoted text can still say anything in words; an approver shows the question's
    /// last line as its prompt, right before its choices.
    pub fn question(&self) -> String {
        framing::question(self, framing::DEFAULT_COLUMNS)
    }

    /// [`question`](Self::question) folded to a screen `columns` wide (between 24 and
    /// 240), so that no quoted line wraps there and starts a line without the gutter.
    /// Characters outside ASCII are counted two columns wide.
    pub fn question_within(&self, columns: usize) -> String {
        framing::question(self, columns)
    }

    /// Eight hexadecimal digits naming the call: the start of the SHA-256 of the
    /// canonical JSON (keys sorted at every level, no spaces) of
    /// `{"arguments", "preview", "title", "tool"}`. The question shows it first and last; a
    /// copy of the prompt written into the call's own text cannot carry the digest of the
    /// call it is part of (short of a search through some 2³² variants of the call).
    pub fn digest(&self) -> String {
        framing::digest(self)
    }
}

/// An approver's answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Approval {
    /// Run this call.
    AllowOnce,
    /// Run this call, and the tool's later calls in the same session without asking.
    AllowAlways,
    /// Do not run it; the reason, if any, is told to the model.
    Deny(Option<String>),
    /// Run it with these arguments instead (validated and checked against the deny rules
    /// again).
    AllowEdited(Value),
    /// Decide later: the call ends with a pending result
    /// ([`ToolResult::pending`](crate::registry::ToolResult::pending)), to be decided with
    /// [`ToolRegistry::resume`](crate::registry::ToolRegistry::resume).
    Defer,
}
