//! Preparing a command to start, the same for `exec` in the foreground and in the
//! background: the guard, the working directory, the command's own `TMPDIR`, the
//! sandbox, and the scrubbed environment.

use std::path::{Path, PathBuf};

use agent_tools_core::ToolError;
use tempfile::TempDir;
use tokio::process::Command;

use super::capture::HeadTail;
use super::egress::CallProxy;
use super::sandbox::{self, ChildPlan, CommandLimits};
use super::{Exec, ExecArgs, env};
use crate::Workspace;
use crate::config::exec::ExecConfig;

/// A command ready to start: configured, with its confinement and its temporary directory.
pub(super) struct Launch {
    /// The shell running the command line, in its directory, with its environment; the
    /// standard streams are the runner's to set.
    pub(super) command: Command,
    /// What the child applies to itself before `exec`.
    pub(super) plan: ChildPlan,
    /// What the output says about the sandbox.
    pub(super) notes: Notes,
    /// The command's `TMPDIR`, removed when dropped: keep it as long as the command runs.
    pub(super) temp: TempDir,
    /// Under a network allow-list, the command's proxy, stopped when dropped: keep it as
    /// long as the command runs.
    pub(super) proxy: Option<CallProxy>,
    /// Its resource limits (cgroups, removed when dropped): keep them until it has ended,
    /// then ask which it reached.
    pub(super) limits: CommandLimits,
}

/// Checks `args` against the guard and the workspace and prepares the command.
pub(super) fn prepare(ws: &Workspace, exec: &Exec, args: &ExecArgs) -> Result<Launch, ToolError> {
    let config = &exec.config;
    exec.guard.check(&args.command).map_err(ToolError::new)?;
    let working_dir = working_dir(ws, args.working_dir.as_deref())?;
    let temp = tempfile::Builder::new()
        .prefix("agent-tools-exec-")
        .tempdir()
        .map_err(|error| ToolError::new(format!("cannot create a temporary directory: {error}")))?;
    let writable = [ws.root(), temp.path()];
    let (proxy, route) = match &exec.egress {
        Some(egress) => {
            let (proxy, route) = egress.open(sandbox::network_namespace(config)).map_err(|error| {
                ToolError::new(format!("cannot start the network proxy for the command: {error}"))
            })?;
            (Some(proxy), Some(route))
        }
        None => (None, None),
    };
    let scope = exec.read.scope(ws.root(), &config.shell);
    let prepared = sandbox::prepare(config, &scope, &writable, route).map_err(ToolError::new)?;
    let command = command(config, args, &working_dir, temp.path(), proxy.as_ref())?;
    Ok(Launch {
        command,
        plan: prepared.plan,
        notes: Notes {
            always: prepared.note.into_iter().collect(),
            hidden: prepared.hidden,
        },
        temp,
        proxy,
        limits: prepared.limits,
    })
}

/// What an output says about the sandbox besides the command's own words.
#[derive(Debug)]
pub(super) struct Notes {
    /// Said in every output: restrictions not enforced here, connections refused.
    pub(super) always: Vec<String>,
    /// What reading is confined to and what is hidden: said when the output shows a
    /// refused read.
    hidden: Option<String>,
}

impl Notes {
    /// `strerror(EACCES)`, the words of every program refused a read.
    const REFUSED: &'static [u8] = b"Permission denied";

    /// The notes for an output made of `streams`. The hidden paths are said only when a
    /// stream shows a refused access, so that a model learns why its read failed without
    /// every output growing by the list. (The text decides a hint, never a permission.)
    pub(super) fn for_output(&self, streams: &[&HeadTail]) -> Vec<&str> {
        let refused = streams.iter().any(|stream| stream.mentions(Self::REFUSED));
        let hidden = self.hidden.as_deref().filter(|_| refused);
        self.always.iter().map(String::as_str).chain(hidden).collect()
    }
}

/// The absolute directory to run in, checked to be a directory inside the workspace.
fn working_dir(ws: &Workspace, given: Option<&str>) -> Result<PathBuf, ToolError> {
    let relative = ws.relative_path(given.unwrap_or("."))?;
    let shown = Workspace::display(&relative);
    let canonical = ws
        .dir()
        .canonicalize(&relative)
        .map_err(|error| ws.io_error(&relative, error))?;
    if !ws.dir().is_dir(&canonical) {
        return Err(ToolError::new(format!("`{shown}` is not a directory")));
    }
    let below_root = canonical
        .components()
        .filter(|part| !matches!(part, std::path::Component::CurDir));
    Ok(below_root.fold(ws.root().to_path_buf(), |dir, part| dir.join(part)))
}

fn command(
    config: &ExecConfig,
    args: &ExecArgs,
    dir: &Path,
    temp: &Path,
    proxy: Option<&CallProxy>,
) -> Result<Command, ToolError> {
    let mut command = Command::new(&config.shell);
    command.arg("-c").arg(&args.command).current_dir(dir).env_clear();
    command.envs(env::inherited(std::env::vars(), &config.env_allow));
    command.env("TMPDIR", temp).env("PWD", dir);
    // Before the call's own variables: a command may point a client elsewhere (`NO_PROXY`),
    // which the sandbox, not the variable, makes fail.
    command.envs(proxy.into_iter().flat_map(CallProxy::environment));
    for var in args.env.iter().flatten() {
        env::check_name(&var.name).map_err(ToolError::new)?;
        command.env(&var.name, &var.value);
    }
    Ok(command)
}

/// The error of a command that could not be started.
pub(super) fn spawn_error(config: &ExecConfig, error: &std::io::Error) -> ToolError {
    ToolError::new(format!("cannot run `{}`: {error}", config.shell.display()))
}
