//! Calls that outlive the request that made them: tasks, and where they are kept.
//!
//! A server on MCP's tasks extension answers a slow call (a build, a crawl) or one that
//! waits for a person (an approval) with a task id at once; the client then polls the
//! task's status, answers its questions and fetches its result, possibly through another
//! replica of the server and after a restart. This module holds what such a task *is* —
//! a [`TaskRecord`] in a [`TaskStore`] — and the rules every change to one follows
//! ([`Tasks`]); `agent-tools-mcp` runs the calls and speaks the protocol.
//!
//! # How a task runs
//!
//! A task's call runs in *rounds*. A round is one run of the tool by one server, which
//! holds the task's [`Lease`] while it runs and renews it as it goes. A round ends when
//! the call finishes (the task is [`Completed`](TaskStatus::Completed), or
//! [`Failed`](TaskStatus::Failed) when it could not produce a result at all), or when it
//! asks questions it has no answers for: the task is then
//! [`InputRequired`](TaskStatus::InputRequired), its questions in
//! [`pending`](TaskRecord::pending), and no server holds it. Answers may come through any
//! replica, or from another program (`agent-tools approvals allow ID`); once every
//! pending question is answered the task is [`Working`](TaskStatus::Working) again and
//! the next server to see it runs the next round, from the tool's start, with every
//! answer so far (and what the tool kept with
//! [`ToolContext::remember`](crate::ToolContext::remember)). So a task waiting for a
//! person holds no process, and survives any server's restart.
//!
//! A server that dies during a round stops renewing its lease: the first read after the
//! lease ends marks the task failed, with the reason, rather than leaving it working
//! forever. (It is not run again: the round may have done part of its work.) Leases are
//! compared with the clock of the server that reads the task, so replicas' clocks must
//! agree to well within a lease.
//!
//! A task is kept for its time to live ([`TaskRecord::expires_ms`]), then forgotten.
//!
//! # What a store must do
//!
//! A [`TaskStore`] keeps records and changes one atomically
//! ([`TaskStore::modify`]: read, apply a change, write, with no other change to the same
//! task in between). The rules are applied by [`Tasks`], the same for every store;
//! [`check_store`] checks a store against them. [`MemoryTaskStore`] keeps tasks in this
//! process; `agent-tools-postgres` has one that replicas share.

mod check;
mod memory;
mod record;
mod tasks;

pub use check::check_store;
pub use memory::MemoryTaskStore;
pub use record::{Lease, TaskCall, TaskRecord, TaskStatus};
pub use tasks::{Answered, TaskOptions, Tasks};

use serde_json::Value;

use crate::tool::BoxFuture;

/// A change to one task, applied inside [`TaskStore::modify`]. It may be applied more
/// than once (a store may retry after a conflict), each time to the record as stored.
pub type TaskChange<'a> = &'a mut (dyn FnMut(&mut TaskRecord) + Send);

/// Where tasks are kept: a store every replica of a server can reach, for tasks to
/// survive a replica. Implement it for another database; [`check_store`] tests an
/// implementation.
pub trait TaskStore: Send + Sync + 'static {
    /// Adds a new task; fails if its id is taken.
    fn create(&self, task: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// The task `id` as stored, if there is one.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Applies `change` to the task `id` atomically and returns the record as changed;
    /// `None` (nothing applied) when there is no such task.
    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// The tasks in `status`, oldest first, at most `limit` of them.
    fn list(
        &self,
        status: TaskStatus,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<TaskRecord>, TaskStoreError>>;

    /// Forgets the tasks whose time to live ended before `now_ms`; how many there were.
    fn remove_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<u64, TaskStoreError>>;
}

/// A store could not do what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// A task with this id exists already.
    #[error("a task with id `{0}` exists already")]
    Exists(String),
    /// The store failed (a database error, a lost connection, a record it cannot read).
    #[error("the task store failed: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl TaskStoreError {
    /// A failure of the store's backend.
    pub fn backend(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        TaskStoreError::Backend(error.into())
    }
}

/// The JSON-RPC error of a task that failed: `{"code": code, "message": message}`.
pub fn task_error(code: i64, message: impl Into<String>) -> Value {
    serde_json::json!({"code": code, "message": message.into()})
}
