//! An update's hunks applied to a file's text, in memory.
//!
//! Each hunk is located after the one before (`seek.rs`): first its `@@` context lines,
//! each after the last, then its old lines (context and removed) after those. A hunk
//! marked `*** End of File` must end the file. When the old lines are not found and end
//! with an empty context line, they are looked for once more without it (that line often
//! stands for the file's final newline), as Codex does. A hunk with no old lines (only
//! `+` lines) goes right after its last `@@` context line, or at the end of the file when
//! it has none (Codex puts it at the end either way; after the context is what the model
//! asked for).
//!
//! The result keeps the file's own text wherever the hunk only quotes it: a context line
//! matched with tolerance (other whitespace, a dash typed as `-`) stays as the file has
//! it, with its line end; only `+` lines are written as the patch gives them. New lines
//! end as the file's do (CRLF if it has any CRLF). Like Codex, an updated file ends with
//! a line end, even if it had none.

use std::fmt::Write as _;

use agent_tools_core::patch::{Hunk, HunkLine};

use super::seek::{Budget, Exhausted, Haystack};
use crate::fs::edit::closest::closest_region;

/// Old lines of a hunk quoted in a message.
const QUOTED_LINES: usize = 5;

/// Why a hunk does not apply.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Miss {
    /// An `@@` context line is not in the file after `after` (a 1-based line, 0 for the
    /// start).
    Context { context: String, after: usize },
    /// The hunk's old lines are not in the file after `after`.
    Lines { after: usize, end_of_file: bool },
    /// Locating the hunk would take too long.
    TooCostly,
}

/// A hunk that does not apply: which one, and why.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct HunkError {
    /// 1-based, within the file's section.
    pub(super) number: usize,
    pub(super) miss: Miss,
}

impl HunkError {
    /// The message for the model, naming the file and quoting the hunk and the nearest
    /// text in the file.
    pub(super) fn describe(&self, shown: &str, hunk: &Hunk, text: &str) -> String {
        let which = format!("hunk {} of `{shown}` (patch line {})", self.number, hunk.line);
        let mut message = match &self.miss {
            Miss::Context { context, after } => format!(
                "{which} does not apply: its context line `@@ {context}` is not in the file{}",
                after_line(*after)
            ),
            Miss::Lines { after, end_of_file } => {
                let old: Vec<&str> = hunk.old_lines().collect();
                let mut quoted = old
                    .iter()
                    .take(QUOTED_LINES)
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n");
                if old.len() > QUOTED_LINES {
                    let _ = write!(quoted, "\n[… {} more lines]", old.len() - QUOTED_LINES);
                }
                let place = if *end_of_file {
                    " at the end of the file (`*** End of File`)".to_owned()
                } else {
                    after_line(*after)
                };
                format!("{which} does not apply: these lines are not in the file{place}:\n{quoted}")
            }
            Miss::TooCostly => {
                return format!(
                    "{which} could not be located: the file has too many lines like the hunk's to \
                     search; give more distinctive context lines or an `@@` line naming the function"
                );
            }
        };
        let quote = match &self.miss {
            Miss::Context { context, .. } => context.clone(),
            _ => hunk.old_lines().collect::<Vec<_>>().join("\n"),
        };
        match closest_region(text, &quote) {
            Some((start, end, similarity, region)) => {
                let lines = if start == end {
                    format!("line {start}")
                } else {
                    format!("lines {start}-{end}")
                };
                let _ = write!(
                    message,
                    "\nThe closest text in the file ({:.0}% similar) is at {lines}:\n{region}\n\
                     Copy the lines exactly as they are in the file (read it again if it may have changed).",
                    similarity * 100.0
                );
            }
            None => message.push_str("\nRead the file and copy the lines exactly."),
        }
        message
    }
}

fn after_line(after: usize) -> String {
    if after == 0 {
        String::new()
    } else {
        format!(" after line {after}")
    }
}

/// One line of a file: its text, and the line end after it (`""` for a last line
/// without one).
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    end: &'a str,
}

/// A file's text split into lines.
pub(super) struct Lines<'a> {
    lines: Vec<Line<'a>>,
    /// The line end new lines get.
    ending: &'static str,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let lines = text
            .split_inclusive('\n')
            .map(|line| {
                let body = line
                    .strip_suffix('\n')
                    .map_or(line, |body| body.strip_suffix('\r').unwrap_or(body));
                Line {
                    text: body,
                    end: &line[body.len()..],
                }
            })
            .collect();
        let ending = if text.contains("\r\n") { "\r\n" } else { "\n" };
        Self { lines, ending }
    }
}

/// Where one hunk applies: `old` lines from `start` are replaced by the hunk's `lines`.
struct Placed<'h> {
    start: usize,
    old: usize,
    lines: &'h [HunkLine],
}

/// The file's text with the hunks applied, or the first hunk that does not apply.
pub(super) fn apply_hunks(text: &str, hunks: &[Hunk], budget: &mut Budget) -> Result<String, HunkError> {
    let file = Lines::new(text);
    let texts: Vec<&str> = file.lines.iter().map(|line| line.text).collect();
    let haystack = Haystack::new(&texts);
    let mut placed = Vec::with_capacity(hunks.len());
    let mut cursor = 0;
    for (index, hunk) in hunks.iter().enumerate() {
        let fail = |miss| HunkError {
            number: index + 1,
            miss,
        };
        let at = place(&haystack, hunk, cursor, budget).map_err(fail)?;
        if at.old > 0 || !hunk.context.is_empty() {
            cursor = at.start + at.old;
        }
        placed.push(at);
    }
    // Pure additions at the end may come before hunks placed earlier in the file.
    placed.sort_by_key(|at| at.start);
    Ok(rebuild(&file, &placed))
}

/// Locates one hunk at or after `cursor`.
fn place<'h>(
    haystack: &Haystack<'_>,
    hunk: &'h Hunk,
    mut cursor: usize,
    budget: &mut Budget,
) -> Result<Placed<'h>, Miss> {
    let costly = |_: Exhausted| Miss::TooCostly;
    for context in &hunk.context {
        match haystack
            .find(&[context.as_str()], cursor, false, budget)
            .map_err(costly)?
        {
            Some((at, _)) => cursor = at + 1,
            None => {
                return Err(Miss::Context {
                    context: context.clone(),
                    after: cursor,
                });
            }
        }
    }
    let old: Vec<&str> = hunk.old_lines().collect();
    if old.is_empty() {
        let start = if hunk.context.is_empty() {
            haystack.len()
        } else {
            cursor
        };
        return Ok(Placed {
            start,
            old: 0,
            lines: &hunk.lines,
        });
    }
    if let Some((start, _)) = haystack
        .find(&old, cursor, hunk.end_of_file, budget)
        .map_err(costly)?
    {
        return Ok(Placed {
            start,
            old: old.len(),
            lines: &hunk.lines,
        });
    }
    // A final empty context line often stands for the file's last line end.
    if let Some((HunkLine::Context(last), lines)) = hunk.lines.split_last()
        && last.is_empty()
        && let Some((start, _)) = haystack
            .find(&old[..old.len() - 1], cursor, hunk.end_of_file, budget)
            .map_err(costly)?
    {
        return Ok(Placed {
            start,
            old: old.len() - 1,
            lines,
        });
    }
    Err(Miss::Lines {
        after: cursor,
        end_of_file: hunk.end_of_file,
    })
}

/// The new text: the file's lines between the hunks as they are, each hunk's context
/// lines as the file has them, its added lines in the file's line ends.
fn rebuild(file: &Lines<'_>, placed: &[Placed<'_>]) -> String {
    let mut out = String::new();
    let mut next = 0;
    let keep = |out: &mut String, line: &Line<'_>| {
        out.push_str(line.text);
        out.push_str(line.end);
    };
    for at in placed {
        for line in &file.lines[next..at.start] {
            keep(&mut out, line);
        }
        let mut old = at.start;
        for line in at.lines {
            match line {
                HunkLine::Context(_) => {
                    keep(&mut out, &file.lines[old]);
                    old += 1;
                }
                HunkLine::Remove(_) => old += 1,
                HunkLine::Add(text) => {
                    // A line added after a last line without a line end gives it one.
                    if !out.is_empty() && !out.ends_with('\n') {
                        out.push_str(file.ending);
                    }
                    out.push_str(text);
                    out.push_str(file.ending);
                }
            }
        }
        next = at.start + at.old;
    }
    for line in &file.lines[next..] {
        keep(&mut out, line);
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(file.ending);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::patch::seek::BUDGET;
    use agent_tools_core::patch;

    fn hunks(body: &str) -> Vec<Hunk> {
        let text = format!("*** Begin Patch\n*** Update File: f\n{body}*** End Patch");
        match patch::parse(&text).unwrap().changes.remove(0) {
            patch::FileChange::Update { hunks, .. } => hunks,
            other => panic!("{other:?}"),
        }
    }

    fn apply(text: &str, body: &str) -> Result<String, HunkError> {
        apply_hunks(text, &hunks(body), &mut Budget(BUDGET))
    }

    #[test]
    fn hunks_apply_in_order_and_keep_the_file_s_context_lines() {
        let text = "fn a() {\n    one();\n}\nfn b() {\n    one();\n}\n";
        let out = apply(text, "@@ fn b() {\n-    one();\n+    two();\n").unwrap();
        assert_eq!(out, "fn a() {\n    one();\n}\nfn b() {\n    two();\n}\n");
        // Two hunks with the same lines: each after the one before.
        let out = apply(text, "@@\n-    one();\n+    1();\n@@\n-    one();\n+    2();\n").unwrap();
        assert_eq!(out, "fn a() {\n    1();\n}\nfn b() {\n    2();\n}\n");
        // A context line matched loosely stays as the file has it.
        let out = apply("a \u{2014} b\t\nx\n", "@@\n a - b\n-x\n+y\n").unwrap();
        assert_eq!(out, "a \u{2014} b\t\ny\n");
    }

    #[test]
    fn line_ends_and_the_end_of_file() {
        assert_eq!(
            apply("a\r\nb\r\n", "@@\n a\n-b\n+c\n+d\n").unwrap(),
            "a\r\nc\r\nd\r\n"
        );
        // A last line without a line end gets one (as Codex does).
        assert_eq!(apply("a\nb", "@@\n-a\n+A\n").unwrap(), "A\nb\n");
        assert_eq!(apply("a\nb", "@@\n b\n+c\n").unwrap(), "a\nb\nc\n");
        // `*** End of File` anchors at the end; the same lines earlier are skipped.
        assert_eq!(
            apply("x\ny\nx\n", "@@\n-x\n+z\n*** End of File\n").unwrap(),
            "x\ny\nz\n"
        );
        // A final empty context line stands for the last line end.
        assert_eq!(apply("a\nb\n", "@@\n-b\n+c\n \n").unwrap(), "a\nc\n");
        // Pure additions: after the `@@` context, or at the end.
        assert_eq!(apply("a\nb\n", "@@ a\n+x\n").unwrap(), "a\nx\nb\n");
        assert_eq!(apply("a\nb\n", "@@\n+x\n").unwrap(), "a\nb\nx\n");
        assert_eq!(apply("", "@@\n+x\n").unwrap(), "x\n");
    }

    #[test]
    fn misses_say_which_hunk_and_what_is_nearest() {
        let text = "fn main() {\n    println!(\"hello\");\n}\n";
        let error = apply(text, "@@\n fn main() {\n-    println!(\"helo\");\n+    x();\n").unwrap_err();
        assert_eq!(
            error.miss,
            Miss::Lines {
                after: 0,
                end_of_file: false
            }
        );
        let hunk = &hunks("@@\n fn main() {\n-    println!(\"helo\");\n+    x();\n")[0];
        let message = error.describe("src/main.rs", hunk, text);
        assert!(
            message.starts_with(
                "hunk 1 of `src/main.rs` (patch line 3) does not apply: these lines are not in the file:\n\
                 fn main() {\n    println!(\"helo\");\nThe closest text in the file (9"
            ),
            "{message}"
        );
        assert!(
            message.contains("% similar) is at lines 1-2:\nfn main() {\n    println!(\"hello\");\n"),
            "{message}"
        );
        let error = apply(text, "@@ fn other()\n-x\n").unwrap_err();
        assert_eq!(error.number, 1);
        assert!(matches!(error.miss, Miss::Context { ref context, after: 0 } if context == "fn other()"));
    }
}
