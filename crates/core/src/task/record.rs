//! What is kept of a task: [`TaskRecord`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::principal::Principal;

/// Where a task is in its life (MCP's task statuses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Running a round, or ready for a server to run the next one.
    Working,
    /// Waiting for answers to its [`pending`](TaskRecord::pending) questions.
    InputRequired,
    /// The call finished; its result (which may be a tool's error) is in
    /// [`result`](TaskRecord::result).
    Completed,
    /// The call could not produce a result; why is in [`error`](TaskRecord::error).
    Failed,
    /// Cancelled by the client (or a person) before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task is over: completed, failed or cancelled.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The status as MCP writes it: `working`, `input_required`, `completed`, `failed`,
    /// `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// The status named `name` ([`as_str`](Self::as_str)).
    pub fn from_name(name: &str) -> Option<Self> {
        [
            TaskStatus::Working,
            TaskStatus::InputRequired,
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ]
        .into_iter()
        .find(|status| status.as_str() == name)
    }
}

/// The call a task runs, as a server needs it to run the next round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskCall {
    /// The tool's name.
    pub tool: String,
    /// The call's (validated) arguments.
    pub arguments: Value,
    /// Who made the call, when the request was authorized; only they may see the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<Principal>,
    /// What the client said it can answer (its MCP `clientCapabilities`), for the
    /// questions of later rounds.
    #[serde(default)]
    pub client: Value,
}

impl TaskCall {
    /// A call of `tool` with `arguments`, by nobody in particular, from a client that
    /// declared nothing.
    pub fn new(tool: impl Into<String>, arguments: Value) -> Self {
        Self {
            tool: tool.into(),
            arguments,
            principal: None,
            client: Value::Null,
        }
    }

    /// Made by `principal`.
    pub fn with_principal(mut self, principal: Option<Principal>) -> Self {
        self.principal = principal;
        self
    }

    /// From a client that declared `capabilities`.
    pub fn with_client(mut self, capabilities: Value) -> Self {
        self.client = capabilities;
        self
    }
}

/// A server's hold on a task while it runs a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Lease {
    /// Which server holds it (an id of its own making, unique per process).
    pub holder: String,
    /// When it ends unless renewed, in milliseconds since the Unix epoch.
    pub until_ms: u64,
}

/// A task as a [`TaskStore`](super::TaskStore) keeps it. Questions, answers, the result
/// and the error are JSON as MCP carries them; the store does not read them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's id: random, unguessable.
    pub id: String,
    /// Where it is in its life.
    pub status: TaskStatus,
    /// A line for people on what it is doing or waiting for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// When it last changed, in milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// When it is forgotten, in milliseconds since the Unix epoch; `None`: kept until
    /// removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_ms: Option<u64>,
    /// How often a client should poll it, in milliseconds.
    pub poll_interval_ms: u64,
    /// The call it runs.
    pub call: TaskCall,
    /// Questions waiting for answers, by name (MCP input requests).
    #[serde(default)]
    pub pending: BTreeMap<String, Value>,
    /// Answers given since the last round, by question name.
    #[serde(default)]
    pub answers: BTreeMap<String, Value>,
    /// Who answered (a person's name, a client), for the audit log, by question name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub answered_by: BTreeMap<String, String>,
    /// What the server that runs the rounds carries between them (earlier answers, what
    /// the tool kept); the store does not read it.
    #[serde(default)]
    pub state: Value,
    /// The call's result, once completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Why it failed (a JSON-RPC error object), once failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// The server running a round, while one runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<Lease>,
}
