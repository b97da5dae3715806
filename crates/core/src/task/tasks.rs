//! [`Tasks`]: the rules of a task's life, applied to a [`TaskStore`] the same way for
//! every store.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::record::{Lease, TaskCall, TaskRecord, TaskStatus};
use super::{TaskStore, TaskStoreError, task_error};

/// How long tasks live and how they are run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskOptions {
    /// How long a task is kept after it is created (its `ttlMs`); default one hour.
    pub ttl: Duration,
    /// How often clients should poll (its `pollIntervalMs`); default half a second.
    pub poll_interval: Duration,
    /// How long a server's hold on a running task lasts unless renewed (it renews it
    /// every third of that); a task whose server dies is marked failed this long after
    /// its last renewal. Default ten seconds.
    pub lease: Duration,
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_millis(500),
            lease: Duration::from_secs(10),
        }
    }
}

impl TaskOptions {
    /// Keeps tasks for `ttl` after they are created.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Tells clients to poll every `interval`.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Holds a running task for `lease` at a time (at least 100 ms).
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(100));
        self
    }
}

/// What became of answers given to a task ([`Tasks::answer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Answered {
    /// Every question is answered: the task is working again, ready for its next round.
    Resumed,
    /// Questions remain: this many.
    Waiting(usize),
    /// The task was not waiting for answers (it is working, or over); nothing changed.
    NotWaiting(TaskStatus),
}

/// The tasks of a [`TaskStore`], changed only as a task's life allows (see the
/// [module documentation](super)). Cheap to clone; clones share the store.
///
/// ```
/// # async fn example() -> Result<(), agent_tools_core::task::TaskStoreError> {
/// use agent_tools_core::task::{MemoryTaskStore, TaskCall, TaskStatus, Tasks};
/// use serde_json::json;
///
/// let tasks = Tasks::new(MemoryTaskStore::new());
/// let task = tasks.create(TaskCall::new("build", json!({})), json!(null), "server-1").await?;
/// assert_eq!(task.status, TaskStatus::Working);
/// tasks.finish(&task.id, "server-1", Ok(json!({"content": []}))).await?;
/// let done = tasks.read(&task.id).await?.expect("kept for its time to live");
/// assert_eq!(done.status, TaskStatus::Completed);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Tasks {
    store: Arc<dyn TaskStore>,
    options: TaskOptions,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    /// The tasks of `store`, with default [`TaskOptions`].
    pub fn new(store: impl TaskStore) -> Self {
        Self::shared(Arc::new(store))
    }

    /// The tasks of a store shared with others.
    pub fn shared(store: Arc<dyn TaskStore>) -> Self {
        Self {
            store,
            options: TaskOptions::default(),
        }
    }

    /// The same tasks, run with `options`.
    pub fn with_options(mut self, options: TaskOptions) -> Self {
        self.options = options;
        self
    }

    /// How tasks live and run.
    pub fn options(&self) -> TaskOptions {
        self.options
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }

    /// Creates a working task for `call`, held by `holder`, which runs its first round
    /// at once (so no other server starts one meanwhile); `state` is what that round
    /// starts from. The task is in the store when this returns.
    pub async fn create(
        &self,
        call: TaskCall,
        state: Value,
        holder: &str,
    ) -> Result<TaskRecord, TaskStoreError> {
        let now = now_ms();
        let task = TaskRecord {
            id: new_id()?,
            status: TaskStatus::Working,
            status_message: None,
            created_ms: now,
            updated_ms: now,
            expires_ms: Some(now.saturating_add(millis(self.options.ttl))),
            poll_interval_ms: millis(self.options.poll_interval),
            call,
            pending: BTreeMap::new(),
            answers: BTreeMap::new(),
            answered_by: BTreeMap::new(),
            state,
            result: None,
            error: None,
            lease: Some(self.lease_for(holder, now)),
        };
        self.store.create(task.clone()).await?;
        Ok(task)
    }

    /// The task `id` as it is now, `None` if there is none or its time to live is over.
    /// A task whose round outlived its server's lease is marked failed here, with why.
    pub async fn read(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let Some(task) = self.store.get(id).await? else {
            return Ok(None);
        };
        let now = now_ms();
        if task.expires_ms.is_some_and(|expires| expires <= now) {
            return Ok(None);
        }
        if !lease_ended(&task, now) {
            return Ok(Some(task));
        }
        self.store
            .modify(id, &mut |task| {
                if lease_ended(task, now) {
                    let ended = task.lease.take().map_or(now, |lease| lease.until_ms);
                    let message = format!(
                        "the server running this task stopped before it finished (its hold on the task ended at {} ms since the Unix epoch and was not renewed)",
                        ended
                    );
                    settle(task, TaskStatus::Failed, now);
                    task.error = Some(task_error(-32603, message));
                }
            })
            .await
    }

    /// Takes the task for a round if it is working and no server runs one: the record,
    /// with every answer so far, or `None` if another server has it or it is not ready.
    pub async fn claim(&self, id: &str, holder: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let now = now_ms();
        let lease = self.lease_for(holder, now);
        let mut claimed = false;
        let task = self
            .store
            .modify(id, &mut |task| {
                claimed = task.status == TaskStatus::Working && task.lease.is_none();
                if claimed {
                    task.lease = Some(lease.clone());
                    task.updated_ms = now;
                }
            })
            .await?;
        Ok(task.filter(|_| claimed))
    }

    /// Renews `holder`'s lease on a running task: `false` when it no longer holds it
    /// (the task was cancelled, or its lease ended and another server saw it), in which
    /// case the round must stop.
    pub async fn renew(&self, id: &str, holder: &str) -> Result<bool, TaskStoreError> {
        let now = now_ms();
        let lease = self.lease_for(holder, now);
        let mut held = false;
        self.store
            .modify(id, &mut |task| {
                held = holds(task, holder);
                if held {
                    task.lease = Some(lease.clone());
                }
            })
            .await?;
        Ok(held)
    }

    /// Ends `holder`'s round at questions: the task waits for answers to `pending`, and
    /// the next round starts from `state`. `false` if `holder` no longer held it.
    pub async fn park(
        &self,
        id: &str,
        holder: &str,
        pending: BTreeMap<String, Value>,
        state: Value,
    ) -> Result<bool, TaskStoreError> {
        let now = now_ms();
        let mut held = false;
        let message = format!(
            "waiting for an answer to {}",
            pending.keys().cloned().collect::<Vec<_>>().join(", ")
        );
        self.store
            .modify(id, &mut |task| {
                held = holds(task, holder);
                if held {
                    settle(task, TaskStatus::InputRequired, now);
                    task.status_message = Some(message.clone());
                    task.pending = pending.clone();
                    task.answers.clear();
                    task.state = state.clone();
                }
            })
            .await?;
        Ok(held)
    }

    /// Gives answers to a waiting task's questions (those it is not waiting for are
    /// ignored), recording `by` as who gave each. `None` if there is no such task.
    pub async fn answer(
        &self,
        id: &str,
        answers: BTreeMap<String, Value>,
        by: Option<&str>,
    ) -> Result<Option<Answered>, TaskStoreError> {
        let now = now_ms();
        let mut answered = Answered::NotWaiting(TaskStatus::Working);
        let task = self
            .store
            .modify(id, &mut |task| {
                if task.status != TaskStatus::InputRequired {
                    answered = Answered::NotWaiting(task.status);
                    return;
                }
                for (key, answer) in &answers {
                    if task.pending.remove(key).is_some() {
                        task.answers.insert(key.clone(), answer.clone());
                        if let Some(by) = by {
                            task.answered_by.insert(key.clone(), by.to_owned());
                        }
                    }
                }
                task.updated_ms = now;
                answered = match task.pending.len() {
                    0 => {
                        task.status = TaskStatus::Working;
                        task.status_message = None;
                        Answered::Resumed
                    }
                    left => Answered::Waiting(left),
                };
            })
            .await?;
        Ok(task.map(|_| answered))
    }

    /// Ends `holder`'s round with the call's outcome: `Ok(result)` completes the task,
    /// `Err(error)` (a JSON-RPC error object) fails it. `false` if `holder` no longer
    /// held it (a cancelled task stays cancelled).
    pub async fn finish(
        &self,
        id: &str,
        holder: &str,
        outcome: Result<Value, Value>,
    ) -> Result<bool, TaskStoreError> {
        let now = now_ms();
        let mut held = false;
        self.store
            .modify(id, &mut |task| {
                held = holds(task, holder);
                if held {
                    match &outcome {
                        Ok(result) => {
                            settle(task, TaskStatus::Completed, now);
                            task.result = Some(result.clone());
                        }
                        Err(error) => {
                            settle(task, TaskStatus::Failed, now);
                            task.error = Some(error.clone());
                        }
                    }
                }
            })
            .await?;
        Ok(held)
    }

    /// Cancels the task unless it is over already (then nothing changes): at once, so
    /// the next read says `cancelled`; a server running a round finds out when it next
    /// renews its lease and stops. The task as it is now; `None` if there is none.
    pub async fn cancel(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let now = now_ms();
        self.store
            .modify(id, &mut |task| {
                if !task.status.is_terminal() {
                    settle(task, TaskStatus::Cancelled, now);
                }
            })
            .await
    }

    /// The tasks in `status` that are still within their time to live, oldest first, at
    /// most `limit`. Tasks past it are removed first, so that they take no place in the
    /// page.
    pub async fn list(&self, status: TaskStatus, limit: usize) -> Result<Vec<TaskRecord>, TaskStoreError> {
        let now = now_ms();
        self.store.remove_expired(now).await?;
        let mut tasks = self.store.list(status, limit).await?;
        tasks.retain(|task| task.expires_ms.is_none_or(|expires| expires > now));
        Ok(tasks)
    }

    /// Forgets the tasks whose time to live is over; how many there were.
    pub async fn remove_expired(&self) -> Result<u64, TaskStoreError> {
        self.store.remove_expired(now_ms()).await
    }

    fn lease_for(&self, holder: &str, now: u64) -> Lease {
        Lease {
            holder: holder.to_owned(),
            until_ms: now.saturating_add(millis(self.options.lease)),
        }
    }
}

/// Whether `holder` runs a round of `task` now.
fn holds(task: &TaskRecord, holder: &str) -> bool {
    task.status == TaskStatus::Working && task.lease.as_ref().is_some_and(|lease| lease.holder == holder)
}

/// Whether a round of `task` outlived its server's lease.
fn lease_ended(task: &TaskRecord, now: u64) -> bool {
    task.status == TaskStatus::Working && task.lease.as_ref().is_some_and(|lease| lease.until_ms < now)
}

/// Moves `task` to `status` with nobody running it and nothing pending.
fn settle(task: &mut TaskRecord, status: TaskStatus, now: u64) {
    task.status = status;
    task.status_message = None;
    task.lease = None;
    task.pending.clear();
    task.updated_ms = now;
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, millis)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// 128 random bits as hex: a task id nobody can guess.
fn new_id() -> Result<String, TaskStoreError> {
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| TaskStoreError::backend(error.to_string()))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}
