//! Sub-agents in the background: the [`SubagentManager`] interface and
//! [`LocalSubagents`], which runs them as tasks of this process.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{Semaphore, watch};
use tokio_util::sync::CancellationToken;
use tool_core::ToolRegistry;

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

/// Starts and tracks sub-agents; what the `spawn` tool talks to.
pub trait SubagentManager: Send + Sync + 'static {
    /// Starts a sub-agent on `task` and returns at once with its id and label.
    fn spawn(&self, task: String, label: Option<String>) -> Result<SubagentInfo, String>;
    /// A sub-agent's status.
    fn status(&self, id: &str) -> Option<SubagentStatus>;
    /// Cancels a running sub-agent; false when there is none by that id.
    fn cancel(&self, id: &str) -> bool;
    /// Every sub-agent started, oldest first.
    fn list(&self) -> Vec<SubagentInfo>;
}

/// Called with each sub-agent once it has finished.
pub type CompletionCallback = Arc<dyn Fn(SubagentInfo) + Send + Sync>;

/// Runs sub-agents as Tokio tasks of this process: at most `max_concurrent` at a time,
/// each within a time limit and cancellable. Each gets the registry without `spawn`,
/// so sub-agents cannot start sub-agents of their own (the depth limit).
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
    timeout: Duration,
    next_id: AtomicU64,
    agents: Mutex<BTreeMap<u64, Agent>>,
    on_complete: Option<CompletionCallback>,
}

struct Agent {
    label: String,
    status: watch::Receiver<SubagentStatus>,
    cancel: CancellationToken,
}

impl LocalSubagents {
    /// Sub-agents run by `runner` with the tools of `registry` (minus `spawn`); at most
    /// 4 at a time, 10 minutes each.
    pub fn new(runner: impl AgentRunner, registry: ToolRegistry) -> Self {
        Self::builder(runner, registry).build()
    }

    /// Configures the limits and the completion callback.
    pub fn builder(runner: impl AgentRunner, registry: ToolRegistry) -> LocalSubagentsBuilder {
        LocalSubagentsBuilder {
            runner: Arc::new(runner),
            registry,
            max_concurrent: 4,
            timeout: Duration::from_secs(600),
            on_complete: None,
        }
    }

    /// Waits until a sub-agent has finished and returns its final status.
    pub async fn wait(&self, id: &str) -> Option<SubagentStatus> {
        let mut status = {
            let agents = self.inner.agents.lock().unwrap_or_else(PoisonError::into_inner);
            agents.get(&parse_id(id)?)?.status.clone()
        };
        status
            .wait_for(SubagentStatus::is_finished)
            .await
            .ok()
            .map(|status| status.clone())
    }
}

/// Settings of [`LocalSubagents`].
#[must_use]
pub struct LocalSubagentsBuilder {
    runner: Arc<dyn AgentRunner>,
    registry: ToolRegistry,
    max_concurrent: usize,
    timeout: Duration,
    on_complete: Option<CompletionCallback>,
}

impl LocalSubagentsBuilder {
    /// At most `max` sub-agents work at once; others wait for a slot.
    pub fn max_concurrent(mut self, max: usize) -> Self {
        self.max_concurrent = max.max(1);
        self
    }

    /// A sub-agent still working after `timeout` is stopped and fails.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
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
                slots: Arc::new(Semaphore::new(self.max_concurrent)),
                timeout: self.timeout,
                next_id: AtomicU64::new(1),
                agents: Mutex::new(BTreeMap::new()),
                on_complete: self.on_complete,
            }),
        }
    }
}

impl fmt::Debug for LocalSubagents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalSubagents")
            .field("timeout", &self.inner.timeout)
            .field("agents", &self.list().len())
            .finish()
    }
}

impl SubagentManager for LocalSubagents {
    fn spawn(&self, task: String, label: Option<String>) -> Result<SubagentInfo, String> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| "sub-agents need a Tokio runtime".to_owned())?;
        let number = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let label = label
            .filter(|label| !label.trim().is_empty())
            .unwrap_or_else(|| default_label(&task));
        let (sender, receiver) = watch::channel(SubagentStatus::Running);
        let cancel = CancellationToken::new();
        let agent = Agent {
            label: label.clone(),
            status: receiver,
            cancel: cancel.clone(),
        };
        self.inner
            .agents
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(number, agent);
        let info = SubagentInfo {
            id: format_id(number),
            label,
            status: SubagentStatus::Running,
        };
        runtime.spawn(run_agent(self.inner.clone(), info.clone(), task, cancel, sender));
        Ok(info)
    }

    fn status(&self, id: &str) -> Option<SubagentStatus> {
        let agents = self.inner.agents.lock().unwrap_or_else(PoisonError::into_inner);
        agents
            .get(&parse_id(id)?)
            .map(|agent| agent.status.borrow().clone())
    }

    fn cancel(&self, id: &str) -> bool {
        let agents = self.inner.agents.lock().unwrap_or_else(PoisonError::into_inner);
        match parse_id(id).and_then(|number| agents.get(&number)) {
            Some(agent) if !agent.status.borrow().is_finished() => {
                agent.cancel.cancel();
                true
            }
            _ => false,
        }
    }

    fn list(&self) -> Vec<SubagentInfo> {
        let agents = self.inner.agents.lock().unwrap_or_else(PoisonError::into_inner);
        agents
            .iter()
            .map(|(number, agent)| SubagentInfo {
                id: format_id(*number),
                label: agent.label.clone(),
                status: agent.status.borrow().clone(),
            })
            .collect()
    }
}

/// One sub-agent's life: wait for a slot, run within the time limit, report.
async fn run_agent(
    inner: Arc<Inner>,
    mut info: SubagentInfo,
    task: String,
    cancel: CancellationToken,
    status: watch::Sender<SubagentStatus>,
) {
    // Cancellation wins when both are ready: a runner that stops because it was
    // cancelled was cancelled, whatever it returns.
    let outcome = tokio::select! {
        biased;
        () = cancel.cancelled() => SubagentStatus::Cancelled,
        outcome = work(&inner, &task, cancel.clone()) => outcome,
    };
    info.status = outcome.clone();
    status.send_replace(outcome);
    if let Some(callback) = &inner.on_complete {
        callback(info);
    }
}

async fn work(inner: &Inner, task: &str, cancel: CancellationToken) -> SubagentStatus {
    let Ok(_slot) = inner.slots.clone().acquire_owned().await else {
        return SubagentStatus::Failed("the sub-agent manager was shut down".into());
    };
    let tools = inner.registry.filter(|spec| spec.name != "spawn");
    match tokio::time::timeout(inner.timeout, inner.runner.run(task.to_owned(), tools, cancel)).await {
        Ok(Ok(answer)) => SubagentStatus::Completed(answer),
        Ok(Err(reason)) => SubagentStatus::Failed(reason),
        Err(_) => SubagentStatus::Failed(format!("timed out after {:?}", inner.timeout)),
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
