//! The requests of MCP's tasks extension (SEP-2663): `tasks/get`, `tasks/update`,
//! `tasks/cancel`, answered from the [`TaskRunner`]'s store.
//!
//! A task is its creator's: when requests are authorized, one made by another principal
//! reads as unknown (`-32602`, the same error as an id that never existed), so an id
//! seen in a log is not a way in. Without authorization, the id alone (128 random bits)
//! is the key.

use std::sync::Arc;

use agent_tools_core::context::Principal;
use agent_tools_core::task::{Answered, TaskRecord, TaskStatus, TaskStoreError};
use rmcp::ErrorData as McpError;
use rmcp::model::{GetTaskResult, InputResponses};

use super::task_runner::TaskRunner;
use crate::wire::tasks;

/// `tasks/get`: the task with its questions, result or error. A task ready for its next
/// round (its answers came through another server) gets that round here.
pub(crate) async fn get(
    runner: &Arc<TaskRunner>,
    id: &str,
    principal: Option<&Principal>,
) -> Result<GetTaskResult, McpError> {
    let task = read(runner, id, principal).await?;
    if task.status == TaskStatus::Working && task.lease.is_none() {
        runner.resume(id).await.map_err(store_error)?;
    }
    let detailed = tasks::detailed(&task)
        .map_err(|error| McpError::internal_error(format!("cannot read the task: {error}"), None))?;
    Ok(GetTaskResult::new(detailed))
}

/// `tasks/update`: answers to the task's questions (those it does not wait for are
/// ignored); once all are answered its next round starts here.
pub(crate) async fn update(
    runner: &Arc<TaskRunner>,
    id: &str,
    answers: InputResponses,
    principal: Option<&Principal>,
) -> Result<(), McpError> {
    read(runner, id, principal).await?;
    let by = principal.map_or("the MCP client", |principal| principal.subject.as_str());
    let answered = runner
        .tasks()
        .answer(id, answers, Some(by))
        .await
        .map_err(store_error)?;
    if answered == Some(Answered::Resumed) {
        runner.resume(id).await.map_err(store_error)?;
    }
    Ok(())
}

/// `tasks/cancel`: the task is cancelled unless it is over; a round running here stops
/// at once.
pub(crate) async fn cancel(
    runner: &TaskRunner,
    id: &str,
    principal: Option<&Principal>,
) -> Result<(), McpError> {
    read(runner, id, principal).await?;
    runner.tasks().cancel(id).await.map_err(store_error)?;
    runner.stop(id);
    Ok(())
}

/// The task `id` if it exists for `principal`.
async fn read(runner: &TaskRunner, id: &str, principal: Option<&Principal>) -> Result<TaskRecord, McpError> {
    let task = runner.tasks().read(id).await.map_err(store_error)?;
    task.filter(|task| owned_by(task, principal))
        .ok_or_else(|| McpError::invalid_params(format!("no task `{id}`"), None))
}

/// Whether `principal` may see `task`: its creator's, or anyone's when it has none.
fn owned_by(task: &TaskRecord, principal: Option<&Principal>) -> bool {
    match &task.call.principal {
        None => true,
        Some(owner) => principal.is_some_and(|principal| principal.subject == owner.subject),
    }
}

pub(crate) fn store_error(error: TaskStoreError) -> McpError {
    McpError::internal_error(format!("the task store failed: {error}"), None)
}
