//! The command line asks the person at its terminal about the calls its policy asks
//! about: a real `agent-tools` process in a session whose controlling terminal is a
//! pseudo-terminal, answered by typing at it. The question shows the diff a file edit
//! would apply, and text a model controls cannot steer the terminal.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use serde_json::json;

use test_support::terminal;

/// What the prompt ends with.
const CHOICES: &str = "[e] edit the arguments > ";
/// Longest a step may take before the test gives up on it.
const PATIENCE: Duration = Duration::from_secs(60);

/// A policy that asks before writing anything but notes, and refuses `.env` files.
const POLICY: &str = r#"
[policy]
mode = "default"
deny = ["write_file(path: *.env)"]
allow = ["write_file(path: notes/**)"]
"#;

struct Session {
    dir: tempfile::TempDir,
    terminal: Terminal,
    child: Child,
}

/// The controller side of the pseudo-terminal: what is shown, and what is typed.
pub(crate) struct Terminal(pub(crate) std::fs::File);

impl Terminal {
    /// What the terminal shows up to and including `needle`.
    pub(crate) fn shown_until(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        let mut shown = Vec::new();
        while !String::from_utf8_lossy(&shown).contains(needle) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "never shown: {needle:?}; shown: {}",
                String::from_utf8_lossy(&shown)
            );
            if !readable(&self.0, left) {
                continue;
            }
            let mut buffer = [0u8; 4096];
            match self.0.read(&mut buffer) {
                Ok(read @ 1..) => shown.extend_from_slice(&buffer[..read]),
                _ => panic!("the terminal closed; shown: {}", String::from_utf8_lossy(&shown)),
            }
        }
        String::from_utf8_lossy(&shown).into_owned()
    }

    pub(crate) fn type_line(&mut self, line: &str) {
        writeln!(self.0, "{line}").unwrap();
    }
}

impl Session {
    /// `agent-tools --policy … call TOOL ARGUMENTS` at a terminal: its stderr and
    /// controlling terminal are the pseudo-terminal, its stdout a pipe.
    fn call(extra: &[&str], tool: &str, arguments: serde_json::Value) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("ws")).unwrap();
        std::fs::write(dir.path().join("ws/app.txt"), "one\ntwo\n").unwrap();
        std::fs::write(dir.path().join("policy.toml"), POLICY).unwrap();
        let (controller, terminal) = terminal::pseudo_terminal();
        let mut command = cli(dir.path());
        command.args(extra).args(["call", tool, &arguments.to_string()]);
        command.stdin(Stdio::null()).stdout(Stdio::piped());
        command.stderr(Stdio::from(terminal.try_clone().unwrap()));
        terminal::in_session_of(&mut command, &terminal);
        let child = command.spawn().unwrap();
        drop(terminal);
        Self {
            dir,
            terminal: Terminal(std::fs::File::from(controller)),
            child,
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join("ws").join(relative)
    }

    fn shown_until(&mut self, needle: &str) -> String {
        self.terminal.shown_until(needle)
    }

    fn type_line(&mut self, line: &str) {
        self.terminal.type_line(line);
    }

    /// Exit status and stdout, once the process has exited.
    fn finish(&mut self) -> (i32, String) {
        let mut stdout = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        let status = self.child.wait().unwrap();
        (status.code().unwrap_or(-1), stdout)
    }
}

fn cli(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command
        .arg("--workspace")
        .arg(dir.join("ws"))
        .arg("--policy")
        .arg(dir.join("policy.toml"))
        .env("XDG_DATA_HOME", dir.join("data"));
    command
}

fn readable(fd: &std::fs::File, within: Duration) -> bool {
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    let timeout = Timespec::try_from(within).unwrap_or(Timespec {
        tv_sec: 60,
        tv_nsec: 0,
    });
    poll(&mut fds, Some(&timeout)).unwrap_or(0) > 0
}

#[test]
fn an_edit_shows_its_diff_and_runs_once_allowed() {
    let arguments = json!({"path": "app.txt", "old_text": "two", "new_text": "deux"});
    let mut session = Session::call(&[], "edit_file", arguments);
    let question = session.shown_until(CHOICES);
    assert!(
        question.contains("Allow `edit_file` (Edit file) to run"),
        "{question}"
    );
    assert!(question.contains("policy mode `default`"), "{question}");
    assert!(question.contains("What it would do:"), "{question}");
    assert!(
        question.contains("-two") && question.contains("+deux"),
        "{question}"
    );
    assert_eq!(
        std::fs::read_to_string(session.path("app.txt")).unwrap(),
        "one\ntwo\n",
        "not yet"
    );
    session.type_line("y");
    let (status, stdout) = session.finish();
    assert_eq!(status, 0, "{stdout}");
    assert!(stdout.contains("Edited `app.txt`"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(session.path("app.txt")).unwrap(),
        "one\ndeux\n"
    );
}

#[test]
fn a_denied_write_never_happens_and_the_model_reads_why() {
    let arguments = json!({"path": "app.txt", "content": "gone\n"});
    let mut session = Session::call(&[], "write_file", arguments);
    let question = session.shown_until(CHOICES);
    assert!(
        question.contains("-one") && question.contains("+gone"),
        "{question}"
    );
    session.type_line("n");
    session.shown_until("Reason to tell the model");
    session.type_line("keep app.txt as it is");
    let (status, stdout) = session.finish();
    assert_eq!(status, 1);
    assert!(
        stdout.contains("the user refused it: keep app.txt as it is"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(session.path("app.txt")).unwrap(),
        "one\ntwo\n"
    );
}

#[test]
fn edited_arguments_are_checked_against_the_deny_rules() {
    let arguments = json!({"path": "app.txt", "content": "x\n"});
    let mut session = Session::call(&[], "write_file", arguments);
    session.shown_until(CHOICES);
    session.type_line("e");
    session.shown_until("on one line > ");
    session.type_line(r#"{"path": "prod.env", "content": "SECRET=1\n"}"#);
    let (status, stdout) = session.finish();
    assert_eq!(status, 1);
    assert!(stdout.contains("deny rule `write_file(path: *.env)`"), "{stdout}");
    assert!(!session.path("prod.env").exists());
}

#[test]
fn text_from_the_model_cannot_steer_the_terminal() {
    // Clear the screen, move home and print a fake all-clear over the question.
    let attack = "\u{1b}[2J\u{1b}[Hnothing to approve\u{202e}";
    let arguments = json!({"path": "notes.md", "content": attack});
    let mut session = Session::call(&[], "write_file", arguments);
    let question = session.shown_until(CHOICES);
    assert!(
        !question.contains('\u{1b}'),
        "an escape reached the terminal: {question:?}"
    );
    assert!(!question.contains('\u{202e}'), "{question:?}");
    assert!(question.contains("\\u{1b}[2J"), "{question}");
    session.type_line("n");
    session.shown_until("Reason");
    session.type_line("");
    let (status, _) = session.finish();
    assert_eq!(status, 1);
}

#[test]
fn accept_edits_runs_file_edits_without_asking() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ws")).unwrap();
    std::fs::write(
        dir.path().join("policy.toml"),
        "[policy]\nmode = \"accept_edits\"\ndeny = [\"write_file(path: *.env)\"]\n",
    )
    .unwrap();
    let run = |tool: &str, arguments: serde_json::Value| {
        cli(dir.path())
            .args(["call", tool, &arguments.to_string()])
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let written = run("write_file", json!({"path": "a.txt", "content": "a\n"}));
    assert!(written.status.success(), "{written:?}");
    assert!(dir.path().join("ws/a.txt").exists());
    let refused = run("write_file", json!({"path": ".env", "content": "a\n"}));
    assert_eq!(refused.status.code(), Some(1));
    // exec still asks; with no terminal here, no one can approve it.
    let exec = run("exec", json!({"command": "touch ran"}));
    assert_eq!(exec.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&exec.stdout).contains("no one can be asked"),
        "{exec:?}"
    );
    assert!(!dir.path().join("ws/ran").exists());
    let listed = cli(dir.path()).arg("list").output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    let line = |tool: &str| {
        listed
            .lines()
            .find(|line| line.starts_with(tool))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(line("edit_file ").contains("allowed"), "{listed}");
    assert!(
        line("exec ").contains("asks (policy mode `accept_edits`)"),
        "{listed}"
    );
}

#[test]
fn ask_terminal_without_a_terminal_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ws")).unwrap();
    std::fs::write(dir.path().join("policy.toml"), POLICY).unwrap();
    let out = cli(dir.path())
        .args(["--ask", "terminal", "call", "list_dir", "{}"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--ask terminal: there is no terminal to ask at"),
        "{out:?}"
    );
}

#[tokio::test]
async fn serve_asks_at_its_terminal_while_the_client_waits() {
    use agent_tools::mcp::rmcp::ServiceExt as _;
    use agent_tools::mcp::rmcp::model::CallToolRequestParams;
    use agent_tools::mcp::rmcp::transport::TokioChildProcess;

    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ws")).unwrap();
    std::fs::write(dir.path().join("ws/app.txt"), "one\ntwo\n").unwrap();
    std::fs::write(dir.path().join("policy.toml"), POLICY).unwrap();
    let (controller, terminal_fd) = terminal::pseudo_terminal();
    let mut command = tokio::process::Command::from(cli(dir.path()));
    command.arg("serve").kill_on_drop(true);
    terminal::in_session_of(command.as_std_mut(), &terminal_fd);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::from(terminal_fd.try_clone().unwrap()))
        .spawn()
        .unwrap();
    drop(terminal_fd);
    let client = ().serve(transport).await.unwrap();
    let mut terminal = Terminal(std::fs::File::from(controller));

    // The client's call waits while the person at the server's terminal decides.
    let call = |arguments: serde_json::Value| {
        let peer = client.peer().clone();
        let arguments = arguments.as_object().cloned().unwrap();
        let params = CallToolRequestParams::new("edit_file").with_arguments(arguments);
        tokio::spawn(async move { peer.call_tool(params).await.unwrap() })
    };
    let allowed = call(json!({"path": "app.txt", "old_text": "two", "new_text": "deux"}));
    let answered = tokio::task::spawn_blocking(move || {
        let question = terminal.shown_until(CHOICES);
        terminal.type_line("y");
        (terminal, question)
    });
    let (mut terminal, question) = answered.await.unwrap();
    assert!(
        question.contains("-two") && question.contains("+deux"),
        "{question}"
    );
    let result = allowed.await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let app = dir.path().join("ws/app.txt");
    assert_eq!(std::fs::read_to_string(&app).unwrap(), "one\ndeux\n");

    let refused = call(json!({"path": "app.txt", "old_text": "one", "new_text": "uno"}));
    tokio::task::spawn_blocking(move || {
        terminal.shown_until(CHOICES);
        terminal.type_line("n");
        terminal.shown_until("Reason");
        terminal.type_line("not the first line");
    })
    .await
    .unwrap();
    let result = refused.await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(format!("{result:?}").contains("not the first line"), "{result:?}");
    assert_eq!(std::fs::read_to_string(&app).unwrap(), "one\ndeux\n");
    client.cancel().await.unwrap();
}
