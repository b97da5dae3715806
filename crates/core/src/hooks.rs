//! Hooks: the [`Hook`] trait, code of the application's own that sees every call.

use serde_json::Value;

use crate::tool::BoxFuture;
use crate::{audit::Outcome, output::ToolOutput, principal::Principal, spec::ToolSpec};

/// Code of the application's own that sees every call, before the tool runs and
/// after — to veto, rewrite or answer a call, or to change what the model gets back.
///
/// Hooks run in the order they were added ([`ToolRegistryBuilder::hook`]) for every tool
/// of the registry, mounted ones included. Before a call: after its arguments are
/// validated, before the [policy](crate::policy::Policy). A hook may let the call go on, allow it
/// without asking (a deny rule still refuses it), refuse it with a message, rewrite its
/// arguments (validated again, and the later hooks and the policy see the new ones), or
/// answer in the tool's place; the first refusal or answer ends the call. After a call
/// whose tool ran, each hook may replace or annotate the output (redact it, add a note).
///
/// What hooks do not do: they run in the process, with the process's rights, and are not
/// isolated like tools are — a hook that panics or hangs takes the call with it.
///
/// Both methods default to doing nothing.
///
/// [`ToolRegistryBuilder::hook`]: crate::registry::ToolRegistryBuilder::hook
///
/// ```
/// use agent_tools_core::{hooks::{BeforeCall, Hook, HookCall}, tool::BoxFuture};
///
/// /// Keeps the model off the production database.
/// struct NoProduction;
///
/// impl Hook for NoProduction {
///     fn before_call<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, BeforeCall> {
///         Box::pin(async move {
///             if call.arguments.to_string().contains("prod-db") {
///                 BeforeCall::Deny("the production database is off limits".into())
///             } else {
///                 BeforeCall::Continue
///             }
///         })
///     }
/// }
/// ```
pub trait Hook: Send + Sync + 'static {
    /// Before the tool runs (and before the policy decides).
    fn before_call<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, BeforeCall> {
        let _ = call;
        Box::pin(async { BeforeCall::Continue })
    }

    /// After the tool ran: the output the model will get, which the hook may change.
    fn after_call<'a>(
        &'a self,
        call: &'a HookCall<'a>,
        outcome: Outcome,
        output: ToolOutput,
    ) -> BoxFuture<'a, ToolOutput> {
        let _ = (call, outcome);
        Box::pin(async move { output })
    }
}

/// The call a hook sees.
#[derive(Debug)]
#[non_exhaustive]
pub struct HookCall<'a> {
    /// The call's id.
    pub call_id: &'a str,
    /// The tool.
    pub spec: &'a ToolSpec,
    /// The validated arguments (as rewritten by earlier hooks).
    pub arguments: &'a Value,
    /// The call's session, if any.
    pub session_id: Option<&'a str>,
    /// Who the call is made for, when the transport authenticated a user.
    pub principal: Option<&'a Principal>,
}

/// What a hook does with a call before the tool runs.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BeforeCall {
    /// Go on: the next hook, then the policy.
    Continue,
    /// Run it without asking for approval (deny rules and later hooks may still refuse).
    Allow,
    /// Do not run it; the message is the model's error result.
    Deny(String),
    /// Go on with these arguments instead, validated again.
    Rewrite(Value),
    /// Do not run the tool: this is its result.
    Answer(ToolOutput),
}
