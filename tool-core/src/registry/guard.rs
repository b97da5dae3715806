//! Running a tool so that nothing it does can hurt the caller: panics are caught, a
//! timeout or a cancellation stops it, and every way it can end has a name.

use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use futures_util::FutureExt as _;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::{Tool, ToolContext, ToolError, ToolOutput};

/// How a guarded run ended, short of success.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// The tool returned an error.
    Failed(ToolError),
    /// The timeout passed first; the tool was dropped and its token cancelled.
    TimedOut(Duration),
    /// The call's token was cancelled.
    Cancelled,
    /// The tool panicked; the payload's message if it had one.
    Panicked(String),
}

/// Runs `tool` under the call's timeout and cancellation token, catching panics.
pub(crate) async fn run_guarded(
    tool: &dyn Tool,
    arguments: Value,
    ctx: ToolContext,
    timeout: Option<Duration>,
) -> Result<ToolOutput, Stopped> {
    let token = ctx.cancellation().clone();
    // `call` itself may panic before returning its future (hand-written tools).
    let future = catch_unwind(AssertUnwindSafe(|| tool.call(arguments, ctx)))
        .map_err(|payload| Stopped::Panicked(panic_message(payload.as_ref())))?;
    let caught = AssertUnwindSafe(future).catch_unwind();
    let limited = async {
        match timeout {
            // A tool that finishes on its first poll never registers the timer.
            Some(limit) => tokio::time::timeout(limit, caught)
                .await
                .map_err(|_| Stopped::TimedOut(limit)),
            None => Ok(caught.await),
        }
    };
    let outcome = match unless_cancelled(limited, &token).await {
        None => return Err(Stopped::Cancelled),
        Some(outcome) => outcome,
    };
    match outcome {
        Err(timed_out) => {
            // Work the tool handed to other tasks with this token stops too.
            token.cancel();
            Err(timed_out)
        }
        Ok(Err(payload)) => Err(Stopped::Panicked(panic_message(payload.as_ref()))),
        Ok(Ok(result)) => result.map_err(Stopped::Failed),
    }
}

/// Polls `future` until it finishes or `token` is cancelled. Completion wins a tie, so a
/// finished result is never thrown away.
async fn unless_cancelled<F: Future>(future: F, token: &CancellationToken) -> Option<F::Output> {
    let mut future = pin!(future);
    let mut cancelled = pin!(token.cancelled());
    poll_fn(|cx| {
        if let Poll::Ready(output) = future.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        if cancelled.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Poll::Pending
    })
    .await
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
