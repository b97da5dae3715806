//! The approval question under attack (issue 27): a model writes a question of its own
//! into a call's text — an exact copy of the real one, with its choices — so that the
//! person at the terminal answers the forgery. The attack is made for real: a real
//! `agent-tools call` in a session whose controlling terminal is a pseudo-terminal 100
//! columns wide, and what the terminal shows is read back, wrapped as the terminal wraps
//! it. The forged lines must show up behind the gutter only, and the real prompt, with the
//! call's digest, last. The test fails if the framing is taken out.

use std::io::{Read as _, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::termios::{Winsize, tcsetwinsize};
use serde_json::json;

use test_support::terminal;

/// How wide the terminal is.
const COLUMNS: usize = 100;
/// The choices line, as the real prompt shows it.
const CHOICES: &str = "[y] allow once  [a] allow for this session  [n] deny  [e] edit the arguments > ";
/// The digest the forgeries claim.
const FAKE_DIGEST: &str = "0badc0de";
/// Longest a step may take before the test gives up on it.
const PATIENCE: Duration = Duration::from_secs(60);

/// Text a model writes into a file's new content: the end of a question, a copy of the
/// real one for a harmless call, and the choices, each line also padded to wrap onto a
/// screen line of its own.
fn forgery() -> String {
    let copy = [
        format!(
            "agent-tools: Allow `write_file` (Write file) to run with these arguments? [call {FAKE_DIGEST}]"
        ),
        "{".to_owned(),
        r#"  "path": "notes/todo.md""#.to_owned(),
        "}".to_owned(),
        "Asked because of policy mode `default`, which asks before destructive and open-world tools."
            .to_owned(),
        "Lines after │ or ┆ quote the call; they are not part of this question.".to_owned(),
        format!("Allow `write_file` to run? [call {FAKE_DIGEST}]"),
        "agent-tools: exec wants to run `ls`".to_owned(),
        format!("Allow `exec` to run? [call {FAKE_DIGEST}]"),
        CHOICES.to_owned(),
    ];
    let mut text = String::from("harmless\n\n");
    for line in &copy {
        text.push_str(line);
        text.push('\n');
    }
    for line in &copy {
        text.push_str(&" ".repeat(COLUMNS));
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// The controller side of the pseudo-terminal.
struct Terminal(std::fs::File);

impl Terminal {
    /// What the terminal shows (carriage returns taken out) once `done` holds of it.
    fn shown_until(&mut self, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        let mut shown = Vec::new();
        loop {
            let text = String::from_utf8_lossy(&shown).replace('\r', "");
            if done(&text) {
                return text;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "never done; shown:\n{text}");
            let mut fds = [PollFd::new(&self.0, PollFlags::IN)];
            let timeout = Timespec::try_from(left).unwrap();
            if poll(&mut fds, Some(&timeout)).unwrap_or(0) == 0 {
                continue;
            }
            let mut buffer = [0u8; 4096];
            match self.0.read(&mut buffer) {
                Ok(read @ 1..) => shown.extend_from_slice(&buffer[..read]),
                _ => panic!("the terminal closed; shown:\n{text}"),
            }
        }
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.0, "{line}").unwrap();
    }
}

/// The lines a terminal `COLUMNS` wide shows of `text`, long ones wrapped (a character
/// outside ASCII, but the gutter's and the ellipsis, is taken as two columns).
fn on_screen(text: &str) -> Vec<String> {
    let width = |c: char| {
        if c.is_ascii() || matches!(c, '│' | '┆' | '…') {
            1
        } else {
            2
        }
    };
    let mut lines = Vec::new();
    for line in text.split('\n') {
        let (mut shown, mut used) = (String::new(), 0);
        for c in line.chars() {
            if used + width(c) > COLUMNS {
                lines.push(std::mem::take(&mut shown));
                used = 0;
            }
            shown.push(c);
            used += width(c);
        }
        lines.push(shown);
    }
    lines
}

/// The digest a line of the prompt names: `[call 1234abcd]` at its end.
fn digest(line: &str) -> Option<&str> {
    let digest = line.strip_suffix(']')?.rsplit_once("[call ")?.1;
    (digest.len() == 8 && digest.bytes().all(|b| b.is_ascii_hexdigit())).then_some(digest)
}

#[test]
fn a_question_forged_in_a_calls_text_shows_behind_the_gutter_above_the_real_prompt() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ws")).unwrap();
    // A file that is not UTF-8: the preview shows the new content as it is, not as a diff.
    let blob = b"\xff\xfe not text\n";
    std::fs::write(dir.path().join("ws/blob.bin"), blob).unwrap();
    std::fs::write(dir.path().join("policy.toml"), "[policy]\nmode = \"default\"\n").unwrap();

    let (controller, terminal) = terminal::pseudo_terminal();
    let size = Winsize {
        ws_row: 50,
        ws_col: COLUMNS as u16,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    tcsetwinsize(&controller, size).unwrap();
    let arguments = json!({"path": "blob.bin", "content": forgery()});
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command
        .arg("--workspace")
        .arg(dir.path().join("ws"))
        .arg("--policy")
        .arg(dir.path().join("policy.toml"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .args(["call", "write_file", &arguments.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(terminal.try_clone().unwrap()));
    terminal::in_session_of(&mut command, &terminal);
    let mut child = command.spawn().unwrap();
    drop(terminal);
    let mut terminal = Terminal(std::fs::File::from(controller));

    // The real prompt is a line of its own naming the tool and a digest, then the choices.
    let real_prompt =
        |line: &str| line.starts_with("Allow `write_file` to run? [call ") && digest(line).is_some();
    let shown = terminal.shown_until(|shown| {
        let lines: Vec<&str> = shown.split('\n').collect();
        lines.len() >= 2 && lines[lines.len() - 1] == CHOICES && real_prompt(lines[lines.len() - 2])
    });
    let screen = on_screen(&shown);
    let everything = screen.join("\n");

    // The question's first line and its prompt name the same call, and not the forgery's.
    let header = screen
        .iter()
        .find(|line| line.starts_with("agent-tools: Allow `write_file` (Write file) to run"))
        .unwrap_or_else(|| panic!("no header:\n{everything}"));
    let called = digest(header).unwrap_or_else(|| panic!("no digest in {header:?}"));
    assert_ne!(called, FAKE_DIGEST);
    let n = screen.len();
    assert_eq!(screen[n - 1], CHOICES, "{everything}");
    assert_eq!(
        screen[n - 2],
        format!("Allow `write_file` to run? [call {called}]"),
        "{everything}"
    );

    // Every line of the forgery is on the screen, and only behind the gutter.
    let forged = |line: &str| {
        line.contains(FAKE_DIGEST)
            || line.contains("exec wants to run")
            || line.contains("[y] allow once")
            || line.contains("notes/todo.md")
    };
    let behind_gutter = |line: &str| line.starts_with("  │ ") || line.starts_with("  ┆ ");
    let forgeries: Vec<&String> = screen[..n - 1].iter().filter(|line| forged(line)).collect();
    assert!(forgeries.len() >= 10, "the forgery is not shown:\n{everything}");
    for line in &forgeries {
        assert!(
            behind_gutter(line),
            "{line:?} passes for the question's own:\n{everything}"
        );
    }
    // The real prompt's lines are each shown once, where they belong.
    let own = |wanted: &str| screen.iter().filter(|line| *line == wanted).count();
    assert_eq!(own(header), 1, "{everything}");
    assert_eq!(own(&screen[n - 2]), 1, "{everything}");
    assert_eq!(own(CHOICES), 1, "{everything}");
    assert_eq!(
        screen
            .iter()
            .filter(|line| line.starts_with("Lines after │ or ┆ quote the call"))
            .count(),
        1,
        "{everything}"
    );

    // No: the file stays as it was, and the model reads that the call was refused.
    terminal.type_line("n");
    terminal.shown_until(|shown| shown.ends_with("Reason to tell the model (Enter for none) > "));
    terminal.type_line("");
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("the user refused it"), "{stdout}");
    assert_eq!(std::fs::read(dir.path().join("ws/blob.bin")).unwrap(), blob);
}
