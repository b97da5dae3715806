//! Our [`TaskRecord`]s as MCP's tasks extension (SEP-2663) writes them: the `Task` of a
//! `CreateTaskResult` and the `DetailedTask` of `tasks/get`, whose result, error or
//! questions are inlined by status.

use std::time::{Duration, UNIX_EPOCH};

use agent_tools_core::task::{TaskRecord, TaskStatus};
use rmcp::model::{DetailedTask, InputRequests, JsonObject, Task, TaskPayload, TaskStatus as McpStatus};
use serde_json::Value;

/// The task's base fields: id, status, timestamps, time to live, poll interval.
pub(crate) fn task(record: &TaskRecord) -> Task {
    let mut task = Task::new(
        record.id.clone(),
        status(record.status),
        timestamp(record.created_ms),
        timestamp(record.updated_ms),
    )
    .with_poll_interval_ms(record.poll_interval_ms);
    task.ttl_ms = record
        .expires_ms
        .map(|expires| expires.saturating_sub(record.created_ms));
    if let Some(message) = &record.status_message {
        task = task.with_status_message(message.clone());
    }
    task
}

/// The task with what its status carries: the questions it waits on, its result or its
/// error. A stored part that does not read as MCP's shape (a record written by another
/// version) fails the task's reading rather than the server.
pub(crate) fn detailed(record: &TaskRecord) -> Result<DetailedTask, serde_json::Error> {
    let payload = match record.status {
        TaskStatus::InputRequired => TaskPayload::InputRequired {
            input_requests: serde_json::from_value::<InputRequests>(Value::Object(
                record.pending.clone().into_iter().collect(),
            ))?,
        },
        TaskStatus::Completed => TaskPayload::Completed {
            result: object(record.result.clone())?,
        },
        TaskStatus::Failed => TaskPayload::Failed {
            error: object(record.error.clone())?,
        },
        TaskStatus::Cancelled => TaskPayload::Cancelled,
        _ => TaskPayload::Working,
    };
    Ok(DetailedTask::new(task(record), payload))
}

fn object(value: Option<Value>) -> Result<JsonObject, serde_json::Error> {
    serde_json::from_value(value.unwrap_or(Value::Object(JsonObject::new())))
}

fn status(status: TaskStatus) -> McpStatus {
    match status {
        TaskStatus::InputRequired => McpStatus::InputRequired,
        TaskStatus::Completed => McpStatus::Completed,
        TaskStatus::Failed => McpStatus::Failed,
        TaskStatus::Cancelled => McpStatus::Cancelled,
        _ => McpStatus::Working,
    }
}

/// Milliseconds since the Unix epoch as ISO 8601 (`2026-12-03T18:31:22.418Z`).
fn timestamp(ms: u64) -> String {
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(ms)).to_string()
}
