//! Approval: who decides the calls a [`Policy`](crate::Policy) asks about.
//!
//! When the policy says *ask*, the registry asks, in this order: the call's own
//! [`Approver`] ([`ToolCall::with_approver`](crate::ToolCall::with_approver)), the
//! registry's ([`ToolRegistryBuilder::approver`](crate::ToolRegistryBuilder::approver)),
//! and otherwise the call's [`Caller`](crate::Caller) through a form
//! ([elicitation](crate::ElicitRequest)) — over MCP that is the client, so a person approves
//! in Claude Desktop's or VS Code's own UI. When none of them can ask (a client without
//! elicitation, a program without a person), the call is refused with a message saying
//! that approval was needed and how to allow the call.
//!
//! An answer is one of [`Approval`]: allow once; allow always (the tool runs without asking
//! for the rest of the session, [`ToolCall::with_session_id`](crate::ToolCall::with_session_id));
//! deny, with a reason the model is told; allow with edited arguments, which are
//! validated again and checked against the deny rules again; or defer: the call ends with
//! a pending result whose [`PendingCall`] the application keeps (it is serializable) and
//! decides later with [`ToolRegistry::resume`](crate::ToolRegistry::resume) — in this
//! process, or in another after [`ToolRegistry::restore`](crate::ToolRegistry::restore).
//! [`ApproveLater`] defers every call.
//!
//! Before asking, the registry asks the tool what the call would do
//! ([`Tool::preview`](crate::Tool::preview)): `write_file` and `edit_file` show the diff
//! they would apply. The question ([`ApprovalRequest::question`]) carries it.
//!
//! What this does not do: it does not check that a person, not a program, gave the answer
//! (an MCP client answers for its user), and waiting for an answer is bounded by the call's
//! cancellation, not its timeout — the timeout starts when the tool does.

mod by_form;
mod grants;
mod pending;

use std::sync::Arc;

use serde_json::Value;

use crate::tool::BoxFuture;
use crate::{Principal, Reason};

pub(crate) use by_form::ask_by_form;
pub(crate) use grants::SessionGrants;
pub(crate) use pending::PendingCalls;
pub use pending::{ApproveLater, PendingCall, ResumeError};

/// Decides the calls a policy asks about.
///
/// ```
/// use tool_core::{Approval, ApprovalRequest, Approver, BoxFuture};
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
    note = "implement `tool_core::Approver`: `fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Approval>`"
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
    /// What the call would do, if the tool can say ([`Tool::preview`](crate::Tool::preview)):
    /// for `write_file` and `edit_file`, the diff they would apply.
    pub preview: Option<String>,
}

impl ApprovalRequest {
    /// A one-paragraph question for a person: the tool, its arguments and why it asks.
    pub fn question(&self) -> String {
        let tool = match &self.title {
            Some(title) => format!("`{}` ({title})", self.tool),
            None => format!("`{}`", self.tool),
        };
        let arguments =
            serde_json::to_string_pretty(&self.arguments).unwrap_or_else(|_| self.arguments.to_string());
        let mut question = format!(
            "Allow {tool} to run with these arguments?\n{arguments}\nAsked because of {}.",
            self.reason
        );
        if let Some(preview) = &self.preview {
            question.push_str("\nWhat it would do:\n");
            question.push_str(preview);
        }
        question
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
    /// ([`ToolResult::pending`](crate::ToolResult::pending)), to be decided with
    /// [`ToolRegistry::resume`](crate::ToolRegistry::resume).
    Defer,
}
