//! `[tasks]`: where served calls that became MCP tasks are kept; and `approvals`, which
//! answers the approvals such tasks wait for, from any process that reaches the store.
//!
//! A task waiting for a person holds no process: its question (`approval`) is in the
//! store, and a server runs the call when an answer is there and its client polls. So
//! `approvals allow` need not reach the server that made the task, only the store.

use std::collections::BTreeMap;
use std::time::Duration;

use agent_tools::approval::APPROVAL_QUESTION;
use agent_tools::postgres::{PostgresTaskStore, TaskStoreOptions};
use agent_tools::serde_json::{Value, json};
use agent_tools::task::{Answered, TaskOptions, TaskRecord, TaskStatus, Tasks};
use agent_tools::tool::TaskSupport;

use super::args::ApprovalsCommand;
use super::config::TasksConfig;
use super::{CliError, EXIT_OK, EXIT_TOOL_ERROR, Io, env_token};

/// The tasks of the configured store; `None` without one (serving keeps tasks in its
/// own memory then).
pub(super) async fn open(config: &TasksConfig) -> Result<Option<Tasks>, CliError> {
    let url = match (&config.postgres_url, &config.postgres_url_env) {
        (Some(url), _) => url.clone(),
        (None, Some(variable)) => env_token(variable, "[tasks] postgres_url_env")?,
        (None, None) => return Ok(None),
    };
    let store = PostgresTaskStore::connect(&url, TaskStoreOptions::default())
        .await
        .map_err(|error| CliError(format!("cannot open the task store: {error}")))?;
    let mut options = TaskOptions::default();
    if let Some(ttl) = config.ttl {
        options = options.ttl(ttl);
    }
    if let Some(lease) = config.lease {
        options = options.lease(lease);
    }
    Ok(Some(Tasks::new(store).with_options(options)))
}

/// `[tasks] default`: whether calls of tools that state nothing may be tasks.
pub(super) fn default_support(config: &TasksConfig) -> Result<Option<TaskSupport>, CliError> {
    config
        .default
        .as_deref()
        .map(|name| {
            TaskSupport::from_name(name).ok_or_else(|| {
                CliError(format!(
                    "[tasks] default = \"{name}\": expected \"forbidden\", \"optional\" or \"required\""
                ))
            })
        })
        .transpose()
}

/// `approvals list|allow|deny`.
pub(super) async fn approvals(
    command: &ApprovalsCommand,
    config: &TasksConfig,
    io: &mut Io<'_>,
) -> Result<u8, CliError> {
    let tasks = open(config).await?.ok_or_else(|| {
        CliError(
            "approvals are kept in the servers' task store: set [tasks] postgres_url (or postgres_url_env) in --config".to_owned(),
        )
    })?;
    match command {
        ApprovalsCommand::List => list(&tasks, io).await,
        ApprovalsCommand::Allow { id, always, by } => {
            let decision = if *always { "allow_always" } else { "allow_once" };
            decide(&tasks, id, json!({"decision": decision}), by.as_deref(), io).await
        }
        ApprovalsCommand::Deny { id, reason, by } => {
            let content = json!({"decision": "deny", "reason": reason.clone().unwrap_or_default()});
            decide(&tasks, id, content, by.as_deref(), io).await
        }
    }
}

/// At most this many waiting tasks are listed.
const LIST_LIMIT: usize = 1000;

async fn list(tasks: &Tasks, io: &mut Io<'_>) -> Result<u8, CliError> {
    let waiting = tasks
        .list(TaskStatus::InputRequired, LIST_LIMIT)
        .await
        .map_err(store_error)?;
    let approvals: Vec<&TaskRecord> = waiting.iter().filter(|task| waits_for_approval(task)).collect();
    if approvals.is_empty() {
        writeln!(io.stdout, "no task waits for an approval").map_err(CliError::output)?;
    }
    for task in approvals {
        let arguments = one_line(&task.call.arguments.to_string(), 100);
        let since =
            humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + Duration::from_millis(task.updated_ms));
        writeln!(
            io.stdout,
            "{}  {}  {arguments}  (waiting since {since})",
            task.id, task.call.tool
        )
        .map_err(CliError::output)?;
    }
    Ok(EXIT_OK)
}

/// Answers task `id`'s approval with the form `content`, as `by` (default `$USER`).
async fn decide(
    tasks: &Tasks,
    id: &str,
    content: Value,
    by: Option<&str>,
    io: &mut Io<'_>,
) -> Result<u8, CliError> {
    let task = tasks.read(id).await.map_err(store_error)?;
    let Some(task) = task.filter(waits_for_approval) else {
        writeln!(
            io.stderr,
            "agent-tools: task `{id}` does not wait for an approval (see `approvals list`)"
        )
        .map_err(CliError::output)?;
        return Ok(EXIT_TOOL_ERROR);
    };
    let by = by
        .map(str::to_owned)
        .unwrap_or_else(|| std::env::var("USER").unwrap_or_else(|_| "unknown".to_owned()));
    let answer = json!({"action": "accept", "content": content});
    let answers = BTreeMap::from([(APPROVAL_QUESTION.to_owned(), answer)]);
    let answered = tasks.answer(id, answers, Some(&by)).await.map_err(store_error)?;
    let said = match answered {
        Some(Answered::Resumed) => "its call runs when its client next asks for it",
        Some(Answered::Waiting(_)) => "it still waits for other answers",
        _ => "it was decided meanwhile; nothing changed",
    };
    writeln!(
        io.stdout,
        "{}: {} ({said})",
        task.id,
        content["decision"].as_str().unwrap_or_default()
    )
    .map_err(CliError::output)?;
    Ok(EXIT_OK)
}

fn waits_for_approval(task: &TaskRecord) -> bool {
    task.status == TaskStatus::InputRequired && task.pending.contains_key(APPROVAL_QUESTION)
}

/// `text` on one line, cut to `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

fn store_error(error: agent_tools::task::TaskStoreError) -> CliError {
    CliError(format!("the task store failed: {error}"))
}
