//! `exec` against real processes.

use std::path::Path;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::*;
use crate::ExecSandbox;

pub(super) struct Setup {
    temp: tempfile::TempDir,
    pub(super) ws: Workspace,
}

pub(super) fn setup() -> Setup {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    Setup { temp, ws }
}

pub(super) fn args(command: &str) -> ExecArgs {
    ExecArgs {
        command: command.into(),
        working_dir: None,
        timeout_secs: None,
        env: None,
        background: None,
    }
}

fn sandboxed() -> ExecConfig {
    ExecConfig {
        require_sandbox: true,
        ..ExecConfig::default()
    }
}

pub(super) async fn run_with(setup: &Setup, config: ExecConfig, args: ExecArgs) -> Result<String, String> {
    let exec_tool = Exec::new(config).unwrap();
    exec(&setup.ws, &exec_tool, args, &ToolContext::new("t"))
        .await
        .map_err(|e| e.to_string())
}

async fn run(setup: &Setup, command: &str) -> String {
    run_with(setup, ExecConfig::default(), args(command))
        .await
        .unwrap()
}

/// A string no other process has on its command line.
pub(super) fn marker() -> String {
    format!(
        "{}.{}",
        900 + std::process::id() % 99,
        Instant::now().elapsed().subsec_nanos() % 1000
    )
}

/// The command lines (arguments separated by NUL) of the live processes, seen from
/// outside any sandbox. Shared with the background processes' tests.
pub(super) fn command_lines() -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .collect()
}

/// Processes whose command line contains `needle`.
pub(super) fn processes_with(needle: &str) -> usize {
    command_lines()
        .iter()
        .filter(|cmdline| {
            String::from_utf8_lossy(cmdline)
                .replace('\0', " ")
                .contains(needle)
        })
        .count()
}

/// Polls until `done` or ten seconds have passed.
pub(super) async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

#[tokio::test]
async fn exit_code_stdout_and_stderr() {
    let setup = setup();
    assert_eq!(
        run(&setup, "echo out; echo err >&2; exit 3").await,
        "exit code: 3\n--- stdout ---\nout\n--- stderr ---\nerr\n"
    );
    assert_eq!(run(&setup, "true").await, "exit code: 0\n(no output)\n");
    assert_eq!(
        run(&setup, "kill -9 $$").await,
        "killed by signal 9\n(no output)\n"
    );
}

#[tokio::test]
async fn commands_run_in_the_workspace_or_a_directory_inside() {
    let setup = setup();
    std::fs::create_dir(setup.temp.path().join("sub")).unwrap();
    let root = setup.ws.root().display().to_string();
    assert_eq!(
        run(&setup, "pwd").await,
        format!("exit code: 0\n--- stdout ---\n{root}\n")
    );
    let inside = ExecArgs {
        working_dir: Some("sub".into()),
        ..args("pwd")
    };
    assert!(
        run_with(&setup, ExecConfig::default(), inside)
            .await
            .unwrap()
            .contains(&format!("{root}/sub"))
    );
    let outside = ExecArgs {
        working_dir: Some("..".into()),
        ..args("pwd")
    };
    assert!(
        run_with(&setup, ExecConfig::default(), outside)
            .await
            .unwrap_err()
            .contains("outside the workspace")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_kills_the_whole_process_tree_and_is_an_error_with_the_output_so_far() {
    let setup = setup();
    let marker = marker();
    let command = format!("echo begun; sleep {marker}1 & (sleep {marker}2 &) ; sleep {marker}3; echo never");
    let out = run_with(
        &setup,
        ExecConfig::default(),
        ExecArgs {
            timeout_secs: Some(1),
            ..args(&command)
        },
    )
    .await
    .unwrap_err();
    assert!(out.starts_with("timed out after 1s;"), "{out}");
    assert!(out.contains("Output so far:\n--- stdout ---\nbegun\n"), "{out}");
    assert!(
        eventually(|| processes_with(&marker) == 0).await,
        "no survivors of {marker}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_time_limit_ends_before_the_calls_deadline() {
    let setup = setup();
    let exec_tool = Exec::new(ExecConfig::default()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(3);
    let ctx = ToolContext::new("t").with_deadline(deadline);
    let error = exec(&setup.ws, &exec_tool, args("echo begun; sleep 30"), &ctx)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), agent_tools_core::error::ToolErrorKind::TimedOut);
    let message = error.message();
    assert!(message.contains("(the time left for this call)"), "{message}");
    assert!(message.contains("begun"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grandchild_holding_the_pipes_does_not_hold_the_call() {
    let setup = setup();
    let marker = marker();
    let started = Instant::now();
    let out = run(&setup, &format!("(sleep {marker} &); echo done")).await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out, "exit code: 0\n--- stdout ---\ndone\n");
    assert!(
        eventually(|| processes_with(&marker) == 0).await,
        "the pipe holder was stopped"
    );
}

#[tokio::test]
async fn a_flood_of_output_keeps_its_head_and_tail() {
    let setup = setup();
    let out = run(&setup, "seq 1 2000000").await;
    assert!(out.len() < 31 * 1024, "{}", out.len());
    assert!(
        out.starts_with("exit code: 0\n--- stdout ---\n1\n2\n3\n"),
        "{}",
        &out[..100]
    );
    assert!(out.contains(" bytes omitted ...]\n"));
    assert!(out.ends_with("1999999\n2000000\n"));
}

#[tokio::test]
async fn binary_output_is_replaced_not_a_panic() {
    let setup = setup();
    let out = run(&setup, "head -c 100000 /dev/urandom").await;
    assert!(out.starts_with("exit code: 0\n--- stdout ---\n"));
    assert!(out.contains('\u{FFFD}'));
}

#[tokio::test]
async fn the_environment_is_scrubbed() {
    let setup = setup();
    // Cargo sets CARGO_MANIFEST_DIR for tests; it is not on the allow-list.
    let out = run(&setup, "env").await;
    assert!(out.contains("\nPATH=") && out.contains("\nTMPDIR="), "{out}");
    assert!(!out.contains("CARGO_MANIFEST_DIR"), "{out}");
    let config = ExecConfig {
        env_allow: vec!["CARGO_MANIFEST_DIR".into()],
        ..ExecConfig::default()
    };
    let with = ExecArgs {
        env: Some(vec![EnvVar {
            name: "GREETING".into(),
            value: "hi".into(),
        }]),
        ..args("env")
    };
    let out = run_with(&setup, config, with).await.unwrap();
    assert!(
        out.contains("CARGO_MANIFEST_DIR=") && out.contains("GREETING=hi"),
        "{out}"
    );
    let bad = ExecArgs {
        env: Some(vec![EnvVar {
            name: "A-B".into(),
            value: "x".into(),
        }]),
        ..args("env")
    };
    assert!(
        run_with(&setup, ExecConfig::default(), bad)
            .await
            .unwrap_err()
            .contains("not a valid environment variable name")
    );
}

#[tokio::test]
async fn the_guard_refuses_and_says_it_is_a_guard() {
    let setup = setup();
    let error = run_with(&setup, ExecConfig::default(), args("rm -rf /"))
        .await
        .unwrap_err();
    assert!(error.starts_with("refused by the command guard"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_stops_the_command() {
    let setup = setup();
    let marker = marker();
    let token = CancellationToken::new();
    let ctx = ToolContext::new("t").with_cancellation(token.clone());
    let exec_tool = Exec::new(ExecConfig::default()).unwrap();
    let command = format!("touch started; sleep {marker}");
    let started_file = setup.temp.path().join("started");
    let canceller = async {
        assert!(eventually(|| started_file.exists()).await);
        token.cancel();
    };
    let (result, ()) = tokio::join!(exec(&setup.ws, &exec_tool, args(&command), &ctx), canceller);
    let error = result.unwrap_err();
    assert_eq!(error.kind(), agent_tools_core::error::ToolErrorKind::Cancelled);
    assert!(
        error.message().starts_with("cancelled; the command"),
        "{}",
        error.message()
    );
    assert!(eventually(|| processes_with(&marker) == 0).await);
}

#[tokio::test]
async fn the_sandbox_allows_writes_inside_and_refuses_them_outside() {
    if test_support::require_program("python3", "apt-get install python3").is_none() {
        return;
    }
    let setup = setup();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("f");
    let home_file = format!("agent-tools-sandbox-{}", marker());
    let commands = [
        format!("echo x > {}", target.display()),
        format!("touch ~/{home_file}"),
        format!("python3 -c \"open('{}', 'w').write('x')\"", target.display()),
        format!("mkdir {}/d", outside.path().display()),
    ];
    for command in &commands {
        let out = run_with(&setup, sandboxed(), args(command)).await.unwrap();
        assert!(!out.starts_with("exit code: 0"), "{command}: {out}");
    }
    assert!(!target.exists());
    assert!(
        !Path::new(&std::env::var("HOME").unwrap_or_default())
            .join(&home_file)
            .exists()
    );
    let inside = "echo x > inside.txt && mkdir -p a/b && echo y > a/b/c && echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" && echo z > /dev/null";
    let out = run_with(&setup, sandboxed(), args(inside)).await.unwrap();
    assert_eq!(out, "exit code: 0\n--- stdout ---\nt\n");
    assert_eq!(
        std::fs::read_to_string(setup.temp.path().join("a/b/c")).unwrap(),
        "y\n"
    );
    let unconfined = ExecConfig {
        sandbox: ExecSandbox::None,
        ..ExecConfig::default()
    };
    let out = run_with(&setup, unconfined, args(&commands[0])).await.unwrap();
    assert!(out.starts_with("exit code: 0"), "{out}");
}

#[tokio::test]
async fn the_sandbox_can_refuse_network_connections() {
    if test_support::require_program("python3", "apt-get install python3").is_none() {
        return;
    }
    let setup = setup();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')\""
    );
    let out = run_with(&setup, sandboxed(), args(&connect)).await.unwrap();
    assert!(out.contains("connected"), "network is allowed by default: {out}");
    let offline = ExecConfig {
        network: crate::ExecNetwork::None,
        ..sandboxed()
    };
    let out = run_with(&setup, offline, args(&connect)).await.unwrap();
    assert!(
        !out.contains("connected") && out.contains("PermissionError"),
        "{out}"
    );
}
