//! [`DirectCall`]: a direct call's arguments, and then its tool's future, in one
//! allocation.
//!
//! Why not a boxed closure that returns the boxed future: that is two allocations a call
//! (the closure with the arguments, then the future), and on the direct path an
//! allocation is a measurable part of what a call costs over calling the function
//! (`benches/dispatch.rs`). Here the arguments wait in the box until the registry gives
//! the call its context, and the tool's future is then written in their place.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::tool::BoxFuture;

/// What a tool's run on its arguments ends with.
type Ran = Result<ToolOutput, ToolError>;

/// A call whose arguments were deserialized straight from the JSON text: what is left is
/// to give it its context and run it. Not public API.
pub struct DirectCall<'a>(Pin<Box<dyn Startable + 'a>>);

impl<'a> DirectCall<'a> {
    /// A call that runs `start(args, ctx)` with the call's context.
    pub(crate) fn new<A, S, F>(args: A, start: S) -> Self
    where
        A: Send + 'a,
        S: FnOnce(A, ToolContext) -> F + Send + 'a,
        F: Future<Output = Ran> + Send + 'a,
    {
        Self(Box::pin(Direct::<A, S, F>::Waiting { args, start }))
    }

    /// Starts the call, as [`Tool::call`](crate::tool::Tool::call) does.
    pub(crate) fn call(self, ctx: ToolContext) -> BoxFuture<'a, Ran> {
        let mut call = self.0;
        call.as_mut().start(ctx);
        call
    }
}

/// A future that is given its context before it is first polled.
trait Startable: Future<Output = Ran> + Send {
    /// Replaces the waiting arguments with the tool's future on them and `ctx`.
    fn start(self: Pin<&mut Self>, ctx: ToolContext);
}

pin_project_lite::pin_project! {
    /// The state of a [`DirectCall`]'s allocation.
    #[project = DirectProjection]
    #[project_replace = DirectTaken]
    enum Direct<A, S, F> {
        /// The arguments, and how to start the tool on them.
        Waiting { args: A, start: S },
        /// The tool's future.
        Running { #[pin] future: F },
        /// Between the two, only for the moment of the swap.
        Taken,
    }
}

impl<A, S, F> Startable for Direct<A, S, F>
where
    A: Send,
    S: FnOnce(A, ToolContext) -> F + Send,
    F: Future<Output = Ran> + Send,
{
    fn start(mut self: Pin<&mut Self>, ctx: ToolContext) {
        // Only a waiting call starts: a running one keeps its future.
        if !matches!(self.as_mut().project(), DirectProjection::Waiting { .. }) {
            return;
        }
        if let DirectTaken::Waiting { args, start } = self.as_mut().project_replace(Direct::Taken) {
            self.set(Direct::Running {
                future: start(args, ctx),
            });
        }
    }
}

impl<A, S, F: Future<Output = Ran>> Future for Direct<A, S, F> {
    type Output = Ran;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Ran> {
        match self.project() {
            DirectProjection::Running { future } => future.poll(cx),
            // `DirectCall::call` starts the future before handing it out, so this is
            // never reached; answered rather than panicked on all the same.
            _ => Poll::Ready(Err(ToolError::new("a direct call was run before it was started"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_tool_runs_on_the_arguments_with_the_context_it_is_given() {
        let call = DirectCall::new(
            String::from("hello"),
            |args: String, ctx: ToolContext| async move {
                Ok(ToolOutput::text(format!("{args} from {}", ctx.call_id())))
            },
        );
        let output = call.call(ToolContext::new("call-7")).await.expect("runs");
        assert_eq!(output.text_content(), "hello from call-7");
    }

    #[tokio::test]
    async fn starting_a_running_call_again_keeps_its_future() {
        let call = DirectCall::new(1_u32, |args: u32, ctx: ToolContext| async move {
            Ok(ToolOutput::text(format!("{args} in {}", ctx.call_id())))
        });
        let mut future = call.0;
        future.as_mut().start(ToolContext::new("first"));
        future.as_mut().start(ToolContext::new("second"));
        let output = future.await.expect("runs");
        assert_eq!(output.text_content(), "1 in first");
    }

    #[tokio::test]
    async fn dropping_a_call_that_never_started_drops_its_arguments() {
        let args = std::sync::Arc::new(());
        let call = DirectCall::new(args.clone(), |_: std::sync::Arc<()>, _| async {
            Ok(ToolOutput::text(""))
        });
        assert_eq!(std::sync::Arc::strong_count(&args), 2);
        drop(call);
        assert_eq!(std::sync::Arc::strong_count(&args), 1);
    }
}
