//! The tools' bodies: `exec` with `background: true` ([`start`]), `process_output`,
//! `process_write`, `process_kill` and `process_list`, and what they tell the model.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_tools_core::{ToolContext, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::io::AsyncWriteExt as _;

use super::process::{BackgroundProcess, Exit, Limits, State};
use crate::Workspace;
use crate::shell::{Exec, ExecArgs, launch};
use crate::text_format::{cut_line, human_size};

/// The longest `exec` waits for a background command's first output.
const STARTUP_WAIT: Duration = Duration::from_secs(1);
/// Once output has come, how long a quiet spell ends the wait for more.
const STARTUP_QUIET: Duration = Duration::from_millis(100);
/// The longest `process_write` waits for a process to take its input.
const WRITE_WAIT: Duration = Duration::from_secs(10);
/// Kept back from a call's deadline, to answer before it.
const WIND_DOWN: Duration = Duration::from_millis(250);
/// Characters of a command line shown in `process_list`.
const COMMAND_SHOWN: usize = 120;

/// Arguments of `process_output`.
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ProcessOutputArgs {
    /// The process's id, as `exec` returned it (e.g. `p1`).
    pub id: String,
    /// Read from this byte offset instead of from where the last read stopped: to read
    /// something again, or to skip to the latest output.
    pub since: Option<u64>,
    /// When there is nothing new yet, wait up to this many seconds for new output or
    /// for the process to end. Default 0: answer at once.
    #[schemars(range(min = 0, max = 600))]
    pub wait_secs: Option<u32>,
}

/// Arguments of `process_write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ProcessWriteArgs {
    /// The process's id, as `exec` returned it (e.g. `p1`).
    pub id: String,
    /// Text written to the process's stdin as it is: end a line with "\n".
    pub input: String,
    /// Close stdin after writing, so that the process sees the end of its input.
    pub close_stdin: Option<bool>,
}

/// Arguments of `process_kill`.
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ProcessKillArgs {
    /// The process's id, as `exec` returned it (e.g. `p1`).
    pub id: String,
}

/// Starts `args.command` in the background and returns its id and first output.
pub(crate) async fn start(
    ws: &Workspace,
    exec: &Exec,
    args: ExecArgs,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let config = &exec.config;
    let launch = launch::prepare(ws, exec, &args)?;
    let notes = launch.notes.always.clone();
    let limits = Limits {
        buffer: config.background_buffer,
        kill_grace: config.kill_grace,
        timeout: args.timeout_secs.map(|secs| Duration::from_secs(secs.into())),
    };
    let session: Option<Arc<str>> = ctx.session_id().map(Arc::from);
    let process = exec
        .processes
        .add(session.as_deref(), config.max_background, |id| {
            let ended = ctx.session_ended();
            BackgroundProcess::start(launch, id, session.clone(), args.command.clone(), limits, ended)
                .map_err(|error| launch::spawn_error(config, &error))
        })?;
    first_output(&process, ctx).await;
    if ctx.is_cancelled() {
        process.kill();
        return Err(ToolError::cancelled_with(format!(
            "cancelled; the background process {} was stopped",
            process.id
        )));
    }
    let mut out = format!("started {} in the background", process.id);
    for note in notes {
        out.push_str(&format!("\n[{note}]"));
    }
    let (text, read_whole) = read(&process, None, config.output_limit);
    match read_whole {
        false => out.push_str(&format!(
            "; it is running.\n{text}Read new output with process_output (`wait_secs` waits \
             for it), write to its stdin with process_write, stop it with process_kill.\n"
        )),
        true => {
            exec.processes.forget(&process.id);
            out = format!("{out}; it has ended already.\n{text}");
        }
    }
    Ok(out)
}

/// Waits, within [`STARTUP_WAIT`] and the call's time, until the process has ended or
/// output has come and stopped coming for [`STARTUP_QUIET`].
async fn first_output(process: &BackgroundProcess, ctx: &ToolContext) {
    let until = within_call(ctx, STARTUP_WAIT);
    loop {
        let last = {
            let state = process.state();
            if state.exit.is_some() {
                return;
            }
            state.output.last_arrival
        };
        let wake = last.map_or(until, |at| (at + STARTUP_QUIET).min(until));
        if Instant::now() >= wake || ctx.is_cancelled() {
            return;
        }
        let quiet_or_ended = |state: &State| state.exit.is_some() || state.output.last_arrival != last;
        process.wait_for(wake, ctx.cancellation(), quiet_or_ended).await;
    }
}

/// `process_output`: the output since the last read (or from `since`), after waiting
/// for some if asked.
pub(crate) async fn process_output(
    exec: &Exec,
    args: ProcessOutputArgs,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let process = exec.processes.get(ctx.session_id(), &args.id)?;
    if let Some(secs) = args.wait_secs.filter(|secs| *secs > 0) {
        let until = within_call(ctx, Duration::from_secs(secs.into()));
        let since = args.since;
        let something_new = move |state: &State| {
            let from = since.unwrap_or(state.output.total() - state.output.unread());
            state.exit.is_some() || state.output.total() > from
        };
        process.wait_for(until, ctx.cancellation(), something_new).await;
    }
    let (text, read_whole) = read(&process, args.since, exec.config.output_limit);
    let mut out = format!("{}: {}\n{text}", process.id, status(&process));
    if read_whole {
        exec.processes.forget(&process.id);
        out.push_str(&format!(
            "({} has ended and its output has been read to the end: it is no longer listed)\n",
            process.id
        ));
    }
    Ok(out)
}

/// Reads the process's output as text; and whether it has ended and all of it is read.
fn read(process: &BackgroundProcess, since: Option<u64>, max: usize) -> (String, bool) {
    let mut state = process.state();
    let ended = state.exit.is_some();
    let span = state.output.read(since, max, ended);
    let text = state.output.render(&span);
    (text, ended && state.output.unread() == 0)
}

/// "running for 2m 3s", or how it ended.
fn status(process: &BackgroundProcess) -> String {
    match process.state().exit.clone() {
        Some(exit) => exit.describe(),
        None => format!("running for {}", age(process)),
    }
}

fn age(process: &BackgroundProcess) -> String {
    let secs = process.started.elapsed().as_secs();
    humantime::format_duration(Duration::from_secs(secs)).to_string()
}

/// `process_write`: writes `input` to the process's stdin, then closes it if asked.
pub(crate) async fn process_write(
    exec: &Exec,
    args: ProcessWriteArgs,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let process = exec.processes.get(ctx.session_id(), &args.id)?;
    let id = &process.id;
    if let Some(exit) = process.state().exit.clone() {
        return Err(ToolError::new(format!(
            "{id} has ended ({}); it takes no more input",
            exit.describe()
        )));
    }
    let mut stdin = process.stdin.lock().await;
    let Some(pipe) = stdin.as_mut() else {
        return Err(ToolError::new(format!("{id}'s stdin is closed (`close_stdin`)")));
    };
    let bytes = args.input.as_bytes();
    let until = within_call(ctx, WRITE_WAIT);
    let mut written = 0;
    while written < bytes.len() {
        let write = tokio::time::timeout_at(until.into(), pipe.write(&bytes[written..]));
        match write.await {
            Ok(Ok(count)) => written += count,
            Ok(Err(error)) if error.kind() == std::io::ErrorKind::BrokenPipe => {
                return Err(ToolError::new(format!(
                    "{id} no longer reads its stdin (it closed it); {written} of {} bytes were written",
                    bytes.len()
                )));
            }
            Ok(Err(error)) => return Err(ToolError::new(format!("cannot write to {id}'s stdin: {error}"))),
            Err(_) => {
                return Err(ToolError::new(format!(
                    "{id} did not take all of its input: {written} of {} bytes were written; its \
                     stdin pipe is full because it is not reading",
                    bytes.len()
                )));
            }
        }
    }
    let mut out = format!("wrote {} to {id}'s stdin", human_size(written as u64));
    if args.close_stdin == Some(true) {
        *stdin = None;
        out.push_str(" and closed it");
    }
    out.push_str("; read what it answers with process_output (`wait_secs` waits for it)");
    Ok(out)
}

/// `process_kill`: stops the process and everything it started, and reports how it ended.
pub(crate) async fn process_kill(
    exec: &Exec,
    args: ProcessKillArgs,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let process = exec.processes.get(ctx.session_id(), &args.id)?;
    let id = &process.id;
    if let Some(exit) = process.state().exit.clone() {
        return Ok(format!("{id} had already ended: {}", exit.describe()));
    }
    process.kill();
    let stopping = exec.config.kill_grace + crate::shell::process::DRAIN + Duration::from_secs(2);
    let until = within_call(ctx, stopping);
    let ended = |state: &State| state.exit.is_some();
    if !process.wait_for(until, ctx.cancellation(), ended).await {
        return Err(ToolError::new(format!(
            "{id} is being stopped but has not ended yet; process_list shows when it has"
        )));
    }
    let (exit, unread) = {
        let state = process.state();
        (state.exit.as_ref().map(Exit::describe), state.output.unread())
    };
    let exit = exit.unwrap_or_default();
    if unread == 0 {
        exec.processes.forget(id);
        return Ok(format!("{id}: {exit}; nothing of its output was left unread"));
    }
    Ok(format!(
        "{id}: {exit}; {} of its output unread: read it with process_output",
        human_size(unread)
    ))
}

/// `process_list`: this session's background processes.
pub(crate) fn process_list(exec: &Exec, ctx: &ToolContext) -> Result<String, ToolError> {
    let processes = exec.processes.of_session(ctx.session_id());
    if processes.is_empty() {
        return Ok("no background processes in this session".to_owned());
    }
    let lines: Vec<String> = processes
        .iter()
        .map(|process| {
            let first_line = process.command.lines().next().unwrap_or_default();
            let more_lines = process.command.lines().count() > 1;
            let command = cut_line(first_line, COMMAND_SHOWN, 0);
            let more = if more_lines { " …" } else { "" };
            let unread = human_size(process.state().output.unread());
            let started = match process.is_running() {
                true => String::new(),
                false => format!(" (started {} ago)", age(process)),
            };
            format!(
                "{}: {}{started}, {unread} of output unread: {command}{more}",
                process.id,
                status(process),
            )
        })
        .collect();
    Ok(lines.join("\n"))
}

/// `now + wanted`, or earlier if the call's deadline comes first.
fn within_call(ctx: &ToolContext, wanted: Duration) -> Instant {
    let left = ctx
        .remaining()
        .map_or(wanted, |left| left.saturating_sub(WIND_DOWN).min(wanted));
    Instant::now() + left
}
