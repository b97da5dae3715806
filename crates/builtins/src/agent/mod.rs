//! `spawn`: hand a task to a sub-agent that works in the background.
//!
//! The tool returns at once with the sub-agent's id; the result reaches the parent
//! through the manager's completion callback. [`LocalSubagents`] runs sub-agents in
//! this process with limits (concurrency, queued and total per session, time from the
//! call, cancellation, no nested spawning);
//! [`OpenAiCompatibleRunner`] is an agent loop over any OpenAI-compatible endpoint.

mod manager;
mod openai;
mod runner;

use agent_tools_core::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;

pub use manager::{
    CompletionCallback, LocalSubagents, LocalSubagentsBuilder, SpawnRequest, SubagentInfo, SubagentManager,
    SubagentStatus,
};
pub use openai::{DEFAULT_SYSTEM_PROMPT, OpenAiCompatibleRunner};
pub use runner::AgentRunner;

/// Arguments of `spawn`.
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SpawnArgs {
    /// The task, complete and self-contained: the sub-agent sees nothing else (not this
    /// conversation), so include the goal, the files or facts it needs, and what to
    /// report back.
    pub task: String,
    /// A short label to recognize the sub-agent by.
    pub label: Option<String>,
}

/// Starts a sub-agent for the session `session_id` (whose limits it counts against) and
/// says how it will report.
pub(crate) fn spawn(
    manager: &dyn SubagentManager,
    session_id: Option<&str>,
    args: SpawnArgs,
) -> Result<String, ToolError> {
    if args.task.trim().is_empty() {
        return Err(ToolError::new(
            "`task` is empty; describe the work for the sub-agent",
        ));
    }
    let request = SpawnRequest {
        task: args.task,
        label: args.label,
        session_id: session_id.map(str::to_owned),
    };
    let info = manager.spawn(request)?;
    Ok(format!(
        "Started sub-agent {} ({}). It works in the background; its result will be delivered when it finishes.",
        info.id, info.label
    ))
}

#[cfg(test)]
mod tests;
