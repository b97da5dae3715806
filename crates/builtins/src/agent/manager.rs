//! Sub-agents in the background: the [`SubagentManager`] interface and
//! [`LocalSubagents`], which runs them as tasks of this process.
//!
//! A model can call `spawn` in a loop, and every sub-agent costs model calls and tool
//! runs, so [`LocalSubagents`] bounds them three ways: how many work at once (for the
//! whole manager), how many of one session may wait for a free slot, and how many one
//! session may start in all. A call beyond a bound is refused with a message saying
//! which and why; nothing is started. Each sub-agent's time limit counts from its
//! `spawn` call, so waiting for a slot uses it up too: a queue cannot hold work back
//! for longer than the limit promises.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use agent_tools_core::{ToolError, ToolRegistry, error::error_chain};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::runner::AgentRunner;

/// Where a sub-agent is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubagentStatus {
    /// Waiting for a free slot or working.
    Running,
    /// Finished with this answer.
    Completed(String),
    /// Failed (or timed out) with this reason.
    Failed(String),
    /// Cancelled before it finished.
    Cancelled,
}

impl SubagentStatus {
    /// Whether the sub-agent has stopped.
    pub fn is_finished(&self) -> bool {
        !matches!(self, SubagentStatus::Running)
    }
}

/// A sub-agent and its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentInfo {
    /// Its id, e.g. `agent-3`.
    pub id: String,
    /// Its label (the task's first words when none was given).
    pub label: String,
    /// Where it is.
    pub status: SubagentStatus,
}

/// What to start a sub-agent on, and for whom.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpawnRequest {
    /// The task, complete and self-contained.
    pub task: String,
    /// A label to recognize it by; the task's first words when `None`.
    pub label: Option<String>,
    /// The session of the agent that asked (from [`ToolContext::session_id`]), which
    /// per-session limits count against; `None` is a session of its own.
    ///
    /// [`ToolContext::session_id`]: agent_tools_core::ToolContext::session_id
    pub session_id: Option<String>,
}

impl SpawnRequest {
    /// A request for `task`, without a label or a session.
    pub fn new(task: impl Into<String>) -> Self {
        Self {
            task: task.into(),
            label: None,
            session_id: None,
        }
    }

    /// Sets the [`label`](Self::label).
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Sets the [`session_id`](Self::session_id).
    pub fn session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }
}

/// Starts and tracks sub-agents; what the `spawn` tool talks to.
pub trait SubagentManager: Send + Sync + 'static {
    /// Starts a sub-agent and returns at once with its id and label, or says why it
    /// will not (a limit was reached), in an error `spawn` returns to the model.
    fn spawn(&self, request: SpawnRequest) -> Result<SubagentInfo, ToolError>;
    /// A sub-agent's status.
    fn status(&self, id: &str) -> Option<SubagentStatus>;
    /// Cancels a running sub-agent; false when there is none by that id.
    fn cancel(&self, id: &str) -> bool;
    /// Every sub-agent started, oldest first.
    fn list(&self) -> Vec<SubagentInfo>;
}

/// Called with each sub-agent once it has finished.
pub type CompletionCallback = Arc<dyn Fn(SubagentInfo) + Send + Sync>;

/// Runs sub-agents as Tokio tasks of this process: at most `max_concurrent` at a time
/// (the others wait for a slot, at most `max_queued` of each session), at most
/// `max_per_session` in all for one session, each within a time limit that counts from
/// its `spawn` call, and cancellable. Each gets the registry without `spawn`, so
/// sub-agents cannot start sub-agents of their own (the depth limit).
///
/// The manager keeps the registry alive (the registry usually holds the `spawn` tool,
/// which holds the manager).
#[derive(Clone)]
pub struct LocalSubagents {
    inner: Arc<Inner>,
}

struct Inner {
    runner: Arc<dyn AgentRunner>,
    registry: ToolRegistry,
    slots: Arc<Semaphore>,
    limits: Limits,
    next_id: AtomicU64,
    state: Mutex<State>,
    on_complete: Option<CompletionCallback>,
}

/// The bounds of a [`LocalSubagents`].
#[derive(Debug, Clone, Copy)]
struct Limits {
    max_concurrent: usize,
    max_queued: usize,
    max_per_session: usize,
    timeout: Duration,
}

#[derive(Default)]
struct State {
    agents: BTreeMap<u64, Agent>,
    sessions: HashMap<Option<String>, SessionLoad>,
}

/// What one session has started and what of it waits for a slot.
#[derive(Debug, Default)]
struct SessionLoad {
    started: usize,
    queued: usize,
}

struct Agent {
    label: String,
    status: watch::Receiver<SubagentStatus>,
    cancel: CancellationToken,
}

impl LocalSubagents {
    /// Sub-agents run by `runner` with the tools of `registry` (minus `spawn`); at most
    /// 4 at a time, 16 of a session waiting, 64 per session, 10 minutes each.
    pub fn new(runner: impl AgentRunner, registry: ToolRegistry) -> Self {
        Self::builder(runner, registry).build()
    }

    /// Configures the limits and the completion callback.
    pub fn builder(runner: impl AgentRunner, registry: ToolRegistry) -> LocalSubagentsBuilder {
        LocalSubagentsBuilder {
            runner: Arc::new(runner),
            registry,
            limits: Limits {
                max_concurrent: 4,
                max_queued: 16,
                max_per_session: 64,
                timeout: Duration::from_secs(600),
            },
            on_complete: None,
        }
    }

    /// Waits until a sub-agent has finished and returns its final status.
    pub async fn wait(&self, id: &str) -> Option<SubagentStatus> {
        let mut status = self.inner.state().agents.get(&parse_id(id)?)?.status.clone();
        status
            .wait_for(SubagentStatus::is_finished)
            .await
            .ok()
            .map(|status| status.clone())
    }
}

impl Inner {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts a sub-agent of `session` in, or says which limit it hits; `queued` when
    /// no slot is free, so it will wait for one.
    fn admit(&self, state: &mut State, session: &Option<String>, queued: bool) -> Result<(), String> {
        let limits = self.limits;
        let load = state.sessions.entry(session.clone()).or_default();
        if load.started >= limits.max_per_session {
            return Err(format!(
                "sub-agent not started: this session has started {}, the most one session may \
                 (max_per_session); do the remaining work yourself",
                sub_agents(load.started)
            ));
        }
        if queued && load.queued >= limits.max_queued {
            return Err(format!(
                "sub-agent not started: no slot is free (the limit is {} at once) and this session already \
                 has {} waiting for one, the most it may (max_queued); wait for results before starting more",
                limits.max_concurrent,
                sub_agents(load.queued)
            ));
        }
        load.started += 1;
        load.queued += usize::from(queued);
        Ok(())
    }
}

/// Settings of [`LocalSubagents`].
#[must_use]
pub struct LocalSubagentsBuilder {
    runner: Arc<dyn AgentRunner>,
    registry: ToolRegistry,
    limits: Limits,
    on_complete: Option<CompletionCallback>,
}

impl LocalSubagentsBuilder {
    /// At most `max` sub-agents (of all sessions) work at once; others wait for a slot.
    /// Default 4.
    pub fn max_concurrent(mut self, max: usize) -> Self {
        self.limits.max_concurrent = max.max(1);
        self
    }

    /// At most `max` sub-agents of one session wait for a slot; a `spawn` beyond that is
    /// refused. Default 16; 0 refuses any `spawn` while all slots are busy.
    pub fn max_queued(mut self, max: usize) -> Self {
        self.limits.max_queued = max;
        self
    }

    /// At most `max` sub-agents are started for one session in all (finished ones
    /// count); a `spawn` beyond that is refused. Default 64.
    pub fn max_per_session(mut self, max: usize) -> Self {
        self.limits.max_per_session = max;
        self
    }

    /// A sub-agent that has not finished `timeout` after its `spawn` call — waiting
    /// for a slot included — is stopped and fails. Default 10 minutes.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.limits.timeout = timeout;
        self
    }

    /// Calls `callback` with each sub-agent when it finishes (to deliver its result to
    /// the agent that started it).
    pub fn on_complete(mut self, callback: impl Fn(SubagentInfo) + Send + Sync + 'static) -> Self {
        self.on_complete = Some(Arc::new(callback));
        self
    }

    /// The manager.
    pub fn build(self) -> LocalSubagents {
        LocalSubagents {
            inner: Arc::new(Inner {
                runner: self.runner,
                registry: self.registry,
                slots: Arc::new(Semaphore::new(self.limits.max_concurrent)),
                limits: self.limits,
                next_id: AtomicU64::new(1),
                state: Mutex::new(State::default()),
                on_complete: self.on_complete,
            }),
        }
    }
}

impl fmt::Debug for LocalSubagents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalSubagents")
            .field("limits", &self.inner.limits)
            .field("agents", &self.list().len())
            .finish()
    }
}

impl SubagentManager for LocalSubagents {
    fn spawn(&self, request: SpawnRequest) -> Result<SubagentInfo, ToolError> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| ToolError::new("sub-agents need a Tokio runtime"))?;
        // The time limit counts from here, the call, not from when a slot frees up.
        let called = Instant::now();
        let SpawnRequest {
            task,
            label,
            session_id,
        } = request;
        let slot = self.inner.slots.clone().try_acquire_owned().ok();
        let label = label
            .filter(|label| !label.trim().is_empty())
            .unwrap_or_else(|| default_label(&task));
        let (sender, receiver) = watch::channel(SubagentStatus::Running);
        let cancel = CancellationToken::new();
        let number = {
            let mut state = self.inner.state();
            self.inner
                .admit(&mut state, &session_id, slot.is_none())
                .map_err(ToolError::new)?;
            let number = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
            let agent = Agent {
                label: label.clone(),
                status: receiver,
                cancel: cancel.clone(),
            };
            state.agents.insert(number, agent);
            number
        };
        let info = SubagentInfo {
            id: format_id(number),
            label,
            status: SubagentStatus::Running,
        };
        let start = match slot {
            Some(slot) => Start::Now(slot),
            None => Start::Queued(Queued {
                inner: self.inner.clone(),
                session_id,
            }),
        };
        let work = Work {
            task,
            cancel: cancel.clone(),
            start,
            called,
        };
        runtime.spawn(run_agent(self.inner.clone(), info.clone(), work, cancel, sender));
        Ok(info)
    }

    fn status(&self, id: &str) -> Option<SubagentStatus> {
        let state = self.inner.state();
        state
            .agents
            .get(&parse_id(id)?)
            .map(|agent| agent.status.borrow().clone())
    }

    fn cancel(&self, id: &str) -> bool {
        let state = self.inner.state();
        match parse_id(id).and_then(|number| state.agents.get(&number)) {
            Some(agent) if !agent.status.borrow().is_finished() => {
                agent.cancel.cancel();
                true
            }
            _ => false,
        }
    }

    fn list(&self) -> Vec<SubagentInfo> {
        let state = self.inner.state();
        state
            .agents
            .iter()
            .map(|(number, agent)| SubagentInfo {
                id: format_id(*number),
                label: agent.label.clone(),
                status: agent.status.borrow().clone(),
            })
            .collect()
    }
}

/// A sub-agent's place in its session's queue; leaving the queue (with a slot, or by
/// being cancelled or timing out first) frees the place.
struct Queued {
    inner: Arc<Inner>,
    session_id: Option<String>,
}

impl Drop for Queued {
    fn drop(&mut self) {
        if let Some(load) = self.inner.state().sessions.get_mut(&self.session_id) {
            load.queued = load.queued.saturating_sub(1);
        }
    }
}

/// How a sub-agent gets its slot: one was free at the call, or it waits in the queue.
enum Start {
    Now(OwnedSemaphorePermit),
    Queued(Queued),
}

/// What a sub-agent does once its task runs.
struct Work {
    task: String,
    cancel: CancellationToken,
    start: Start,
    /// When `spawn` was called: the time limit counts from here.
    called: Instant,
}

/// One sub-agent's life: wait for a slot, run until the deadline, report.
async fn run_agent(
    inner: Arc<Inner>,
    mut info: SubagentInfo,
    work: Work,
    cancel: CancellationToken,
    status: watch::Sender<SubagentStatus>,
) {
    // Cancellation wins when both are ready: a runner that stops because it was
    // cancelled was cancelled, whatever it returns.
    let outcome = tokio::select! {
        biased;
        () = cancel.cancelled() => SubagentStatus::Cancelled,
        outcome = run(&inner, work) => outcome,
    };
    info.status = outcome.clone();
    status.send_replace(outcome);
    if let Some(callback) = &inner.on_complete {
        callback(info);
    }
}

async fn run(inner: &Inner, work: Work) -> SubagentStatus {
    let Work {
        task,
        cancel,
        start,
        called,
    } = work;
    // How long it waited for its slot; `None` while it still waits.
    let mut waited = matches!(start, Start::Now(_)).then_some(Duration::ZERO);
    let running = async {
        let _slot = match start {
            Start::Now(slot) => slot,
            Start::Queued(queued) => {
                let slot = inner.slots.clone().acquire_owned().await;
                drop(queued);
                waited = Some(called.elapsed());
                slot.map_err(|_| "the sub-agent manager was shut down")?
            }
        };
        let tools = inner.registry.filter(|spec| spec.meta.name != "spawn");
        inner.runner.run(task, tools, cancel).await
    };
    let timeout = inner.limits.timeout;
    let outcome = match called.checked_add(timeout) {
        Some(deadline) => tokio::time::timeout_at(deadline, running).await.ok(),
        None => Some(running.await),
    };
    match outcome {
        Some(Ok(answer)) => SubagentStatus::Completed(answer),
        Some(Err(error)) => SubagentStatus::Failed(error_chain(&*error)),
        None => SubagentStatus::Failed(timed_out(inner.limits, waited)),
    }
}

/// Why a sub-agent timed out, with how much of its time went on waiting for a slot.
fn timed_out(limits: Limits, waited: Option<Duration>) -> String {
    let timeout = limits.timeout;
    match waited {
        None => format!(
            "timed out after {timeout:?}, all of it waiting for a free slot (all {} were busy)",
            limits.max_concurrent
        ),
        Some(waited) if waited >= Duration::from_millis(1) => {
            let waited = Duration::from_millis(u64::try_from(waited.as_millis()).unwrap_or(u64::MAX));
            format!("timed out after {timeout:?} ({waited:?} of it waiting for a free slot)")
        }
        Some(_) => format!("timed out after {timeout:?}"),
    }
}

/// `1 sub-agent`, `2 sub-agents`.
fn sub_agents(count: usize) -> String {
    match count {
        1 => "1 sub-agent".to_owned(),
        count => format!("{count} sub-agents"),
    }
}

fn format_id(number: u64) -> String {
    format!("agent-{number}")
}

fn parse_id(id: &str) -> Option<u64> {
    id.strip_prefix("agent-")?.parse().ok()
}

/// The task's first words, for a sub-agent started without a label.
fn default_label(task: &str) -> String {
    let words: Vec<&str> = task.split_whitespace().take(6).collect();
    let label = words.join(" ");
    if task.split_whitespace().count() > 6 {
        format!("{label}…")
    } else {
        label
    }
}
