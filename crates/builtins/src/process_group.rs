//! A child's process group, killed when dropped: the one way the tools that start
//! programs (`exec`, `screenshot`) make sure nothing they started outlives the call,
//! even when the caller stops waiting (a registry timeout drops the call's future).

use rustix::process::{Pid, Signal, kill_process_group};

/// The process group of a child started with `process_group(0)` (its pid is the
/// group id). Dropping it sends SIGKILL to the whole group unless
/// [`disarm`](Self::disarm)ed.
#[derive(Debug)]
pub(crate) struct ProcessGroup(Option<Pid>);

impl ProcessGroup {
    /// The group led by the child with this pid (`None` when the child is gone).
    pub(crate) fn of(pid: Option<u32>) -> Self {
        Self(
            pid.and_then(|pid| i32::try_from(pid).ok())
                .and_then(Pid::from_raw),
        )
    }

    /// Sends `signal` to every process of the group.
    pub(crate) fn signal(&self, signal: Signal) {
        if let Some(group) = self.0 {
            // A group that no longer exists (ESRCH) has nothing left to kill.
            let _ = kill_process_group(group, signal);
        }
    }

    /// Leaves the group alone when dropped.
    pub(crate) fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.signal(Signal::KILL);
    }
}
