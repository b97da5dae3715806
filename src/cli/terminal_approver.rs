//! Asking the person at the terminal about the calls a policy asks about, for `call` and
//! `serve` run interactively.
//!
//! The question goes to the process's controlling terminal (`/dev/tty`), not to stdin and
//! stdout: those may be the MCP transport (`serve`) or a pipe the result goes to. It shows
//! the tool, its arguments, why the policy asks and what the call would do (the diff of a
//! file edit, [`Tool::preview`](crate::Tool::preview)); the answers are allow once, allow
//! for the session, deny with a reason for the model, or edit the arguments. One
//! question is on the terminal at a time; calls that ask together wait their turn.
//!
//! What it stops: text a model or a file controls cannot drive the terminal — control
//! characters and bidirectional overrides in arguments and previews are shown escaped, so
//! an escape sequence cannot clear the question, move the cursor or recolour it into
//! saying something else. What it does not do: a question already on the terminal is not
//! withdrawn when its call is cancelled; the answer is then discarded.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::sync::{Arc, Mutex, PoisonError};

use crate::{Approval, ApprovalRequest, Approver, BoxFuture};

/// The choices, as the prompt shows them.
const CHOICES: &str = "[y] allow once  [a] allow for this session  [n] deny  [e] edit the arguments > ";

/// Asks at the controlling terminal.
pub(super) struct TerminalApprover {
    terminal: Arc<Mutex<Terminal>>,
}

/// The terminal, opened once for reading and writing.
struct Terminal {
    input: BufReader<File>,
    output: File,
}

impl TerminalApprover {
    /// The approver, when someone is watching: stderr is a terminal and the process has a
    /// controlling terminal to ask at.
    pub(super) fn for_interactive_use() -> Option<Self> {
        if !io::stderr().is_terminal() {
            return None;
        }
        Self::open().ok()
    }

    fn open() -> io::Result<Self> {
        let output = OpenOptions::new().read(true).write(true).open("/dev/tty")?;
        let input = BufReader::new(output.try_clone()?);
        Ok(Self {
            terminal: Arc::new(Mutex::new(Terminal { input, output })),
        })
    }
}

impl Approver for TerminalApprover {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
        let terminal = self.terminal.clone();
        let question = request.question();
        Box::pin(async move {
            // Reading a terminal blocks; the lock keeps one question on it at a time.
            let asked = tokio::task::spawn_blocking(move || {
                let mut terminal = terminal.lock().unwrap_or_else(PoisonError::into_inner);
                let Terminal { input, output } = &mut *terminal;
                ask(input, output, &question)
            });
            asked
                .await
                .unwrap_or_else(|_| Approval::Deny(Some("the question at the terminal failed".to_owned())))
        })
    }
}

/// Puts `question` to the person at `input`/`output` until they give an answer.
fn ask(input: &mut impl BufRead, output: &mut impl Write, question: &str) -> Approval {
    let no_answer = || Approval::Deny(Some("no answer came from the terminal".to_owned()));
    // A terminal that cannot be written to cannot be asked.
    if writeln!(output, "\nagent-tools: {}", shown(question)).is_err() {
        return no_answer();
    }
    loop {
        let Some(answer) = prompt(input, output, CHOICES) else {
            return no_answer();
        };
        match answer.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => return Approval::AllowOnce,
            "a" | "always" => return Approval::AllowAlways,
            "n" | "no" => {
                let reason = prompt(input, output, "Reason to tell the model (Enter for none) > ");
                let reason = reason.map(|reason| reason.trim().to_owned());
                return Approval::Deny(reason.filter(|reason| !reason.is_empty()));
            }
            "e" | "edit" => {
                let Some(edited) = prompt(input, output, "The arguments as JSON, on one line > ") else {
                    return no_answer();
                };
                match serde_json::from_str(&edited) {
                    Ok(arguments) => return Approval::AllowEdited(arguments),
                    Err(error) => {
                        let _ = writeln!(output, "That is not JSON ({error}); choose again.");
                    }
                }
            }
            _ => {
                let _ = writeln!(output, "Answer y, a, n or e.");
            }
        }
    }
}

/// Shows `text` and reads a line; `None` at the end of input or on an error.
fn prompt(input: &mut impl BufRead, output: &mut impl Write, text: &str) -> Option<String> {
    write!(output, "{text}").ok()?;
    output.flush().ok()?;
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line),
    }
}

/// `text` with every character that could steer a terminal escaped: control characters
/// (but newlines and tabs) and the bidirectional overrides that reorder what is shown.
fn shown(text: &str) -> String {
    let mut safe = String::with_capacity(text.len());
    for c in text.chars() {
        let steers = (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if steers {
            // Writing to a String cannot fail.
            let _ = write!(safe, "\\u{{{:x}}}", u32::from(c));
        } else {
            safe.push(c);
        }
    }
    safe
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(typed: &str) -> (Approval, String) {
        let mut output = Vec::new();
        let approval = ask(&mut typed.as_bytes(), &mut output, "Allow `exec`?");
        (approval, String::from_utf8(output).unwrap())
    }

    #[test]
    fn each_answer_becomes_its_approval() {
        assert_eq!(answered("y\n").0, Approval::AllowOnce);
        assert_eq!(answered("Always\n").0, Approval::AllowAlways);
        assert_eq!(
            answered("n\nnot today\n").0,
            Approval::Deny(Some("not today".into()))
        );
        assert_eq!(answered("n\n\n").0, Approval::Deny(None));
        assert_eq!(
            answered("e\n{\"command\": \"ls\"}\n").0,
            Approval::AllowEdited(serde_json::json!({"command": "ls"}))
        );
    }

    #[test]
    fn unclear_answers_are_asked_again_and_silence_is_a_no() {
        let (approval, shown) = answered("maybe\ne\nnot json\ny\n");
        assert_eq!(approval, Approval::AllowOnce);
        assert!(shown.contains("Answer y, a, n or e."), "{shown}");
        assert!(shown.contains("That is not JSON"), "{shown}");
        assert!(matches!(answered("").0, Approval::Deny(Some(_))));
        assert!(matches!(answered("e\n").0, Approval::Deny(Some(_))));
    }

    #[test]
    fn text_cannot_steer_the_terminal() {
        let hostile = "a\u{1b}[2J\u{1b}]0;title\u{7}b\u{202e}c\u{9b}d\ne\tf";
        assert_eq!(
            shown(hostile),
            "a\\u{1b}[2J\\u{1b}]0;title\\u{7}b\\u{202e}c\\u{9b}d\ne\tf"
        );
    }
}
