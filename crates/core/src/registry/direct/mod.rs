//! When a call takes the direct path: its arguments deserialized straight from the JSON
//! text into the tool's argument type, with no parsed [`Value`] and no schema check
//! (`direct/mod.rs` says for which tools that decides every call as the check would).
//!
//! Besides such a tool, it takes a call in which nothing else reads the parsed value:
//! - the arguments are JSON text: a parsed value (Anthropic, MCP) is validated as usual,
//!   and a freeform call's text becomes a value;
//! - the registry has no audit sink and no tracer: the event and the span carry the
//!   arguments;
//! - no hooks: they see the arguments before and after the call, and may rewrite them;
//! - no policy: its rules match the arguments, and asking about a call shows them (the
//!   approver's question, the tool's preview, a deferred call kept to resume).
//!
//! Nothing else in the pipeline reads them: the session's call cap, the tool's permits,
//! timeout, cancellation and panic isolation, the retry budget, the result budget and
//! the output limit work alike on both paths. Derived registries keep it (a renamed tool
//! forwards it). When the direct read fails the call goes the usual way from the same
//! text, so a refused call's outcome and message do not depend on the path.

use serde_json::Value;

use super::{Entry, ToolArguments, ToolRegistry};
use crate::context::ToolContext;
use crate::direct::DirectCall;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::tool::{BoxFuture, Tool};

/// What a tool runs on.
pub(crate) enum CallArguments<'a> {
    /// Arguments the schema has checked.
    Value(Value),
    /// Arguments read from the text, already in the call.
    Direct(DirectCall<'a>),
}

impl<'a> CallArguments<'a> {
    /// Starts `tool` on the arguments.
    pub(crate) fn start(
        self,
        tool: &'a dyn Tool,
        ctx: ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        match self {
            CallArguments::Value(value) => tool.call(value, ctx),
            CallArguments::Direct(call) => call.call(ctx),
        }
    }
}

impl ToolRegistry {
    /// The call of `entry`'s tool ready to run, when it takes the direct path; `None`
    /// sends it the usual way.
    pub(super) fn direct_call<'e>(
        &self,
        entry: &'e Entry,
        arguments: &ToolArguments,
    ) -> Option<DirectCall<'e>> {
        let ToolArguments::Json(text) = arguments else {
            return None;
        };
        if !self.takes_direct_path(entry) {
            return None;
        }
        let call = entry.tool.__direct_call(text)?;
        #[cfg(test)]
        DIRECT_CALLS.with(|calls| calls.set(calls.get() + 1));
        Some(call)
    }

    /// Whether calls of `entry`'s tool with JSON text take the direct path in this
    /// registry (when the text reads cleanly).
    pub(crate) fn takes_direct_path(&self, entry: &Entry) -> bool {
        let config = self.config();
        entry.direct
            && config.sinks.is_empty()
            && config.tracer.is_none()
            && config.hooks.is_empty()
            && config.policy.is_none()
    }
}

#[cfg(test)]
thread_local! {
    /// How many calls on this thread took the direct path, for the tests.
    static DIRECT_CALLS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod corpus;
#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
