//! `exec`: run a shell command in the workspace, under a kernel sandbox, with a time
//! limit, bounded output and a scrubbed environment.
//!
//! What protects the machine is the sandbox ([`ExecSandbox`](crate::ExecSandbox): Landlock confines writes
//! to the workspace and scopes signals, a seccomp filter refuses sockets and terminal
//! input, no capabilities, and a PID namespace per command ends whatever it started) and
//! the environment allow-list (secrets do not reach the command). Per-command resource
//! limits (`max_processes`, `max_memory`, `max_cpu`) keep one command from taking the
//! machine, and the agent with it. The command guard
//! ([`DEFAULT_DENY`]) only catches classic accidents and says it is not a boundary. See
//! the module of each for why: `sandbox` has the table of what each layer stops and what
//! it needs, `child` why the code between `fork` and `exec` allocates nothing.
//!
//! A command is prepared once (`launch`) and spawned once (`process::start`), whichever
//! way it runs: to its end within the call, or, with `background: true`, beyond it (the
//! `background` module: per-session processes that `process_output`, `process_write`,
//! `process_kill` and `process_list` follow, ended with their session).
//!
//! # On systems other than Linux
//!
//! The sandbox is made of Linux kernel features, so elsewhere (macOS, the BSDs) `exec`
//! refuses every call with "exec's sandbox needs Linux (Landlock, seccomp, PID
//! namespaces); set `sandbox = "none"` in `[exec]` to run commands without one" — unless
//! the configuration chose [`ExecSandbox::None`](crate::ExecSandbox::None) itself. Then commands run unconfined,
//! with the same time limit, output bounds, scrubbed environment and guard, in a process
//! group of their own that is killed when the call ends; a process that leaves the group
//! may outlive the call, and each output says so unless `keep_background = true`. The
//! Linux-only crates (`landlock`, `seccompiler`) are not built there. (Windows has no
//! `exec`: the `shell` feature needs a Unix.)

mod background;
mod capture;
// What the child does between `fork` and `exec` is all Linux system calls (namespaces,
// Landlock, seccomp, capabilities, the parent-death signal).
#[cfg(target_os = "linux")]
mod child;
mod command_guard;
mod egress;
mod env;
mod launch;
mod process;
mod sandbox;

use std::sync::Arc;
use std::time::Duration;

use crate::{SetupError, Workspace};
use agent_tools_core::{ToolContext, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;

pub use crate::config::exec::{DEFAULT_DENY, DEFAULT_DENY_READ, SYSTEM_READ};
pub use background::{ProcessKillArgs, ProcessOutputArgs, ProcessWriteArgs};
pub(crate) use background::{process_kill, process_list, process_output, process_write};
pub use env::DEFAULT_ALLOWED as DEFAULT_ENV_ALLOWED;

use crate::config::exec::ExecConfig;

use capture::split_budget;
use command_guard::CommandGuard;
use process::{Ending, RunLimits};

/// An environment variable for the command.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct EnvVar {
    /// The variable's name.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// Arguments of `exec`.
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ExecArgs {
    /// The command line, run by `sh -c` in the workspace. Stdin is empty (in the
    /// background, a pipe that `process_write` writes to).
    pub command: String,
    /// Directory to run in, relative to the workspace root. Default: the root.
    pub working_dir: Option<String>,
    /// Seconds before the command and everything it started are stopped. Default 60; in
    /// the background, no limit unless given.
    #[schemars(range(min = 1, max = 600))]
    pub timeout_secs: Option<u32>,
    /// Extra environment variables for the command.
    pub env: Option<Vec<EnvVar>>,
    /// Start the command and return at once with its id (`p1`) and its first output,
    /// leaving it running: for servers, watchers and long builds. Default false.
    pub background: Option<bool>,
}

/// The exec tool's configuration, checked once, and the background processes it started.
#[derive(Debug, Clone)]
pub(crate) struct Exec {
    config: ExecConfig,
    guard: CommandGuard,
    read: sandbox::ReadSettings,
    /// The network allow-list, when `network` is one.
    egress: Option<egress::Egress>,
    /// Shared by the clones of one [`Builtins`](crate::Builtins); dropping the last kills
    /// every background process.
    processes: Arc<background::Processes>,
}

impl Exec {
    /// Checks the configuration (guard patterns must compile, read patterns be usable).
    pub(crate) fn new(config: ExecConfig) -> Result<Self, SetupError> {
        let guard = CommandGuard::new(&config.deny, &config.allow)?;
        let read = sandbox::ReadSettings::new(&config)?;
        let egress = egress::Egress::of(&config).map_err(SetupError::ExecNetwork)?;
        Ok(Self {
            config,
            guard,
            read,
            egress,
            processes: Arc::default(),
        })
    }
}

/// Runs a command and reports how it ended and what it printed; with `background`, starts
/// it and returns (the `background` module).
///
/// A command that exits, with any exit code, is a normal result: a failing `grep` or test
/// run is information for the model, not a failure of the tool. A command stopped by its
/// time limit or by cancellation is an error result (audit outcome `timeout` or
/// `cancelled`) that still carries the output so far.
pub(crate) async fn exec(
    ws: &Workspace,
    exec: &Exec,
    args: ExecArgs,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    if args.background == Some(true) {
        return background::start(ws, exec, args, ctx).await;
    }
    let config = &exec.config;
    let launch = launch::prepare(ws, exec, &args)?;
    let limit = TimeLimit::of(config, args.timeout_secs, ctx);
    let limits = RunLimits {
        timeout: limit.duration,
        kill_grace: config.kill_grace,
        output_limit: config.output_limit,
        cancel: ctx.cancellation().clone(),
    };
    let finished = process::run(launch.command, launch.plan, limits, &launch.limits)
        .await
        .map_err(|error| launch::spawn_error(config, &error))?;
    // The command's TMPDIR and its proxy live until here.
    drop(launch.temp);
    let mut notes = launch.notes;
    if let Some(proxy) = launch.proxy {
        if let Some(connections) = proxy.audit() {
            ctx.audit_detail("network", connections);
        }
        notes.always.extend(proxy.refused_note());
    }
    let text = render(&finished, &limit, config.output_limit, &notes);
    let status = match finished.ending {
        Ending::Exited(status) => Some(status),
        _ => None,
    };
    if let Some(reached) = launch.limits.reached(status) {
        return Err(ToolError::new(format!("{reached}\n{text}")));
    }
    match finished.ending {
        Ending::Exited(_) => Ok(text),
        Ending::TimedOut => Err(ToolError::timed_out(text)),
        Ending::Cancelled => Err(ToolError::cancelled_with(text)),
        // `reached` names it; this is for a kernel that lost count.
        Ending::OutOfCpu => Err(ToolError::new(text)),
    }
}

/// How long a command may run: what the call asked for (or the default), cut short so that
/// it ends — and its output is returned — before the registry's deadline for the call.
struct TimeLimit {
    duration: Duration,
    /// The registry's deadline made it shorter than asked.
    by_deadline: bool,
}

impl TimeLimit {
    /// Time kept back from the deadline to stop the command and collect its output.
    const WIND_DOWN: Duration = Duration::from_millis(250);

    fn of(config: &ExecConfig, timeout_secs: Option<u32>, ctx: &ToolContext) -> Self {
        let asked = timeout_secs.map_or(config.default_timeout, |secs| Duration::from_secs(secs.into()));
        let wind_down = config.kill_grace + process::DRAIN + Self::WIND_DOWN;
        let left = ctx.deadline().map(|deadline| {
            deadline
                .saturating_duration_since(std::time::Instant::now())
                .saturating_sub(wind_down)
        });
        match left {
            Some(left) if left < asked => Self {
                duration: left,
                by_deadline: true,
            },
            _ => Self {
                duration: asked,
                by_deadline: false,
            },
        }
    }

    fn describe(&self) -> String {
        let shown = humantime::format_duration(Duration::from_secs(self.duration.as_secs().max(1)));
        if self.by_deadline {
            format!("{shown} (the time left for this call)")
        } else {
            shown.to_string()
        }
    }
}

/// `exit code: 0` (or how it ended), then stdout and stderr within the output limit.
fn render(
    finished: &process::Finished,
    limit: &TimeLimit,
    output_limit: usize,
    notes: &launch::Notes,
) -> String {
    let mut out = match finished.ending {
        Ending::Exited(status) => ended(status),
        Ending::TimedOut => format!(
            "timed out after {}; the command and everything it started were stopped. Output so far:",
            limit.describe()
        ),
        Ending::Cancelled => {
            "cancelled; the command and everything it started were stopped. Output so far:".to_owned()
        }
        Ending::OutOfCpu => {
            "out of CPU time (`max_cpu`); the command and everything it started were stopped. Output so far:"
                .to_owned()
        }
    };
    out.push('\n');
    let (stdout, stderr) = (&finished.stdout, &finished.stderr);
    for note in notes.for_output(&[stdout, stderr]) {
        out.push_str(&format!("[{note}]\n"));
    }
    let (stdout_budget, stderr_budget) = split_budget(output_limit, stdout.total(), stderr.total());
    for (name, stream, budget) in [
        ("stdout", stdout, stdout_budget),
        ("stderr", stderr, stderr_budget),
    ] {
        if stream.total() > 0 {
            let text = stream.render(budget);
            out.push_str(&format!("--- {name} ---\n{}", text));
            if !text.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    if stdout.total() == 0 && stderr.total() == 0 {
        out.push_str("(no output)\n");
    }
    out
}

pub(crate) fn ended(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code: {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "ended".to_owned(),
    }
}

// Real commands under the real sandbox, which only Linux has.
#[cfg(all(test, target_os = "linux"))]
mod tests;
// The resource limits against real bombs.
#[cfg(all(test, target_os = "linux"))]
mod limit_tests;
