//! The resource limits against real bombs: each runs until the kernel stops it, and the
//! call must name the limit. Run without the limit, each test fails (the bomb outgrows
//! the bound checked from outside, finishes unnamed, or runs into its time limit).

use std::sync::atomic::{AtomicUsize, Ordering};

use super::tests::{args, eventually, marker, processes_with, run_with, setup};
use super::*;

fn limited(max_processes: Option<u32>, max_memory: Option<u64>, max_cpu: Option<Duration>) -> ExecConfig {
    ExecConfig {
        require_sandbox: true,
        max_processes,
        max_memory,
        max_cpu,
        ..ExecConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_bomb_reaches_max_processes_while_other_calls_answer() {
    if test_support::require_program("python3", "apt-get install python3").is_none() {
        return;
    }
    let setup = setup();
    let exec_tool = Exec::new(limited(Some(100), None, None)).unwrap();
    let marker = marker();
    let stop = setup.ws.root().join("stop");
    // Every process forks again and again (reaping what ended) until `stop` appears: a
    // bomb that keeps its share full rather than running out by itself.
    let bomb = format!(
        "python3 -c \"{}\" {marker}",
        [
            "import os, time",
            "while not os.path.exists('stop'):",
            "    try: os.fork()",
            "    except OSError: time.sleep(0.01)",
            "    try: os.waitpid(-1, os.WNOHANG)",
            "    except ChildProcessError: pass",
        ]
        .join("\n")
    );
    let most_seen = AtomicUsize::new(0);
    let watcher = async {
        let full = eventually(|| {
            let now = processes_with(&marker);
            most_seen.fetch_max(now, Ordering::Relaxed);
            now >= 60
        })
        .await;
        assert!(full, "the bomb never grew");
        // The agent answers another call while the bomb holds its whole share.
        let other = Exec::new(ExecConfig::default()).unwrap();
        let answer = exec(&setup.ws, &other, args("echo alive"), &ToolContext::new("t")).await;
        assert_eq!(answer.unwrap(), "exit code: 0\n--- stdout ---\nalive\n");
        most_seen.fetch_max(processes_with(&marker), Ordering::Relaxed);
        std::fs::write(&stop, "").unwrap();
    };
    let call = ExecArgs {
        timeout_secs: Some(60),
        ..args(&bomb)
    };
    let ctx = ToolContext::new("t");
    let (result, ()) = tokio::join!(exec(&setup.ws, &exec_tool, call, &ctx), watcher);
    let error = result.unwrap_err().to_string();
    assert!(
        error.starts_with("the command reached `max_processes` (100): the kernel refused"),
        "{error}"
    );
    let most = most_seen.load(Ordering::Relaxed);
    assert!(most <= 100, "{most} processes of the bomb ran at once");
    assert!(
        eventually(|| processes_with(&marker) == 0).await,
        "the bomb's processes outlived the call"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_memory_bomb_is_killed_at_max_memory() {
    let setup = setup();
    // `tail` keeps the last line, and a gigabyte of zeros has no line end: it holds it all.
    let bomb = args("head -c 1000M /dev/zero | tail -c 1000M | wc -c");
    let error = run_with(&setup, limited(None, Some(64 << 20), None), bomb)
        .await
        .unwrap_err();
    assert!(
        error.starts_with(
            "the command was killed: it exceeded `max_memory` (64.0 MB); the kernel's OOM killer"
        ),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spinners_are_stopped_at_max_cpu_all_together() {
    let setup = setup();
    let marker = marker();
    // Two spinners, each below the limit on its own for a while: their sum reaches it.
    let spin = format!("spin() {{ while :; do :; done; }}; spin & spin & wait # {marker}");
    let call = ExecArgs {
        timeout_secs: Some(30),
        ..args(&spin)
    };
    let error = run_with(&setup, limited(None, None, Some(Duration::from_secs(1))), call)
        .await
        .unwrap_err();
    assert!(
        error.starts_with("the command was stopped: it used its `max_cpu` of 1s CPU time"),
        "{error}"
    );
    assert!(eventually(|| processes_with(&marker) == 0).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_within_its_limits_runs_as_usual() {
    let setup = setup();
    let config = limited(Some(100), Some(256 << 20), Some(Duration::from_secs(10)));
    let out = run_with(&setup, config, args("seq 1 100000 | sort -n | tail -n 1 & wait"))
        .await
        .unwrap();
    assert_eq!(out, "exit code: 0\n--- stdout ---\n100000\n");
}
