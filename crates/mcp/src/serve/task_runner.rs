//! Running served calls as tasks (MCP's tasks extension, SEP-2663): [`TaskRunner`].
//!
//! A task's call runs in rounds (see [`agent_tools_core::task`]): this server runs a
//! round when it creates the task, when an answer through it completes the task's
//! questions, and when a client polls a task that is ready for its next round (its
//! answers came through another replica or from another program) — whichever server sees
//! it first claims it. A round is the call run with an [`InputRound`] over the task's
//! answers so far: a question it has no answer for ends the round, the task waits in
//! `input_required` and holds no process; a finished call completes the task (a tool's
//! error included, as `isError`), a call that could not run (a panic, a tool gone) fails
//! it.
//!
//! While a round runs, the server renews its lease every third of the lease. When it
//! cannot (the task was cancelled, the store is unreachable), it cancels the call: a
//! cancelled task's tool stops at its next cancellation point. A cancellation through this
//! server stops the round at once.
//!
//! What this does not do: run a round again after its server died (the task is failed
//! when its lease ends; the round may have done part of its work), or send status
//! notifications (clients poll, as the extension allows).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agent_tools_core::audit::Outcome;
use agent_tools_core::task::{TaskCall, TaskRecord, TaskStoreError, Tasks, task_error};
use agent_tools_core::{ToolCall, ToolRegistry, ToolResult};
use rmcp::model::ClientCapabilities;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::input_round::{InputRound, RoundEnd, run_round, wire_request};
use super::request_state::RoundState;
use crate::wire::tools;

/// Runs the rounds of tasks on this server.
pub(crate) struct TaskRunner {
    tasks: Tasks,
    registry: ToolRegistry,
    /// This server's name on the leases it holds: random, one per runner.
    holder: String,
    /// The rounds running here, to stop one when its task is cancelled through us.
    running: Mutex<HashMap<String, CancellationToken>>,
}

impl TaskRunner {
    pub(crate) fn new(tasks: Tasks, registry: ToolRegistry) -> Self {
        let mut bytes = [0_u8; 8];
        // A clash of two servers' names only lets one renew the other's lease; the
        // process id keeps them apart even without randomness.
        let _ = getrandom::fill(&mut bytes);
        let random: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        Self {
            tasks,
            registry,
            holder: format!("server-{}-{random}", std::process::id()),
            running: Mutex::default(),
        }
    }

    /// The tasks this server runs.
    pub(crate) fn tasks(&self) -> &Tasks {
        &self.tasks
    }

    /// Creates a task for `call`, whose first round starts from `state`, and runs that
    /// round in the background. The task is in the store when this returns.
    pub(crate) async fn start(
        self: &Arc<Self>,
        call: TaskCall,
        state: RoundState,
    ) -> Result<TaskRecord, TaskStoreError> {
        let state = serde_json::to_value(&state).map_err(TaskStoreError::backend)?;
        let task = self.tasks.create(call, state, &self.holder).await?;
        self.spawn_round(task.clone());
        Ok(task)
    }

    /// Runs the next round of task `id` if it is ready for one and no server runs it.
    pub(crate) async fn resume(self: &Arc<Self>, id: &str) -> Result<(), TaskStoreError> {
        if let Some(task) = self.tasks.claim(id, &self.holder).await? {
            self.spawn_round(task);
        }
        Ok(())
    }

    /// Stops the round of task `id` if it runs here.
    pub(crate) fn stop(&self, id: &str) {
        if let Some(token) = self.running().get(id) {
            token.cancel();
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn spawn_round(self: &Arc<Self>, task: TaskRecord) {
        let runner = self.clone();
        tokio::spawn(async move {
            let id = task.id.clone();
            if let Err(error) = runner.round(task).await {
                // The lease ends unrenewed and the task is failed by its next reader.
                tracing::warn!(task = %id, %error, "a task's round could not be recorded");
            }
            runner.running().remove(&id);
        });
    }

    /// One round of `task`, which this server holds: the call run over the answers so
    /// far, then the task completed, failed or waiting for answers.
    async fn round(&self, task: TaskRecord) -> Result<(), TaskStoreError> {
        let stop = CancellationToken::new();
        self.running().insert(task.id.clone(), stop.clone());
        let state: RoundState = serde_json::from_value(task.state.clone()).unwrap_or_default();
        let capabilities: ClientCapabilities =
            serde_json::from_value(task.call.client.clone()).unwrap_or_default();
        let round =
            InputRound::new(state, task.answers.clone(), capabilities).for_task(task.answered_by.clone());
        let round = Arc::new(round);
        let mut call = ToolCall::new(
            format!("task-{}", task.id),
            task.call.tool.clone(),
            task.call.arguments.clone(),
        )
        .with_cancellation(stop.clone())
        .with_caller(round.clone());
        if let Some(principal) = &task.call.principal {
            call = call.with_principal(principal.clone());
        }
        // The rounds of one task are one session in the audit log; it ends with the
        // task's last round here (what the task's tools kept for it is let go).
        let registry = self.registry.session(format!("task-{}", task.id));
        let work = run_round(&round, registry.call(call));
        tokio::pin!(work);
        let ended = tokio::select! {
            ended = &mut work => ended,
            () = self.keep_lease(&task.id, &stop) => work.await,
        };
        if !matches!(ended, RoundEnd::InputRequired(..)) {
            registry.end_session(&format!("task-{}", task.id));
        }
        match ended {
            RoundEnd::Finished(result) => {
                self.tasks
                    .finish(&task.id, &self.holder, outcome(&result))
                    .await?;
            }
            RoundEnd::InputRequired(asked, state) => {
                let mut pending = std::collections::BTreeMap::new();
                for (key, request) in asked {
                    let request = wire_request(request).map_err(TaskStoreError::backend)?;
                    pending.insert(
                        key,
                        serde_json::to_value(request).map_err(TaskStoreError::backend)?,
                    );
                }
                let state = serde_json::to_value(&state).map_err(TaskStoreError::backend)?;
                self.tasks.park(&task.id, &self.holder, pending, state).await?;
            }
            RoundEnd::InvalidAnswer(problem) => {
                let error = task_error(-32602, problem);
                self.tasks.finish(&task.id, &self.holder, Err(error)).await?;
            }
            // A task's round is not allowed to start another (see `InputRound::start_task`).
            RoundEnd::StartTask(_) => {
                let error = task_error(-32603, "the task's call asked to start a task");
                self.tasks.finish(&task.id, &self.holder, Err(error)).await?;
            }
        }
        Ok(())
    }

    /// Renews this server's lease on task `id` every third of a lease until it cannot;
    /// then cancels the round (`stop`) and returns.
    async fn keep_lease(&self, id: &str, stop: &CancellationToken) {
        let every = self.tasks.options().lease / 3;
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(every) => {}
            }
            match self.tasks.renew(id, &self.holder).await {
                Ok(true) => {}
                Ok(false) => break,
                Err(error) => {
                    tracing::warn!(task = %id, %error, "cannot renew a task's lease; stopping its round");
                    break;
                }
            }
        }
        stop.cancel();
    }
}

/// What a finished call makes of its task: a result (a tool's error among them), or a
/// JSON-RPC error when the call could not produce one.
fn outcome(result: &ToolResult) -> Result<Value, Value> {
    match result.outcome {
        Outcome::Panicked => Err(task_error(-32603, result.text())),
        Outcome::UnknownTool => Err(task_error(-32602, result.text())),
        _ => tools::call_result_2026(result)
            .and_then(serde_json::to_value)
            .map_err(|error| task_error(-32603, format!("cannot encode the result: {error}"))),
    }
}
