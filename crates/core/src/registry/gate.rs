//! The policy step of a call, between validation and the tool: decide, ask for approval
//! when the policy says so, or refuse (see [`crate::policy`] and [`crate::approval`]).

use std::pin::pin;
use std::sync::Arc;

use futures_util::future::{Either, select};
use serde_json::Value;

use super::call::CallOptions;
use super::recorder::AuditRecorder;
use super::{Entry, ToolRegistry};
use crate::approval::{APPROVAL_QUESTION, ask_by_form};
use crate::caller::Caller;
use crate::policy::{Decision, ToolRules};
use crate::{
    approval::{Approval, ApprovalRequest, PendingCall},
    audit::Outcome,
    policy::{Policy, Reason},
};

/// What came of asking for approval.
enum Answer {
    /// The answer, and who gave it when the caller knows.
    Given(Approval, Option<String>),
    /// Nobody can be asked.
    NoOne,
    /// The call was cancelled while waiting.
    Cancelled,
}

/// How a call ended without running.
pub(super) struct Refusal {
    pub(super) outcome: Outcome,
    pub(super) message: String,
    /// The call waits for a deferred approval (outcome `Pending`).
    pub(super) pending: Option<Box<PendingCall>>,
}

impl Refusal {
    pub(super) fn new(outcome: Outcome, message: String) -> Self {
        Self {
            outcome,
            message,
            pending: None,
        }
    }

    /// The call waits for `pending` to be decided; the registry keeps it until then.
    pub(super) fn pending(pending: PendingCall) -> Self {
        Self {
            outcome: Outcome::Pending,
            message: pending.message(),
            pending: Some(Box::new(pending)),
        }
    }
}

/// The parts of a call the gate looks at.
pub(super) struct Gated<'a> {
    pub(super) entry: &'a Entry,
    pub(super) call_id: &'a str,
    pub(super) options: &'a CallOptions,
    /// A hook allowed the call: the policy does not ask about it.
    pub(super) allowed_by_hook: bool,
}

impl ToolRegistry {
    /// The arguments to run the call with, or how it ended without running. Deciding is
    /// synchronous; only a call the policy asks about goes on to [`approve`](Self::approve).
    pub(super) async fn gate(
        &self,
        rules: &ToolRules,
        call: Gated<'_>,
        value: Value,
        recorder: &mut AuditRecorder<'_>,
    ) -> Result<(Value, bool), Refusal> {
        let (decision, pins) = Policy::decide_pinning(rules, &value);
        let mut value = match decision {
            Decision::Allow => value,
            Decision::Deny(reason) => return Err(denied(&call.entry.name, &reason)),
            // Boxed: asking holds a large future that calls which are decided at once do
            // not need to carry.
            Decision::Ask(reason) => Box::pin(self.approve(rules, call, reason, value, recorder)).await?,
        };
        // The tool acts on the paths the decision saw, with no link followed since.
        let pinned = pins.apply(&mut value);
        Ok((value, pinned))
    }

    /// A call the policy asks about: allowed already (by a hook or for the session), or
    /// put to whoever can approve it.
    async fn approve(
        &self,
        rules: &ToolRules,
        call: Gated<'_>,
        reason: Reason,
        value: Value,
        recorder: &mut AuditRecorder<'_>,
    ) -> Result<Value, Refusal> {
        let name = &call.entry.name;
        let session = call.options.session_id.as_ref();
        if call.allowed_by_hook || self.config().grants.is_granted(session, name) {
            return Ok(value);
        }
        let mut request = ApprovalRequest {
            call_id: call.call_id.to_owned(),
            tool: name.to_string(),
            title: call.entry.tool.spec().title().map(str::to_owned),
            arguments: value,
            reason: reason.clone(),
            session_id: session.map(|session| session.to_string()),
            principal: call.options.principal.as_deref().cloned(),
            preview: None,
        };
        match self.ask(&mut request, call.entry, call.options).await {
            Answer::Given(approval, by) => {
                recorder.approval(decision_name(&approval), by);
                let approved = Approved {
                    entry: call.entry,
                    rules: Some(rules),
                    session,
                };
                let arguments = std::mem::take(&mut request.arguments);
                let defer = move |arguments| PendingCall::new(ApprovalRequest { arguments, ..request });
                self.apply_approval(approved, arguments, approval, defer, recorder)
            }
            Answer::NoOne => Err(unapproved(name, &reason)),
            Answer::Cancelled => Err(Refusal::new(
                Outcome::Cancelled,
                format!("`{name}` was cancelled while it waited for approval"),
            )),
        }
    }

    /// Carries out a person's answer: the arguments to run the call with, or how it ended
    /// without running — refused, or deferred as the call `defer` makes of the arguments.
    pub(super) fn apply_approval(
        &self,
        approved: Approved<'_>,
        arguments: Value,
        approval: Approval,
        defer: impl FnOnce(Value) -> PendingCall,
        recorder: &mut AuditRecorder<'_>,
    ) -> Result<Value, Refusal> {
        let name = &approved.entry.name;
        match approval {
            Approval::AllowOnce => Ok(arguments),
            Approval::AllowAlways => {
                self.config().grants.grant(approved.session, name);
                Ok(arguments)
            }
            Approval::Deny(why) => Err(refused_by_user(name, why.as_deref())),
            Approval::AllowEdited(edited) => {
                let edited = checked_edit(approved.entry, approved.rules, edited)?;
                recorder.arguments(&edited);
                Ok(edited)
            }
            Approval::Defer => {
                let pending = defer(arguments);
                self.config().pending.insert(pending.clone());
                Err(Refusal::pending(pending))
            }
        }
    }

    /// Asks the call's approver, else the registry's, else the call's caller by a form;
    /// before asking anyone, the tool previews the call into `request`.
    async fn ask(&self, request: &mut ApprovalRequest, entry: &Entry, options: &CallOptions) -> Answer {
        let approver = options.approver.as_ref().or(self.config().approver.as_ref());
        let caller = options.caller.as_ref().or(self.config().caller.as_ref());
        if approver.is_none() && caller.is_none() {
            return Answer::NoOne;
        }
        let waiting = async {
            request.preview = entry.tool.preview(request.arguments.clone()).await;
            if let Some(approver) = approver {
                let approval = approver.approve(request).await;
                // Deferred, the question waits with the call when its caller keeps
                // questions (a task): answered there, by the client or from another program.
                match caller.filter(|caller| approval == Approval::Defer && caller.asks_later()) {
                    Some(caller) => return by_form(caller.as_ref(), request).await,
                    None => return Answer::Given(approval, None),
                }
            }
            match caller {
                Some(caller) => by_form(caller.as_ref(), request).await,
                None => Answer::NoOne,
            }
        };
        let Some(token) = &options.cancellation else {
            return waiting.await;
        };
        match select(pin!(waiting), pin!(token.cancelled())).await {
            Either::Left((answer, _)) => answer,
            Either::Right(_) => Answer::Cancelled,
        }
    }
}

/// Asks `caller`'s user about `request` by a form.
async fn by_form(caller: &dyn Caller, request: &ApprovalRequest) -> Answer {
    match ask_by_form(caller, request).await {
        Some(approval) => Answer::Given(approval, caller.answered_by(APPROVAL_QUESTION)),
        None => Answer::NoOne,
    }
}

/// The name the audit log gives an answer.
fn decision_name(approval: &Approval) -> &'static str {
    match approval {
        Approval::AllowOnce => "allow_once",
        Approval::AllowAlways => "allow_always",
        Approval::Deny(_) => "deny",
        Approval::AllowEdited(_) => "allow_edited",
        Approval::Defer => "defer",
    }
}

/// What an answer applies to.
pub(super) struct Approved<'a> {
    pub(super) entry: &'a Entry,
    /// The policy's rules for the tool, which edited arguments are checked against.
    pub(super) rules: Option<&'a ToolRules>,
    pub(super) session: Option<&'a Arc<str>>,
}

/// Arguments a person edited: valid for the tool, and not refused by a deny rule.
fn checked_edit(entry: &Entry, rules: Option<&ToolRules>, edited: Value) -> Result<Value, Refusal> {
    let edited = entry.checked(edited).map_err(|invalid| {
        let message = format!("the arguments as edited by the user are not valid: {invalid}");
        Refusal::new(Outcome::InvalidArguments, message)
    })?;
    match rules.map(|rules| Policy::decide(rules, &edited)) {
        Some(Decision::Deny(reason)) => Err(denied(&entry.name, &reason)),
        // A person approved these arguments: an ask is answered.
        None | Some(Decision::Allow | Decision::Ask(_)) => Ok(edited),
    }
}

pub(super) fn denied(name: &str, reason: &Reason) -> Refusal {
    Refusal::new(
        Outcome::Denied,
        format!(
            "`{name}` was not run: {reason} refuses it. Do not retry this call; do the task \
             another way, or tell the user what you need and why."
        ),
    )
}

/// The refusal says what the user can change, since the model cannot: the usual cause
/// is a first policy over tools that state no hints.
fn unapproved(name: &str, reason: &Reason) -> Refusal {
    let state_hints = match reason.by_undeclared_hints() {
        true => {
            "; if it changes nothing outside, mark the tool `#[tool(read_only)]` (or \
                 `#[tool(destructive = false, open_world = false)]`)"
        }
        false => "",
    };
    Refusal::new(
        Outcome::Denied,
        format!(
            "`{name}` was not run: it needs a person's approval ({reason}), and no one can be \
             asked here. Do not retry it; tell the user, who can let it run: allow it in the \
             policy (the rule `{name}`), pick a policy mode that runs it, or set an approver \
             who is asked{state_hints}."
        ),
    )
}

fn refused_by_user(name: &str, why: Option<&str>) -> Refusal {
    let why = why.map(|why| format!(": {why}")).unwrap_or_default();
    Refusal::new(
        Outcome::Denied,
        format!(
            "`{name}` was not run: the user refused it{why}. Do not retry it as it was; ask the \
             user what they want instead."
        ),
    )
}
