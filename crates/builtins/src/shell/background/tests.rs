//! Background processes against real processes under the real sandbox, each checked from
//! outside (`/proc`) where it matters that a process is gone.

use std::time::{Duration, Instant};

use agent_tools_core::ToolContext;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::shell::tests::{command_lines, eventually, processes_with};
use crate::shell::{Exec, ExecArgs, exec};
use crate::{ExecConfig, ExecSandbox, Workspace};

struct Setup {
    _temp: tempfile::TempDir,
    ws: Workspace,
    exec: Exec,
}

fn setup_with(config: ExecConfig) -> Setup {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    Setup {
        _temp: temp,
        ws,
        exec: Exec::new(config).unwrap(),
    }
}

fn setup() -> Setup {
    setup_with(ExecConfig {
        require_sandbox: true,
        ..ExecConfig::default()
    })
}

fn session(name: &str) -> ToolContext {
    ToolContext::new("t").with_session_id(name)
}

fn background(command: &str) -> ExecArgs {
    ExecArgs {
        command: command.into(),
        working_dir: None,
        timeout_secs: None,
        env: None,
        background: Some(true),
    }
}

/// Starts `command` in the background; its id and what `exec` said.
async fn start(setup: &Setup, ctx: &ToolContext, command: &str) -> (String, String) {
    let out = exec(&setup.ws, &setup.exec, background(command), ctx)
        .await
        .unwrap_or_else(|error| panic!("{command}: {error}"));
    let id = out
        .strip_prefix("started ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no id in {out}"))
        .to_owned();
    (id, out)
}

async fn output(
    setup: &Setup,
    ctx: &ToolContext,
    id: &str,
    since: Option<u64>,
    wait: u32,
) -> Result<String, String> {
    let args = ProcessOutputArgs {
        id: id.into(),
        since,
        wait_secs: Some(wait),
    };
    process_output(&setup.exec, args, ctx)
        .await
        .map_err(|error| error.to_string())
}

async fn kill(setup: &Setup, ctx: &ToolContext, id: &str) -> Result<String, String> {
    let args = ProcessKillArgs { id: id.into() };
    process_kill(&setup.exec, args, ctx)
        .await
        .map_err(|error| error.to_string())
}

async fn write(
    setup: &Setup,
    ctx: &ToolContext,
    id: &str,
    input: &str,
    close: bool,
) -> Result<String, String> {
    let args = ProcessWriteArgs {
        id: id.into(),
        input: input.into(),
        close_stdin: Some(close),
    };
    process_write(&setup.exec, args, ctx)
        .await
        .map_err(|error| error.to_string())
}

/// Reads (waiting for more each time) until the process has ended; everything read.
async fn until_ended(setup: &Setup, ctx: &ToolContext, id: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut all = String::new();
    loop {
        let out = output(setup, ctx, id, None, 5).await.unwrap();
        let ended = !out.starts_with(&format!("{id}: running"));
        all.push_str(&out);
        if ended {
            return all;
        }
        assert!(Instant::now() < deadline, "{id} did not end: {all}");
    }
}

/// A string no other process has on its command line.
fn marker() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    // Fixed width, so that no marker is the start of another's.
    format!(
        "{}.{:04}9",
        800 + std::process::id() % 99,
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Live `sleep` processes with `marker` in their arguments (not the shells that run them).
fn sleepers(marker: &str) -> usize {
    command_lines()
        .iter()
        .filter(|cmdline| {
            cmdline.starts_with(b"sleep\0") && String::from_utf8_lossy(cmdline).contains(marker)
        })
        .count()
}

/// Polls `process_list` until `id` has ended, reading none of its output.
async fn until_listed_as_ended(setup: &Setup, ctx: &ToolContext, id: &str) {
    let running = format!("{id}: running");
    let ended = || {
        let listed = process_list(&setup.exec, ctx).unwrap();
        listed.contains(&format!("{id}: ")) && !listed.contains(&running)
    };
    assert!(eventually(ended).await, "{id} did not end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_returns_the_first_output_and_the_process_keeps_running() {
    let setup = setup();
    let ctx = session("s");
    let marker = marker();
    let (id, out) = start(
        &setup,
        &ctx,
        &format!("echo ready; echo oops >&2; sleep {marker}"),
    )
    .await;
    assert_eq!(id, "p1");
    assert!(out.contains("; it is running.\n--- output, bytes 0.."), "{out}");
    assert!(out.contains("\nready\n"), "{out}");
    let mut all = out;
    for _ in 0..4 {
        if all.contains("oops") {
            break;
        }
        all.push_str(&output(&setup, &ctx, "p1", None, 5).await.unwrap());
    }
    assert!(
        all.contains("ready\noops\n"),
        "stdout and stderr in the order written: {all}"
    );
    assert_eq!(sleepers(&marker), 1);
    let listed = process_list(&setup.exec, &ctx).unwrap();
    assert!(listed.starts_with("p1: running for "), "{listed}");
    assert!(
        listed.contains(&format!(
            "0 B of output unread: echo ready; echo oops >&2; sleep {marker}"
        )),
        "{listed}"
    );
    let nothing_new = output(&setup, &ctx, "p1", None, 0).await.unwrap();
    assert!(
        nothing_new.ends_with("(no new output; 11 bytes in all)\n"),
        "{nothing_new}"
    );
    let again = output(&setup, &ctx, "p1", Some(6), 0).await.unwrap();
    assert!(
        again.ends_with("--- output, bytes 6..11 of 11 ---\noops\n"),
        "{again}"
    );
    let killed = kill(&setup, &ctx, "p1").await.unwrap();
    assert!(killed.starts_with("p1: stopped by process_kill"), "{killed}");
    assert!(eventually(|| processes_with(&marker) == 0).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_past_the_buffer_keeps_head_and_tail_and_counts_what_was_dropped() {
    let setup = setup_with(ExecConfig {
        background_buffer: 1000,
        output_limit: 100_000,
        require_sandbox: true,
        ..ExecConfig::default()
    });
    let ctx = session("s");
    let (id, _) = start(&setup, &ctx, "sleep 1.5; seq 1 2000").await;
    until_listed_as_ended(&setup, &ctx, &id).await;
    let expected: String = (1..=2000).map(|n| format!("{n}\n")).collect();
    assert_eq!(expected.len(), 8893);
    let out = output(&setup, &ctx, &id, Some(0), 0).await.unwrap();
    let body = out
        .split_once("--- output, bytes 0..8893 of 8893 ---\n")
        .unwrap()
        .1;
    let (head, rest) = body.split_once("\n[... 7893 bytes dropped here (offsets 500..8393): the buffer keeps the first and the latest 500 B ...]\n").unwrap_or_else(|| panic!("{out}"));
    assert_eq!(
        format!("{head}\n"),
        expected[..500],
        "the head, whole (it ends in a newline)"
    );
    let tail = rest.split_once("\n(").map_or(rest, |(tail, _)| tail);
    assert_eq!(format!("{tail}\n"), expected[8393..]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_written_to_stdin_comes_back_through_the_output() {
    let setup = setup();
    let ctx = session("s");
    let (id, _) = start(&setup, &ctx, "cat").await;
    let wrote = write(&setup, &ctx, &id, "hello\n", false).await.unwrap();
    assert!(wrote.starts_with("wrote 6 B to p1's stdin;"), "{wrote}");
    let out = output(&setup, &ctx, &id, None, 10).await.unwrap();
    assert!(out.ends_with("--- output, bytes 0..6 of 6 ---\nhello\n"), "{out}");
    let closed = write(&setup, &ctx, &id, "bye\n", true).await.unwrap();
    assert!(closed.contains("and closed it"), "{closed}");
    until_listed_as_ended(&setup, &ctx, &id).await;
    let late = write(&setup, &ctx, &id, "late\n", false).await.unwrap_err();
    assert_eq!(late, "p1 has ended (exited with code 0); it takes no more input");
    let rest = until_ended(&setup, &ctx, &id).await;
    assert!(
        rest.starts_with("p1: exited with code 0\n--- output, bytes 6..10 of 10 ---\nbye\n"),
        "{rest}"
    );
    assert!(rest.ends_with("it is no longer listed)\n"), "{rest}");
    let forgotten = output(&setup, &ctx, &id, None, 0).await.unwrap_err();
    assert!(
        forgotten.contains("no background process `p1` in this session"),
        "{forgotten}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_that_does_not_read_does_not_hold_the_writer() {
    let setup = setup();
    let ctx = session("s");
    let marker = marker();
    let (id, _) = start(&setup, &ctx, &format!("sleep {marker}")).await;
    let short = ctx.clone().with_deadline(Instant::now() + Duration::from_secs(2));
    let flood = "x".repeat(1 << 20);
    let error = write(&setup, &short, &id, &flood, false).await.unwrap_err();
    assert!(
        error.contains("of 1048576 bytes were written; its stdin pipe is full"),
        "{error}"
    );
    let killed = kill(&setup, &ctx, &id).await.unwrap();
    assert!(
        killed.ends_with("nothing of its output was left unread"),
        "{killed}"
    );
    let forgotten = write(&setup, &ctx, &id, "late", false).await.unwrap_err();
    assert!(forgotten.contains("no background process `p1`"), "{forgotten}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_ends_everything_the_process_started() {
    let setup = setup();
    let ctx = session("s");
    let marker = marker();
    // A child in the group, one that ignores SIGTERM, and one that left the group.
    let command = format!(
        "sleep {marker}1 & (trap '' TERM; sleep {marker}2) & setsid sleep {marker}3 & echo started; wait"
    );
    let (id, _) = start(&setup, &ctx, &command).await;
    assert!(eventually(|| sleepers(&marker) == 3).await);
    let killed = kill(&setup, &ctx, &id).await.unwrap();
    assert!(
        killed.starts_with("p1: stopped by process_kill (killed by signal"),
        "{killed}"
    );
    assert!(
        eventually(|| processes_with(&marker) == 0).await,
        "survivors of {marker}: {}",
        processes_with(&marker)
    );
    let again = kill(&setup, &ctx, &id).await;
    assert!(
        again.is_err() || again.as_ref().unwrap().contains("already ended"),
        "{again:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_may_run_only_so_many_and_sees_only_its_own() {
    let setup = setup_with(ExecConfig {
        max_background: 2,
        require_sandbox: true,
        ..ExecConfig::default()
    });
    let (mine, theirs) = (session("mine"), session("theirs"));
    let marker = marker();
    let sleeper = format!("sleep {marker}");
    let (first, _) = start(&setup, &mine, &sleeper).await;
    let (second, _) = start(&setup, &mine, &sleeper).await;
    let refused = exec(&setup.ws, &setup.exec, background(&sleeper), &mine)
        .await
        .unwrap_err()
        .to_string();
    for needed in [
        "2 background processes running",
        "`[exec] max_background`",
        "process_kill",
        "process_list",
    ] {
        assert!(refused.contains(needed), "{refused}");
    }
    let (other, _) = start(&setup, &theirs, &sleeper).await;
    assert_eq!(
        (first.as_str(), second.as_str(), other.as_str()),
        ("p1", "p2", "p3")
    );
    // The other session neither sees nor touches this one's processes.
    assert_eq!(process_list(&setup.exec, &theirs).unwrap().lines().count(), 1);
    assert!(!process_list(&setup.exec, &theirs).unwrap().contains("p1"));
    for attempt in [
        output(&setup, &theirs, &first, None, 0).await,
        kill(&setup, &theirs, &first).await,
        write(&setup, &theirs, &first, "x", true).await,
    ] {
        assert!(
            attempt
                .unwrap_err()
                .contains("no background process `p1` in this session")
        );
    }
    assert!(
        output(&setup, &mine, &first, None, 0)
            .await
            .unwrap()
            .starts_with("p1: running")
    );
    assert!(
        process_output(
            &setup.exec,
            ProcessOutputArgs {
                id: first.clone(),
                since: None,
                wait_secs: None
            },
            &ToolContext::new("no session")
        )
        .await
        .is_err(),
        "calls without a session are a session of their own"
    );
    kill(&setup, &mine, &first).await.unwrap();
    let (third, _) = start(&setup, &mine, &sleeper).await;
    assert_eq!(third, "p4", "a place is free again");
    assert!(eventually(|| sleepers(&marker) == 3).await);
    drop(setup);
    assert!(
        eventually(|| processes_with(&marker) == 0).await,
        "dropping the table kills them all"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_a_session_ends_its_processes_only() {
    let setup = setup();
    let (ending, staying) = (CancellationToken::new(), CancellationToken::new());
    let one = session("one").with_session_end(ending.clone());
    let two = session("two").with_session_end(staying.clone());
    let (gone, stays) = (marker(), marker());
    start(
        &setup,
        &one,
        &format!("sleep {gone}1 & setsid sleep {gone}2 & wait"),
    )
    .await;
    start(&setup, &two, &format!("sleep {stays}")).await;
    assert!(eventually(|| sleepers(&gone) == 2 && sleepers(&stays) == 1).await);
    ending.cancel();
    assert!(
        eventually(|| processes_with(&gone) == 0).await,
        "survivors of the session"
    );
    assert_eq!(sleepers(&stays), 1);
    assert_eq!(
        process_list(&setup.exec, &one).unwrap(),
        "no background processes in this session"
    );
}

#[test]
fn a_runtime_that_shuts_down_takes_its_processes_along() {
    let setup = setup();
    let marker = marker();
    // On this thread: the processes' parent-death signal does not fire, only the
    // supervisor's guard can end them.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(start(&setup, &session("s"), &format!("sleep {marker}")));
    assert_eq!(sleepers(&marker), 1);
    drop(runtime);
    let deadline = Instant::now() + Duration::from_secs(10);
    while processes_with(&marker) > 0 {
        assert!(Instant::now() < deadline, "the process outlived the runtime");
        std::thread::yield_now();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_time_limit_stops_a_background_process() {
    let setup = setup();
    let ctx = session("s");
    let marker = marker();
    let args = ExecArgs {
        timeout_secs: Some(1),
        ..background(&format!("sleep {marker}"))
    };
    exec(&setup.ws, &setup.exec, args, &ctx).await.unwrap();
    let out = until_ended(&setup, &ctx, "p1").await;
    assert!(
        out.contains("p1: stopped after its time limit of 1s (killed by signal"),
        "{out}"
    );
    assert_eq!(processes_with(&marker), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_for_output_ends_at_the_calls_deadline() {
    let setup = setup();
    let ctx = session("s");
    let (id, _) = start(&setup, &ctx, "sleep 100").await;
    let short = ctx.clone().with_deadline(Instant::now() + Duration::from_secs(1));
    let started = Instant::now();
    let out = output(&setup, &short, &id, None, 600).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(out.contains("(no new output; 0 bytes in all)"), "{out}");
    kill(&setup, &ctx, &id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_processes_stay_until_read_and_only_so_many() {
    let setup = setup_with(ExecConfig {
        output_limit: 4,
        require_sandbox: true,
        ..ExecConfig::default()
    });
    let ctx = session("s");
    let count = FINISHED_KEPT + 2;
    for _ in 0..count {
        let (_, out) = start(&setup, &ctx, "echo 0123456789").await;
        assert!(out.contains("[7 more bytes from offset 4"), "{out}");
    }
    let all_ended = || !process_list(&setup.exec, &ctx).unwrap().contains("running");
    assert!(eventually(all_ended).await);
    let listed = process_list(&setup.exec, &ctx).unwrap();
    assert_eq!(listed.lines().count(), FINISHED_KEPT, "{listed}");
    assert!(
        listed.starts_with("p3: exited with code 0 (started "),
        "the oldest went first: {listed}"
    );
    assert!(
        listed.contains(", 7 B of output unread: echo 0123456789"),
        "{listed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_pid_namespace_the_process_group_is_killed() {
    for config in [
        ExecConfig {
            keep_background: true,
            ..ExecConfig::default()
        },
        ExecConfig {
            sandbox: ExecSandbox::None,
            keep_background: true,
            ..ExecConfig::default()
        },
        ExecConfig {
            sandbox: ExecSandbox::None,
            ..ExecConfig::default()
        },
    ] {
        let setup = setup_with(config);
        let ctx = session("s");
        let marker = marker();
        start(&setup, &ctx, &format!("sleep {marker}1 & sleep {marker}2 & wait")).await;
        assert!(eventually(|| sleepers(&marker) == 2).await);
        let killed = kill(&setup, &ctx, "p1").await.unwrap();
        assert!(killed.starts_with("p1: stopped by process_kill"), "{killed}");
        assert!(eventually(|| processes_with(&marker) == 0).await);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_process_has_the_same_limits_and_its_end_names_the_one_it_reached() {
    let setup = setup_with(ExecConfig {
        require_sandbox: true,
        max_memory: Some(64 << 20),
        ..ExecConfig::default()
    });
    let ctx = session("s");
    // Slow enough to be running when `exec` returns.
    let (_, started) = start(
        &setup,
        &ctx,
        "sleep 1; head -c 1000M /dev/zero | tail -c 1000M | wc -c",
    )
    .await;
    assert!(started.contains("running"), "{started}");
    let out = until_ended(&setup, &ctx, "p1").await;
    assert!(
        out.contains("the command was killed: it exceeded `max_memory` (64.0 MB)"),
        "{out}"
    );
}
