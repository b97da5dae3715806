//! Running a tool so that nothing it does can hurt the caller: panics are caught, a
//! timeout or a cancellation stops it, and every way it can end has a name.

use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::task::Poll;
use std::time::{Duration, Instant};

use futures_util::FutureExt as _;
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;

use super::direct::CallArguments;
use crate::call_state::CallCancellation;
use crate::tool::BoxFuture;
use crate::{context::ToolContext, error::ToolError, output::ToolOutput, tool::Tool};

/// How an isolated run ended, short of success.
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

/// When a call must end: its deadline and the timeout it came from (for the message).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimeLimit {
    pub(crate) deadline: Instant,
    pub(crate) timeout: Duration,
}

/// A started tool's future, or how the call ended when the tool's `call` itself panicked
/// before returning one (hand-written tools can). The rare end is boxed: this is held in
/// the call's future, which is moved whole.
pub(crate) type StartedTool<'a> = Result<BoxFuture<'a, Result<ToolOutput, ToolError>>, Box<Stopped>>;

/// Starts `tool` on `arguments`.
///
/// Kept apart from [`run_isolated`] so that the future awaiting the tool does not also
/// hold the context and the arguments it was started with: a call's future is moved
/// whole, so what it holds is copied at every step.
pub(crate) fn start_tool<'a>(
    tool: &'a dyn Tool,
    arguments: CallArguments<'a>,
    ctx: ToolContext,
) -> StartedTool<'a> {
    catch_unwind(AssertUnwindSafe(|| arguments.start(tool, ctx)))
        .map_err(|payload| Box::new(Stopped::Panicked(panic_message(payload.as_ref()))))
}

/// What a started tool runs within: its call's cancellation and time limit, and the
/// tool's permits and grace after a cancellation. Borrowed, so that the run's future,
/// which the call's holds, holds references rather than copies.
pub(crate) struct Bounds<'a> {
    pub(crate) cancellation: &'a CallCancellation,
    pub(crate) limit: &'a Option<TimeLimit>,
    pub(crate) permits: &'a Option<Arc<Semaphore>>,
    pub(crate) cancel_grace: &'a Option<Duration>,
}

/// Runs a started tool (see [`start_tool`]) until it finishes, its deadline passes or its
/// token is cancelled, catching panics. With a `cancel_grace` (the tool's, read from its
/// spec at registration) the tool gets that long after a cancellation to return what it
/// has (its token is cancelled at once); any other tool is dropped at once. With
/// `permits`, the call first waits for one, inside the same limits.
#[allow(clippy::manual_async_fn)]
pub(crate) fn run_isolated<'a>(
    started: StartedTool<'a>,
    bounds: Bounds<'a>,
) -> impl Future<Output = Result<ToolOutput, Stopped>> + Send + 'a {
    // An `async move` block: an `async fn` would keep its arguments twice in the future,
    // which is moved whole with every call.
    async move {
        let Bounds {
            cancellation,
            limit,
            permits,
            cancel_grace,
        } = bounds;
        // A tool whose start panicked ends here.
        let call = started.map_err(|stopped| *stopped)?;
        let future: BoxFuture<'a, Result<ToolOutput, ToolError>> = match permits.clone() {
            None => call,
            // Waiting for a permit is inside the limits below: a timeout or a cancellation
            // ends the wait like it ends the tool. The semaphore is never closed. Only tools
            // with a limit pay for the extra future.
            Some(permits) => Box::pin(async move {
                let _permit = permits.acquire_owned().await.ok();
                call.await
            }),
        };
        let mut future = pin!(AssertUnwindSafe(future).catch_unwind());
        // Only the caller can cancel a call from outside; without its token there is nothing
        // to watch.
        let mut cancelled = pin!(cancellation.parent().map(CancellationToken::cancelled));
        // The timers are created when first needed: most tools finish on their first poll,
        // and then never pay for a timer registration.
        let mut sleep: Option<Pin<Box<Sleep>>> = None;
        let mut winding_down: Option<Pin<Box<Sleep>>> = None;
        let outcome = poll_fn(|cx| {
            if let Poll::Ready(outcome) = future.as_mut().poll(cx) {
                return Poll::Ready(Ok(outcome));
            }
            if let Some(grace) = winding_down.as_mut() {
                return match grace.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(Stopped::Cancelled)),
                    Poll::Pending => Poll::Pending,
                };
            }
            if let Some(cancelled) = cancelled.as_mut().as_pin_mut()
                && cancelled.poll(cx).is_ready()
            {
                let Some(grace) = *cancel_grace else {
                    return Poll::Ready(Err(Stopped::Cancelled));
                };
                // Tell the tool, and give it `grace` to return what it has.
                cancellation.cancel();
                let mut grace = Box::pin(tokio::time::sleep(grace));
                if grace.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(Stopped::Cancelled));
                }
                winding_down = Some(grace);
                return Poll::Pending;
            }
            if let Some(limit) = *limit {
                let deadline = tokio::time::Instant::from_std(limit.deadline);
                let sleep = sleep.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                if sleep.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(Stopped::TimedOut(limit.timeout)));
                }
            }
            Poll::Pending
        })
        .await;
        match outcome {
            Err(stopped) => {
                // Work the tool handed to other tasks with its token stops too.
                cancellation.cancel();
                Err(stopped)
            }
            Ok(Err(payload)) => Err(Stopped::Panicked(panic_message(payload.as_ref()))),
            Ok(Ok(result)) => result.map_err(Stopped::Failed),
        }
    }
}

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
