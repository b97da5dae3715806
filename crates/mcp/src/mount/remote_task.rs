//! A mounted tool's call that its server made a task (MCP's tasks extension, SEP-2663):
//! followed to its result, so that the mounting call gets what a call without a task
//! would have got.
//!
//! The task is polled with `tasks/get` at the interval the server suggests (kept between
//! 25 ms and 5 s); a change of its status message reaches the call's progress; questions
//! it waits on (`input_required`) go to the call's caller, as those of an input-required
//! result do ([`input_rounds`]), and the answers go back with
//! `tasks/update`; its result, or its error, ends the call. When the mounting call stops
//! waiting (cancelled, timed out, dropped), the task is cancelled with `tasks/cancel`.
//!
//! What it does not do: follow a task beyond the session it was created on (a server
//! that restarts loses the call, as it would without a task), or listen for the
//! optional status notifications instead of polling.

use std::time::Duration;

use agent_tools_core::{ToolContext, ToolOutput};
use rmcp::model::{
    CallToolResult, ClientRequest, CreateTaskResult, DetailedTask, GetTaskParams, GetTaskRequest,
    InputRequiredResult, ServerResult, TaskPayload, UpdateTaskParams, UpdateTaskRequest,
};

use super::cancel::CancelTaskOnDrop;
use super::connection::{Failure, Session};
use super::input_rounds;
use crate::wire::tools;

/// The poll interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

/// Follows the task `created` on `session` until it ends; the call's output.
pub(super) async fn follow(
    session: &Session,
    created: CreateTaskResult,
    ctx: &ToolContext,
) -> Result<ToolOutput, Failure> {
    let id = created.task.task_id.clone();
    // Until the task ends, a call that stops waiting cancels it.
    let mut guard = CancelTaskOnDrop {
        peer: session.peer().clone(),
        task_id: Some(id.clone()),
    };
    let ended = poll(session, &id, created.task.poll_interval_ms, ctx).await;
    if matches!(ended, Ok(_) | Err(Failure::Remote(_))) {
        guard.disarm();
    }
    ended
}

/// Polls task `id` until it ends, answering its questions.
async fn poll(
    session: &Session,
    id: &str,
    suggested: Option<u64>,
    ctx: &ToolContext,
) -> Result<ToolOutput, Failure> {
    let mut interval = poll_interval(suggested);
    let mut message = None;
    let mut rounds = 0;
    let mut polls = 0_u32;
    loop {
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            () = ctx.cancelled() => return Err(Failure::Cancelled),
        }
        let task = get(session, id, ctx).await?;
        polls += 1;
        interval = poll_interval(task.task.poll_interval_ms);
        if task.task.status_message != message {
            message.clone_from(&task.task.status_message);
            if let Some(text) = &message {
                ctx.report_progress(f64::from(polls), None, Some(text));
            }
        }
        match task.payload {
            TaskPayload::Completed { result } => return completed(result),
            TaskPayload::Failed { error } => return Err(Failure::Remote(failed(&error))),
            TaskPayload::Cancelled => {
                return Err(Failure::Remote("the server cancelled the task".to_owned()));
            }
            TaskPayload::InputRequired { input_requests } => {
                rounds += 1;
                answer(session, id, input_requests, rounds, ctx).await?;
            }
            _ => {}
        }
    }
}

/// `tasks/get`.
async fn get(session: &Session, id: &str, ctx: &ToolContext) -> Result<DetailedTask, Failure> {
    let request = ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(id)));
    match session.request(request, ctx).await? {
        ServerResult::GetTaskResult(result) => Ok(result.task),
        _ => Err(Failure::Remote(
            "it answered tasks/get with something else than a task".to_owned(),
        )),
    }
}

/// Puts the task's questions to the call's caller, and the answers to the task.
async fn answer(
    session: &Session,
    id: &str,
    input_requests: rmcp::model::InputRequests,
    round: usize,
    ctx: &ToolContext,
) -> Result<(), Failure> {
    let asked = InputRequiredResult::new(Some(input_requests), None);
    let retry = input_rounds::answer(asked, round, ctx).await?;
    let answers = retry.input_responses.unwrap_or_default();
    let request =
        ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(UpdateTaskParams::new(id, answers)));
    session.request(request, ctx).await.map(drop)
}

/// The output of a completed task's result.
fn completed(result: rmcp::model::JsonObject) -> Result<ToolOutput, Failure> {
    let result: CallToolResult = serde_json::from_value(serde_json::Value::Object(result))
        .map_err(|error| Failure::Remote(format!("its task's result is not a tool result: {error}")))?;
    Ok(tools::tool_output(&result))
}

/// What a failed task's JSON-RPC error says.
fn failed(error: &rmcp::model::JsonObject) -> String {
    let message = error
        .get("message")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("no reason given");
    format!("its task failed: {message}")
}

fn poll_interval(suggested: Option<u64>) -> Duration {
    suggested
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_POLL)
        .clamp(Duration::from_millis(25), Duration::from_secs(5))
}
