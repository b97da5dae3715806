//! A served call's notifications to the client — progress and log messages — sent in the
//! order the tool made them, and all of them before the call's result.
//!
//! Tools report synchronously ([`ToolContext::report_progress`], [`ToolContext::log`]) and
//! notifications are sent asynchronously, so a task per call drains a channel. The result
//! waits for the channel to drain ([`Notifier::finish`]): a stateless HTTP request's stream
//! closes with the result, and later notifications would be lost.
//!
//! The task starts with the call's first notification. Most calls send none, and for a
//! small call a task, a channel and the wait for both cost a measurable part of a stdio
//! round trip (`benches/mcp.rs`).
//!
//! [`ToolContext::report_progress`]: agent_tools_core::ToolContext::report_progress
//! [`ToolContext::log`]: agent_tools_core::ToolContext::log

// MCP 2026-07-28 deprecates logging and sampling (SEP-2577) and rmcp marks their types so;
// clients on 2025-11-25 and earlier, nearly all of today's, use them.
#![allow(deprecated)]

use std::sync::{Arc, Mutex, PoisonError};

use agent_tools_core::context::{Progress, ProgressReporter};
use rmcp::RoleServer;
use rmcp::model::{LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken};
use rmcp::service::Peer;
use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// One notification waiting to be sent.
pub(crate) enum Outgoing {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
}

/// Sends a call's notifications in order; see the [module docs](self).
pub(crate) struct Notifier {
    queue: NotificationQueue,
}

/// Where a call's reporters and caller put its notifications; cheap to clone.
#[derive(Clone)]
pub(crate) struct NotificationQueue {
    shared: Arc<Shared>,
}

struct Shared {
    peer: Peer<RoleServer>,
    /// The call's runtime: a report may come from a thread outside it.
    runtime: Handle,
    state: Mutex<State>,
}

enum State {
    /// Nothing sent yet.
    Idle,
    Sending {
        sender: mpsc::UnboundedSender<Outgoing>,
        done: CancellationToken,
        task: JoinHandle<()>,
    },
    /// The result is on its way: notifications have nowhere to go.
    Finished,
}

impl Notifier {
    /// The notifier of a call served to `peer`. Must be called inside a Tokio runtime.
    pub(crate) fn new(peer: Peer<RoleServer>) -> Self {
        let shared = Shared {
            peer,
            runtime: Handle::current(),
            state: Mutex::new(State::Idle),
        };
        Self {
            queue: NotificationQueue {
                shared: Arc::new(shared),
            },
        }
    }

    /// Queues notifications from outside the call's reporters (a log message).
    pub(crate) fn queue(&self) -> NotificationQueue {
        self.queue.clone()
    }

    /// A reporter whose progress goes out under `token`.
    pub(crate) fn progress_reporter(&self, token: ProgressToken) -> ProgressReporter {
        let queue = self.queue.clone();
        ProgressReporter::new(move |progress| {
            queue.send(Outgoing::Progress(progress_notification(&token, progress)));
        })
    }

    /// Sends what the call queued before its result goes out. A tool that keeps its
    /// reporter past the call cannot hold this up.
    pub(crate) async fn finish(self) {
        let state = std::mem::replace(&mut *self.queue.shared.lock(), State::Finished);
        if let State::Sending { done, task, .. } = state {
            done.cancel();
            // The task only ends by itself; a panic in it has already been reported.
            let _ = task.await;
        }
    }
}

impl NotificationQueue {
    /// Queues `outgoing`, starting the sending task on the first one; after the call's
    /// result it is dropped.
    pub(crate) fn send(&self, outgoing: Outgoing) {
        let mut state = self.shared.lock();
        if let State::Idle = *state {
            *state = self.shared.start();
        }
        if let State::Sending { sender, .. } = &*state {
            // The task stops early only when the client is gone.
            let _ = sender.send(outgoing);
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is replaced whole, so a panic elsewhere cannot leave it half-changed.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts the task that drains the channel until the call finishes.
    fn start(&self) -> State {
        let (sender, mut receiver) = mpsc::unbounded_channel::<Outgoing>();
        let done = CancellationToken::new();
        let finished = done.clone();
        let peer = self.peer.clone();
        let task = self.runtime.spawn(async move {
            loop {
                let next = tokio::select! {
                    biased;
                    next = receiver.recv() => next,
                    () = finished.cancelled() => receiver.try_recv().ok(),
                };
                let Some(next) = next else { break };
                if send(&peer, next).await.is_err() {
                    break; // The client is gone.
                }
            }
        });
        State::Sending { sender, done, task }
    }
}

async fn send(peer: &Peer<RoleServer>, outgoing: Outgoing) -> Result<(), rmcp::ServiceError> {
    match outgoing {
        Outgoing::Progress(progress) => peer.notify_progress(progress).await,
        Outgoing::Log(message) => peer.notify_logging_message(message).await,
    }
}

fn progress_notification(token: &ProgressToken, progress: Progress) -> ProgressNotificationParam {
    let mut param = ProgressNotificationParam::new(token.clone(), progress.progress);
    if let Some(total) = progress.total {
        param = param.with_total(total);
    }
    if let Some(message) = progress.message {
        param = param.with_message(message);
    }
    param
}
