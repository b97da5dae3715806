//! A served call's notifications to the client — progress and log messages — sent in the
//! order the tool made them, and all of them before the call's result.
//!
//! Tools report synchronously ([`ToolContext::report_progress`], [`ToolContext::log`]) and
//! notifications are sent asynchronously, so one task per call drains a channel. The
//! result waits for the channel to drain ([`Notifier::finish`]): a stateless HTTP
//! request's stream closes with the result, and later notifications would be lost.
//!
//! [`ToolContext::report_progress`]: tool_core::ToolContext::report_progress
//! [`ToolContext::log`]: tool_core::ToolContext::log

// MCP 2026-07-28 deprecates logging and sampling (SEP-2577) and rmcp marks their types so;
// clients on 2025-11-25 and earlier, nearly all of today's, use them.
#![allow(deprecated)]

use rmcp::RoleServer;
use rmcp::model::{LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken};
use rmcp::service::Peer;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tool_core::{Progress, ProgressReporter};

/// One notification waiting to be sent.
pub(crate) enum Outgoing {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
}

/// Sends a call's notifications in order; see the [module docs](self).
pub(crate) struct Notifier {
    sender: mpsc::UnboundedSender<Outgoing>,
    done: CancellationToken,
    task: JoinHandle<()>,
}

impl Notifier {
    /// Starts the call's sending task.
    pub(crate) fn start(peer: Peer<RoleServer>) -> Self {
        let (sender, mut receiver) = mpsc::unbounded_channel::<Outgoing>();
        let done = CancellationToken::new();
        let finished = done.clone();
        let task = tokio::spawn(async move {
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
        Self { sender, done, task }
    }

    /// Queues notifications from outside the call's reporters (a log message).
    pub(crate) fn sender(&self) -> mpsc::UnboundedSender<Outgoing> {
        self.sender.clone()
    }

    /// A reporter whose progress goes out under `token`.
    pub(crate) fn progress_reporter(&self, token: ProgressToken) -> ProgressReporter {
        let sender = self.sender.clone();
        ProgressReporter::new(move |progress| {
            // After the call, reports have nowhere to go.
            let _ = sender.send(Outgoing::Progress(progress_notification(&token, progress)));
        })
    }

    /// Sends what the call queued before its result goes out. A tool that keeps its
    /// reporter past the call cannot hold this up.
    pub(crate) async fn finish(self) {
        self.done.cancel();
        // The task only ends by itself; a panic in it has already been reported.
        let _ = self.task.await;
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
