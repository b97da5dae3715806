//! What runs a sub-agent: anything that turns a task and a set of tools into an answer.

use agent_tools_core::{ToolRegistry, tool::BoxFuture};
use tokio_util::sync::CancellationToken;

use crate::BoxError;

/// Runs one agent: a task, the tools it may use, and a token that says when to stop.
/// Returns the final answer or why there is none (any error: `"text".into()` or `?`
/// makes one; its [`error_chain`](agent_tools_core::error::error_chain) is what the status shows).
pub trait AgentRunner: Send + Sync + 'static {
    /// Works on `task` with `tools` until it has an answer, fails, or `cancel` fires.
    fn run(
        &self,
        task: String,
        tools: ToolRegistry,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<String, BoxError>>;
}

/// Closures are runners: handy for tests and for wrapping another agent framework.
impl<F> AgentRunner for F
where
    F: Fn(String, ToolRegistry, CancellationToken) -> BoxFuture<'static, Result<String, BoxError>>
        + Send
        + Sync
        + 'static,
{
    fn run(
        &self,
        task: String,
        tools: ToolRegistry,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<String, BoxError>> {
        self(task, tools, cancel)
    }
}
