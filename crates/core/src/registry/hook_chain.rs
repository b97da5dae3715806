//! Running the registry's [hooks](crate::hooks) around a call.

use serde_json::Value;

use super::gate::Refusal;
use super::{Entry, ToolRegistry};
use crate::{
    audit::Outcome,
    hooks::{BeforeCall, HookCall},
    output::ToolOutput,
    principal::Principal,
};

/// How the hooks before a call let it go on.
pub(super) struct Passed {
    pub(super) arguments: Value,
    /// A hook allowed the call: the policy does not ask about it.
    pub(super) allowed: bool,
}

/// Whose call the hooks see: its id, session and principal.
#[derive(Clone, Copy)]
pub(super) struct Whose<'a> {
    pub(super) call_id: &'a str,
    pub(super) session_id: Option<&'a str>,
    pub(super) principal: Option<&'a Principal>,
}

impl<'a> Whose<'a> {
    fn hook_call(self, entry: &'a Entry, arguments: &'a Value) -> HookCall<'a> {
        HookCall {
            call_id: self.call_id,
            spec: entry.tool.spec(),
            arguments,
            session_id: self.session_id,
            principal: self.principal,
        }
    }
}

/// How the hooks before a call ended it (or the policy did).
pub(super) enum Ended {
    Refused(Refusal),
    Answered(ToolOutput),
}

impl ToolRegistry {
    /// Runs the hooks before a call, in order.
    pub(super) async fn before_hooks(
        &self,
        entry: &Entry,
        whose: Whose<'_>,
        mut arguments: Value,
    ) -> Result<Passed, Ended> {
        let mut allowed = false;
        for hook in self.config().hooks.iter() {
            let call = whose.hook_call(entry, &arguments);
            match hook.before_call(&call).await {
                BeforeCall::Continue => {}
                BeforeCall::Allow => allowed = true,
                BeforeCall::Deny(message) => {
                    return Err(Ended::Refused(Refusal::new(Outcome::Denied, message)));
                }
                BeforeCall::Answer(output) => return Err(Ended::Answered(output)),
                BeforeCall::Rewrite(rewritten) => arguments = checked_rewrite(entry, rewritten)?,
            }
        }
        Ok(Passed { arguments, allowed })
    }

    /// Runs the hooks after a call whose tool ran, in order, each on the output the one
    /// before it left.
    pub(super) async fn after_hooks(
        &self,
        entry: &Entry,
        whose: Whose<'_>,
        arguments: &Value,
        outcome: Outcome,
        mut output: ToolOutput,
    ) -> ToolOutput {
        for hook in self.config().hooks.iter() {
            let call = whose.hook_call(entry, arguments);
            output = hook.after_call(&call, outcome, output).await;
        }
        output
    }
}

/// Arguments a hook rewrote, if they are valid for the tool.
fn checked_rewrite(entry: &Entry, rewritten: Value) -> Result<Value, Ended> {
    entry.checked(rewritten).map_err(|invalid| {
        let message = format!("the arguments as rewritten by a hook are not valid: {invalid}");
        Ended::Refused(Refusal::new(Outcome::InvalidArguments, message))
    })
}
