//! Running one command: its own process group, bounded output, and a kill that reaches
//! every process it started.
//!
//! The command is the leader of a new process group, so a timeout or a cancellation can
//! signal the whole tree (SIGTERM, then SIGKILL after a grace period); on Linux, unless
//! background processes may stay, it also runs in its own PID namespace (the `child`
//! module), which ends whatever left the group, and it gets `PR_SET_PDEATHSIG`, so it dies
//! if the agent dies. Reading the output never waits on a grandchild that keeps the pipes
//! open: once the command has ended, the pipes get a short drain period and are then
//! abandoned (and their holders killed).
//!
//! [`start`], [`pump`], [`terminate`] and [`drain`] are the steps both ways of running
//! share: [`run`] to the end within the call (`exec`), and the `background` module's
//! supervisor beyond it.

use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rustix::process::Signal;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::capture::HeadTail;
use super::sandbox::{ChildPlan, CommandLimits};
use crate::process_group::ProcessGroup;

/// How long output may still arrive after the command ended.
pub(crate) const DRAIN: Duration = Duration::from_millis(500);

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The command exited (or was killed by a signal it got from elsewhere).
    Exited(ExitStatus),
    /// The time limit ran out; the process group was killed.
    TimedOut,
    /// The caller cancelled; the process group was killed.
    Cancelled,
    /// It used its CPU time (`max_cpu`); the process group was killed.
    OutOfCpu,
}

/// What a run produced.
pub(crate) struct Finished {
    pub(crate) ending: Ending,
    pub(crate) stdout: HeadTail,
    pub(crate) stderr: HeadTail,
}

/// Limits and signals for one run.
pub(crate) struct RunLimits {
    pub(crate) timeout: Duration,
    pub(crate) kill_grace: Duration,
    pub(crate) output_limit: usize,
    pub(crate) cancel: CancellationToken,
}

/// Spawns `command` (already configured with program, arguments, directory, environment
/// and standard streams) as the leader of a new process group, confined by `plan`.
/// Dropping the group kills it: the caller disarms it once the command has ended.
pub(crate) fn start(mut command: Command, plan: ChildPlan) -> std::io::Result<(Child, ProcessGroup)> {
    command.process_group(0);
    plan.install(&mut command);
    let child = command.spawn()?;
    let group = ProcessGroup::of(child.id());
    Ok((child, group))
}

/// Spawns `command` with empty stdin and supervises it to the end, stopping it when
/// `resources` says it used its CPU time.
pub(crate) async fn run(
    mut command: Command,
    plan: ChildPlan,
    limits: RunLimits,
    resources: &CommandLimits,
) -> std::io::Result<Finished> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (mut child, group) = start(command, plan)?;
    let stdout = Arc::new(Mutex::new(HeadTail::new(limits.output_limit)));
    let stderr = Arc::new(Mutex::new(HeadTail::new(limits.output_limit)));
    let mut readers = [
        child
            .stdout
            .take()
            .map(|pipe| tokio::spawn(pump(pipe, into(&stdout)))),
        child
            .stderr
            .take()
            .map(|pipe| tokio::spawn(pump(pipe, into(&stderr)))),
    ];
    let ending = tokio::select! {
        status = child.wait() => Ending::Exited(status?),
        () = tokio::time::sleep(limits.timeout) => Ending::TimedOut,
        () = limits.cancel.cancelled() => Ending::Cancelled,
        () = resources.cpu_exhausted() => Ending::OutOfCpu,
    };
    if !matches!(ending, Ending::Exited(_)) {
        terminate(&group, &mut child, limits.kill_grace).await;
    }
    drain(&mut readers, &group).await;
    group.disarm();
    Ok(Finished {
        ending,
        stdout: take(&stdout),
        stderr: take(&stderr),
    })
}

/// Pushes what is read into a shared capture.
fn into(capture: &Arc<Mutex<HeadTail>>) -> impl FnMut(&[u8]) + Send + 'static {
    let capture = capture.clone();
    move |bytes| capture.lock().unwrap_or_else(PoisonError::into_inner).push(bytes)
}

/// Reads a pipe until it closes, handing each chunk to `push`.
pub(crate) async fn pump(mut pipe: impl AsyncRead + Unpin, mut push: impl FnMut(&[u8])) {
    let mut buffer = vec![0; 64 * 1024];
    loop {
        match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(read) => push(&buffer[..read]),
        }
    }
}

/// Lets the readers of a command that ended take what is left in the pipes, for at most
/// [`DRAIN`]; if something the command started still holds them, kills the group and
/// stops reading.
pub(crate) async fn drain(readers: &mut [Option<JoinHandle<()>>], group: &ProcessGroup) {
    let drained = tokio::time::timeout(DRAIN, async {
        for reader in readers.iter_mut().flatten() {
            // A reader only fails if it panicked; what it captured is kept either way.
            let _ = reader.await;
        }
    })
    .await;
    if drained.is_err() {
        group.signal(Signal::KILL);
        readers.iter().flatten().for_each(JoinHandle::abort);
    }
}

fn take(capture: &Arc<Mutex<HeadTail>>) -> HeadTail {
    std::mem::replace(
        &mut capture.lock().unwrap_or_else(PoisonError::into_inner),
        HeadTail::new(0),
    )
}

/// SIGTERM to the group, then SIGKILL if the leader has not exited within `grace`.
pub(crate) async fn terminate(group: &ProcessGroup, child: &mut Child, grace: Duration) {
    group.signal(Signal::TERM);
    if tokio::time::timeout(grace, child.wait()).await.is_err() {
        group.signal(Signal::KILL);
        let _ = child.wait().await;
    }
    // Members that ignored SIGTERM while the leader exited.
    group.signal(Signal::KILL);
}
