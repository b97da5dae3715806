//! Page conversion on the blocking pool, stopped at the call's deadline.
//!
//! Parsing a page and converting it to Markdown is CPU work proportional to the page
//! (and more than proportional for pages built to be slow): on an async worker it would
//! stall every other task scheduled there. [`convert`] runs it with `spawn_blocking` and
//! stops waiting when the deadline passes, answering with [`Stopped`]. Waiting is not
//! the work, so the work gets a [`Deadline`] too: code of this module's callers checks it
//! as it goes (the token filter of `html::parse` between tokens, the converter between
//! steps) and returns early once it has passed, or once the caller stopped waiting —
//! a cancelled call drops the future, and with it the [`StopOnDrop`] that tells the
//! blocking thread to stop.
//!
//! What it does not stop: a step of third-party code that never looks at the deadline
//! (Readability, the Markdown serializer) runs to its end. Those steps are bounded by
//! their input instead — see `html` for the limits that make them so.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// When work for one call must stop: a point in time, or earlier if the caller stopped
/// waiting. Cheap to clone; clones share the stop flag.
#[derive(Debug, Clone, Default)]
pub(crate) struct Deadline {
    at: Option<Instant>,
    stop: Arc<AtomicBool>,
}

/// The work was stopped at its deadline (or because nobody waited for it any longer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stopped;

impl Deadline {
    /// A deadline at `at`.
    pub(crate) fn at(at: Instant) -> Self {
        Self {
            at: Some(at),
            stop: Arc::default(),
        }
    }

    /// No deadline: the work runs to its end (the fuzz entry point, tests).
    #[cfg(any(fuzzing, test))]
    pub(crate) fn none() -> Self {
        Self::default()
    }

    /// The deadline has passed, or the waiter gave up.
    pub(crate) fn passed(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.at.is_some_and(|at| Instant::now() >= at)
    }

    /// `Err(Stopped)` once the deadline has passed: for `?` between steps.
    pub(crate) fn check(&self) -> Result<(), Stopped> {
        if self.passed() { Err(Stopped) } else { Ok(()) }
    }
}

/// Sets the stop flag when dropped: the waiter's side of a [`Deadline`].
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `work` on the blocking pool with a [`Deadline`] at `at`, and waits for it until
/// then. `Err(Stopped)` when the deadline passed first, whether `work` noticed or not;
/// a panic in `work` is resumed here, as if `work` had run inline.
pub(crate) async fn convert<T, F>(at: Instant, work: F) -> Result<T, Stopped>
where
    T: Send + 'static,
    F: FnOnce(&Deadline) -> Result<T, Stopped> + Send + 'static,
{
    let deadline = Deadline::at(at);
    let _stop = StopOnDrop(Arc::clone(&deadline.stop));
    let task = tokio::task::spawn_blocking(move || work(&deadline));
    match tokio::time::timeout_at(at.into(), task).await {
        Ok(Ok(result)) => result,
        Ok(Err(error)) => match error.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            // The blocking pool is shutting down with the runtime.
            Err(_) => Err(Stopped),
        },
        Err(_) => Err(Stopped),
    }
}

/// The earlier of `a` and an optional `b`, less `margin` for `b`: the call's deadline is
/// the registry's too, and stopping a little before it lets the call answer with its own
/// message rather than race the registry's timeout.
pub(crate) fn earliest(a: Instant, b: Option<Instant>, margin: Duration) -> Instant {
    match b {
        Some(b) => a.min(b.checked_sub(margin).unwrap_or(b)),
        None => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_waiter_stops_at_the_deadline_even_if_the_work_does_not() {
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let at = Instant::now() + Duration::from_millis(50);
        // Work that never looks at its deadline, as third-party code does not (bounded,
        // so that the test fails rather than hangs if the waiter waits for it).
        let result = convert(at, move |_| {
            let _ = release_rx.recv_timeout(Duration::from_secs(30));
            Ok(())
        })
        .await;
        assert_eq!(result, Err(Stopped));
        assert!(Instant::now() >= at);
        release_tx.send(()).unwrap();
    }

    #[tokio::test]
    async fn dropping_the_waiter_stops_the_work() {
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let (stopped_tx, stopped_rx) = std::sync::mpsc::channel();
        let far = Instant::now() + Duration::from_secs(3600);
        let call = tokio::spawn(convert(far, move |deadline| {
            started_tx.send(()).unwrap();
            // Bounded, so that the test fails rather than hangs if the flag never comes.
            let give_up = Instant::now() + Duration::from_secs(30);
            while !deadline.passed() && Instant::now() < give_up {
                std::thread::yield_now();
            }
            if deadline.passed() {
                stopped_tx.send(()).unwrap();
            }
            Ok(())
        }));
        tokio::task::spawn_blocking(move || started_rx.recv())
            .await
            .unwrap()
            .unwrap();
        // As the registry cancels a call: the waiting future is dropped.
        call.abort();
        assert!(call.await.unwrap_err().is_cancelled());
        stopped_rx.recv_timeout(Duration::from_secs(10)).unwrap();
    }

    #[test]
    fn the_call_deadline_counts_with_a_margin() {
        let now = Instant::now();
        let second = Duration::from_secs(1);
        assert_eq!(earliest(now + 10 * second, None, second), now + 10 * second);
        assert_eq!(
            earliest(now + 10 * second, Some(now + 5 * second), second),
            now + 4 * second
        );
        assert_eq!(earliest(now, Some(now + 5 * second), second), now);
    }
}
