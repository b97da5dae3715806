//! Background processes: `exec` with `background: true` starts a command and returns at
//! once; `process_output`, `process_write`, `process_kill` and `process_list` read it,
//! feed it, stop it and list them — how a model runs a dev server, a watcher or a long
//! build and keeps working.
//!
//! # The same command, the same sandbox
//!
//! A background command is prepared and spawned by the code that runs `exec` in the
//! foreground (`launch.rs`, `process::start`): the guard, the working directory, its own
//! `TMPDIR`, the scrubbed environment, Landlock, seccomp and a PID namespace of its own.
//! What differs is what it is given: a pipe for stdin (the foreground's is empty), one
//! pipe for stdout and stderr together (see `output.rs`), and no time limit unless the
//! call gives `timeout_secs`.
//!
//! # Whose processes
//!
//! A process belongs to the session of the call that started it
//! ([`ToolContext::session_id`](agent_tools_core::ToolContext::session_id); calls
//! without a session share one), and only calls of that session can read, write, stop or
//! list it: another session's id reads as unknown. Ids (`p1`, `p2`, …) are numbered per
//! [`Builtins`](crate::Builtins), so they are unique across its sessions. A session may
//! have `[exec] max_background` processes running at once; finished ones stay listed
//! with their exit status until their output has been read to the end, at most
//! [`FINISHED_KEPT`] of them per session (the oldest are forgotten first).
//!
//! # What ends them
//!
//! - the process exiting by itself (whatever it left running ends with it: its PID
//!   namespace's init exits, or, without a namespace, its process group is killed once
//!   its output pipe stays open past the drain period, as in the foreground);
//! - `process_kill`: SIGTERM to its process group, SIGKILL after `kill_grace`; the end of
//!   its PID namespace takes whatever left the group (a `setsid`, a double fork);
//! - the end of its session ([`ToolRegistry::end_session`](agent_tools_core::ToolRegistry::end_session),
//!   which the MCP server calls when a client's session ends), the same way;
//! - the call's `timeout_secs`, if it gave one;
//! - the table being dropped (the last handle of the [`Builtins`](crate::Builtins), so
//!   the registry holding it): SIGKILL to every process group at once, in `Drop`, so
//!   nothing is left even when the runtime has shut down;
//! - the agent process dying: every command gets the parent-death signal (SIGKILL when
//!   the thread that started it ends; the tools start processes from the runtime's
//!   worker threads, which live as long as the runtime).
//!
//! Without a PID namespace (`keep_background = true`, a kernel that cannot make one, or
//! systems other than Linux, where `exec` runs only with `sandbox = "none"`) the kill
//! reaches the process group only: a process that left it (`setsid`, a double fork)
//! survives, and each output notes the missing restriction as `exec`'s does.
//!
//! # The network between calls
//!
//! Commands do not get a network namespace of their own: a server a background process
//! opens on `127.0.0.1` is reachable from later `exec` calls (and from the host) when
//! `network = true`. With `network = false` the sandbox refuses the sockets themselves,
//! so no server can listen and no client can connect. Each command runs in a PID
//! namespace and a Landlock domain of its own, so a later `exec` cannot see or signal a
//! background process: stop it with `process_kill`.

mod output;
mod process;
mod tools;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use agent_tools_core::ToolError;

use process::BackgroundProcess;
pub use tools::{ProcessKillArgs, ProcessOutputArgs, ProcessWriteArgs};
pub(crate) use tools::{process_kill, process_list, process_output, process_write, start};

/// Finished processes kept per session until their output is read.
pub(crate) const FINISHED_KEPT: usize = 16;

/// The background processes of one [`Builtins`](crate::Builtins), of every session.
#[derive(Debug, Default)]
pub(crate) struct Processes {
    /// In the order they were started.
    list: Mutex<Vec<Arc<BackgroundProcess>>>,
    /// The number of the last id given.
    last_id: AtomicU64,
}

impl Processes {
    /// Starts a process for `session` with `start` (given its id) unless the session
    /// has `max` running.
    fn add(
        &self,
        session: Option<&str>,
        max: usize,
        start: impl FnOnce(String) -> Result<Arc<BackgroundProcess>, ToolError>,
    ) -> Result<Arc<BackgroundProcess>, ToolError> {
        // Held while the process starts, so that two calls cannot both take the last place.
        let mut list = self.list();
        let running = list
            .iter()
            .filter(|process| process.session.as_deref() == session && process.is_running())
            .count();
        if running >= max {
            return Err(ToolError::new(format!(
                "this session already has {running} background processes running, the most \
                 `[exec] max_background` allows: stop one with process_kill (process_list shows \
                 them), or run the command without `background`"
            )));
        }
        let id = format!("p{}", self.last_id.fetch_add(1, Ordering::Relaxed) + 1);
        let process = start(id)?;
        list.push(process.clone());
        Ok(process)
    }

    /// The process `id` of `session`.
    fn get(&self, session: Option<&str>, id: &str) -> Result<Arc<BackgroundProcess>, ToolError> {
        let list = self.list();
        let found = list
            .iter()
            .find(|process| process.id == id && process.session.as_deref() == session);
        found.cloned().ok_or_else(|| {
            ToolError::new(format!(
                "no background process `{id}` in this session; process_list shows them (a \
                 finished process is forgotten once its output has been read to the end)"
            ))
        })
    }

    /// The processes of `session`, oldest first.
    fn of_session(&self, session: Option<&str>) -> Vec<Arc<BackgroundProcess>> {
        let list = self.list();
        let mine = list
            .iter()
            .filter(|process| process.session.as_deref() == session);
        mine.cloned().collect()
    }

    /// Forgets a finished process.
    fn forget(&self, id: &str) {
        self.list().retain(|process| process.id != id);
    }

    /// The list, tidied: the processes of sessions that ended are forgotten (their
    /// supervisors are stopping those still running; a later session of the same id
    /// starts afresh), and so are finished ones beyond [`FINISHED_KEPT`] in a session,
    /// oldest first.
    fn list(&self) -> MutexGuard<'_, Vec<Arc<BackgroundProcess>>> {
        let mut list = self.list.lock().unwrap_or_else(PoisonError::into_inner);
        let mut finished_per_session = std::collections::HashMap::<Option<&str>, usize>::new();
        let mut forget = vec![false; list.len()];
        for (index, process) in list.iter().enumerate().rev() {
            let finished = !process.is_running();
            let kept = finished_per_session
                .entry(process.session.as_deref())
                .or_default();
            *kept += usize::from(finished);
            forget[index] = process.session_ended.is_cancelled() || (finished && *kept > FINISHED_KEPT);
        }
        let mut forget = forget.into_iter();
        list.retain(|_| !forget.next().unwrap_or(false));
        list
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        let list = self.list.get_mut().unwrap_or_else(PoisonError::into_inner);
        list.iter().for_each(|process| process.kill_now());
    }
}

// Real processes under the real sandbox, seen in `/proc`: Linux only, as `shell::tests`.
#[cfg(all(test, target_os = "linux"))]
mod tests;
