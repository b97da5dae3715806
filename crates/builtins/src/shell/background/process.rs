//! One background process: started like any `exec` command (the same preparation and
//! spawning), then watched by a supervisor task until it exits or is stopped.
//!
//! The supervisor stops the process — SIGTERM to its process group, SIGKILL after the
//! kill grace, as `exec` does at a timeout — when `process_kill` asks, when its session
//! ends, or when its own time limit (if the call gave one) runs out. Under the sandbox the
//! process is the init of its own PID namespace's command, so stopping it ends everything
//! it started. If the supervisor task is dropped without finishing (the runtime shut
//! down), its guard kills the process group at once.

use std::os::fd::OwnedFd;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::process::{Child, ChildStdin};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::output::Output;
use crate::process_group::ProcessGroup;
use crate::shell::launch::Launch;
use crate::shell::process;
use crate::shell::sandbox::CommandLimits;

/// What a background process may do, from the configuration and the call.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Bytes of output kept.
    pub(super) buffer: usize,
    pub(super) kill_grace: Duration,
    /// The call's `timeout_secs`, if it gave one.
    pub(super) timeout: Option<Duration>,
}

/// Why a background process was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// `process_kill`.
    Killed,
    /// Its session ended (or the registry was dropped).
    SessionEnded,
    /// Its time limit ran out.
    TimedOut(Duration),
    /// It used its CPU time (`max_cpu`).
    OutOfCpu,
}

/// How a background process ended.
#[derive(Debug, Clone)]
pub(super) struct Exit {
    /// Why it was stopped, unless it exited by itself.
    pub(super) stop: Option<Stop>,
    /// Its wait status, when there is one.
    pub(super) status: Option<ExitStatus>,
    /// The resource limit it reached, as the kernel reports it.
    pub(super) limit: Option<String>,
}

impl Exit {
    /// "exited with code 0", "stopped by process_kill (killed by signal 15)", …
    pub(super) fn describe(&self) -> String {
        let described = self.describe_ending();
        match &self.limit {
            Some(limit) => format!("{described}; {limit}"),
            None => described,
        }
    }

    fn describe_ending(&self) -> String {
        let status = self.status.map(crate::shell::ended);
        match (self.stop, status) {
            (None, Some(status)) => status.replace("exit code:", "exited with code"),
            (None, None) => "ended".to_owned(),
            (Some(stop), status) => {
                let why = match stop {
                    Stop::Killed => "stopped by process_kill".to_owned(),
                    Stop::SessionEnded => "stopped because its session ended".to_owned(),
                    Stop::TimedOut(limit) => format!(
                        "stopped after its time limit of {}",
                        humantime::format_duration(limit)
                    ),
                    Stop::OutOfCpu => "stopped when it used its CPU time (`max_cpu`)".to_owned(),
                };
                match status {
                    Some(status) => format!("{why} ({status})"),
                    None => why,
                }
            }
        }
    }
}

/// What changes while a process runs, behind one lock.
#[derive(Debug)]
pub(super) struct State {
    pub(super) output: Output,
    pub(super) exit: Option<Exit>,
}

/// A process started by `exec` with `background: true`.
#[derive(Debug)]
pub(super) struct BackgroundProcess {
    /// `p1`, `p2`, … within the table.
    pub(super) id: String,
    /// The session that started it; only its calls see it.
    pub(super) session: Option<Arc<str>>,
    /// The command line, as given.
    pub(super) command: String,
    pub(super) started: Instant,
    state: Mutex<State>,
    /// Woken when output arrives and when the process ends.
    changed: Notify,
    /// Its standard input, until closed or the process ends.
    pub(super) stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    /// Its process group while it runs: whoever takes it signals it (dropping it kills).
    group: Mutex<Option<ProcessGroup>>,
    /// Asks the supervisor to stop the process (`process_kill`).
    stop: CancellationToken,
    /// The end of its session.
    pub(super) session_ended: CancellationToken,
}

impl BackgroundProcess {
    /// Starts `launch` with a pipe for stdin and one pipe for stdout and stderr, and a
    /// supervisor task watching it. Must be called within a Tokio runtime.
    pub(super) fn start(
        launch: Launch,
        id: String,
        session: Option<Arc<str>>,
        command_text: String,
        limits: Limits,
        session_ended: CancellationToken,
    ) -> std::io::Result<Arc<Self>> {
        let Launch {
            command: mut command_line,
            plan,
            temp,
            proxy,
            limits: resources,
            ..
        } = launch;
        let (output_read, output_write) = std::io::pipe()?;
        command_line
            .stdin(Stdio::piped())
            .stdout(output_write.try_clone()?)
            .stderr(output_write);
        let (mut child, group) = process::start(command_line, plan)?;
        let output = tokio::net::unix::pipe::Receiver::from_owned_fd(OwnedFd::from(output_read))?;
        let this = Arc::new(Self {
            id,
            session,
            command: command_text,
            started: Instant::now(),
            state: Mutex::new(State {
                output: Output::new(limits.buffer),
                exit: None,
            }),
            changed: Notify::new(),
            stdin: tokio::sync::Mutex::new(child.stdin.take()),
            group: Mutex::new(Some(group)),
            stop: CancellationToken::new(),
            session_ended,
        });
        let pumping = this.clone();
        let reader = tokio::spawn(process::pump(output, move |bytes| pumping.arrived(bytes)));
        let supervised = this.clone();
        tokio::spawn(async move {
            supervised.supervise(child, reader, limits, &resources).await;
            // The command's TMPDIR, its proxy and its cgroups go once it has ended.
            drop(temp);
            drop(proxy);
            drop(resources);
        });
        Ok(this)
    }

    pub(super) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the process has not ended yet.
    pub(super) fn is_running(&self) -> bool {
        self.state().exit.is_none()
    }

    /// Asks the supervisor to stop the process.
    pub(super) fn kill(&self) {
        self.stop.cancel();
    }

    /// SIGKILL to the process group now, from code that cannot wait (a `Drop`).
    pub(super) fn kill_now(&self) {
        drop(self.take_group());
    }

    /// Waits until `done` says yes of the state, `until` passes or `cancel` fires;
    /// whether `done` said yes.
    pub(super) async fn wait_for(
        &self,
        until: Instant,
        cancel: &CancellationToken,
        done: impl Fn(&State) -> bool,
    ) -> bool {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if done(&self.state()) {
                return true;
            }
            tokio::select! {
                () = changed => {}
                () = tokio::time::sleep_until(until.into()) => return done(&self.state()),
                () = cancel.cancelled() => return done(&self.state()),
            }
        }
    }

    fn arrived(&self, bytes: &[u8]) {
        self.state().output.push(bytes);
        self.changed.notify_waiters();
    }

    fn take_group(&self) -> Option<ProcessGroup> {
        self.group.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// Watches the process until it exits or is stopped, collects the rest of its
    /// output, and records how it ended.
    async fn supervise(
        self: &Arc<Self>,
        mut child: Child,
        reader: tokio::task::JoinHandle<()>,
        limits: Limits,
        resources: &CommandLimits,
    ) {
        let _guard = KillOnDrop(self.clone());
        let time_limit = async {
            match limits.timeout {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        let stop = tokio::select! {
            status = child.wait() => Err(status.ok()),
            () = self.stop.cancelled() => Ok(Stop::Killed),
            () = self.session_ended.cancelled() => Ok(Stop::SessionEnded),
            () = time_limit => Ok(Stop::TimedOut(limits.timeout.unwrap_or_default())),
            () = resources.cpu_exhausted() => Ok(Stop::OutOfCpu),
        };
        // Taken from here on: `kill_now` finds nothing to signal while the supervisor
        // stops the process, and the group's own drop kills it if this task is dropped.
        let group = self.take_group().unwrap_or_else(|| ProcessGroup::of(None));
        let exit = match stop {
            Err(status) => Exit {
                stop: None,
                status,
                limit: resources.reached(status),
            },
            Ok(stop) => {
                process::terminate(&group, &mut child, limits.kill_grace).await;
                let status = child.try_wait().ok().flatten();
                Exit {
                    stop: Some(stop),
                    status,
                    limit: resources.reached(None),
                }
            }
        };
        process::drain(&mut [Some(reader)], &group).await;
        group.disarm();
        *self.stdin.lock().await = None;
        self.state().exit = Some(exit);
        self.changed.notify_waiters();
    }
}

/// Kills the process group of a supervisor that is dropped before it finished.
struct KillOnDrop(Arc<BackgroundProcess>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        self.0.kill_now();
    }
}
