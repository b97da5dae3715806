//! The policy step of a call, between validation and the tool: decide, ask for approval
//! when the policy says so, or refuse (see [`crate::policy`] and [`crate::approval`]).

use std::pin::pin;
use std::sync::Arc;

use futures_util::future::{Either, select};
use serde_json::Value;

use super::call::CallOptions;
use super::recorder::AuditRecorder;
use super::{Entry, ToolRegistry};
use crate::approval::ask_by_form;
use crate::policy::{Decision, ToolRules};
use crate::{Approval, ApprovalRequest, Outcome, Policy, Reason};

/// What came of asking for approval.
enum Answer {
    Given(Approval),
    /// Nobody can be asked.
    NoOne,
    /// The call was cancelled while waiting.
    Cancelled,
}

/// How a call ended without running.
pub(super) struct Refusal {
    pub(super) outcome: Outcome,
    pub(super) message: String,
}

impl Refusal {
    pub(super) fn new(outcome: Outcome, message: String) -> Self {
        Self { outcome, message }
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
    /// The arguments to run the call with, or how it ended without running.
    pub(super) async fn gate(
        &self,
        rules: Option<Arc<ToolRules>>,
        call: Gated<'_>,
        value: Value,
        recorder: &mut AuditRecorder<'_>,
    ) -> Result<Value, Refusal> {
        let Some(rules) = rules else {
            return Ok(value);
        };
        let name = &call.entry.name;
        let reason = match Policy::decide(&rules, &value) {
            Decision::Allow => return Ok(value),
            Decision::Deny(reason) => return Err(denied(name, &reason)),
            Decision::Ask(reason) => reason,
        };
        let session = call.options.session_id.as_ref();
        let grants = &self.config().grants;
        if call.allowed_by_hook || grants.is_granted(session, name) {
            return Ok(value);
        }
        let request = ApprovalRequest {
            call_id: call.call_id.to_owned(),
            tool: name.to_string(),
            title: call.entry.tool.spec().title().map(str::to_owned),
            arguments: value.clone(),
            reason: reason.clone(),
            session_id: session.map(|session| session.to_string()),
        };
        match self.ask(&request, call.options).await {
            Answer::Given(Approval::AllowOnce) => Ok(value),
            Answer::Given(Approval::AllowAlways) => {
                grants.grant(session, name);
                Ok(value)
            }
            Answer::Given(Approval::Deny(why)) => Err(refused_by_user(name, why.as_deref())),
            Answer::Given(Approval::AllowEdited(edited)) => {
                let edited = checked_edit(call.entry, &rules, edited)?;
                recorder.arguments(&edited);
                Ok(edited)
            }
            Answer::NoOne => Err(unapproved(name, &reason)),
            Answer::Cancelled => Err(Refusal::new(
                Outcome::Cancelled,
                format!("`{name}` was cancelled while it waited for approval"),
            )),
        }
    }

    /// Asks the call's approver, else the registry's, else the call's caller by a form.
    async fn ask(&self, request: &ApprovalRequest, options: &CallOptions) -> Answer {
        let waiting = async {
            if let Some(approver) = options.approver.as_ref().or(self.config().approver.as_ref()) {
                return Answer::Given(approver.approve(request).await);
            }
            let Some(caller) = options.caller.as_ref().or(self.config().caller.as_ref()) else {
                return Answer::NoOne;
            };
            ask_by_form(caller.as_ref(), request)
                .await
                .map_or(Answer::NoOne, Answer::Given)
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

/// Arguments a person edited: valid for the tool, and not refused by a deny rule.
fn checked_edit(entry: &Entry, rules: &ToolRules, edited: Value) -> Result<Value, Refusal> {
    let edited = entry.checked(edited).map_err(|invalid| {
        let message = format!("the arguments as edited by the user are not valid: {invalid}");
        Refusal::new(Outcome::InvalidArguments, message)
    })?;
    match Policy::decide(rules, &edited) {
        Decision::Deny(reason) => Err(denied(&entry.name, &reason)),
        // A person approved these arguments: an ask is answered.
        Decision::Allow | Decision::Ask(_) => Ok(edited),
    }
}

fn denied(name: &str, reason: &Reason) -> Refusal {
    Refusal::new(
        Outcome::Denied,
        format!(
            "`{name}` was not run: {reason} refuses it. Do not retry this call; do the task \
             another way, or tell the user what you need and why."
        ),
    )
}

fn unapproved(name: &str, reason: &Reason) -> Refusal {
    Refusal::new(
        Outcome::Denied,
        format!(
            "`{name}` was not run: it needs a person's approval ({reason}), and no one can be \
             asked here. Do not retry it; tell the user, who can allow it with an `allow` rule \
             in the policy."
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
