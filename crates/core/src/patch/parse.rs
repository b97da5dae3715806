//! The parser: the envelope, then one file section after another, each update's hunks.
//!
//! One pass over the lines, linear in the text. Errors name the line of the text as the
//! model wrote it (the whitespace and heredoc line taken off the ends are counted).

use super::{FileChange, Hunk, HunkLine, ParseError, Patch};

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// Parses a patch in Codex's format; see the [module docs](super) for what is accepted.
///
/// ```
/// use agent_tools_core::patch::{self, FileChange};
///
/// let patch = patch::parse("*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n")?;
/// assert_eq!(patch.changes, vec![FileChange::Delete { path: "old.txt".into() }]);
/// assert_eq!(patch.paths().collect::<Vec<_>>(), ["old.txt"]);
///
/// let error = patch::parse("*** Begin Patch\n*** Change File: a\n*** End Patch").unwrap_err();
/// assert_eq!(error.line(), 2);
/// # Ok::<(), patch::ParseError>(())
/// ```
pub fn parse(text: &str) -> Result<Patch, ParseError> {
    let trimmed = text.trim();
    // Lines taken off the start by the trim, so that errors count from the text's start.
    let skipped = text[..text.len() - text.trim_start().len()]
        .bytes()
        .filter(|byte| *byte == b'\n')
        .count();
    let lines: Vec<&str> = trimmed.lines().collect();
    let (body, first) = enveloped(&lines, skipped + 1)?;
    let mut parser = Parser {
        lines: body,
        at: 0,
        first,
    };
    let mut changes = Vec::new();
    while let Some(line) = parser.peek() {
        if line.trim().is_empty() {
            parser.at += 1;
            continue;
        }
        changes.push(parser.file_change()?);
    }
    Ok(Patch { changes })
}

/// The lines between `*** Begin Patch` and `*** End Patch`, and the line number of the
/// first of them; a heredoc around the envelope is taken off.
fn enveloped<'a>(lines: &'a [&'a str], first: usize) -> Result<(&'a [&'a str], usize), ParseError> {
    let strict = envelope(lines, first);
    if strict.is_ok() {
        return strict;
    }
    match lines {
        [opening, inner @ .., closing]
            if is_heredoc_opening(opening.trim()) && closing.trim() == "EOF" && inner.len() >= 2 =>
        {
            envelope(inner, first + 1)
        }
        _ => strict,
    }
}

fn is_heredoc_opening(line: &str) -> bool {
    matches!(line, "<<EOF" | "<<'EOF'" | "<<\"EOF\"")
}

fn envelope<'a>(lines: &'a [&'a str], first: usize) -> Result<(&'a [&'a str], usize), ParseError> {
    let Some(opening) = lines.first() else {
        return Err(ParseError::new(
            first,
            format!("the patch is empty; expected `{BEGIN}`"),
        ));
    };
    if opening.trim() != BEGIN {
        return Err(ParseError::new(
            first,
            format!(
                "expected `{BEGIN}` as the first line, found `{}`",
                shorten(opening)
            ),
        ));
    }
    let last = first + lines.len() - 1;
    match lines {
        [_, body @ .., closing] if closing.trim() == END => Ok((body, first + 1)),
        _ => Err(ParseError::new(
            last,
            format!(
                "expected `{END}` as the last line, found `{}`",
                shorten(lines[lines.len() - 1])
            ),
        )),
    }
}

struct Parser<'a> {
    lines: &'a [&'a str],
    at: usize,
    /// The line number of `lines[0]`.
    first: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.at).copied()
    }

    /// The 1-based line number of the current line.
    fn line_number(&self) -> usize {
        self.first + self.at
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.line_number(), message)
    }

    /// One file section, starting at its header line.
    fn file_change(&mut self) -> Result<FileChange, ParseError> {
        let header = self.peek().unwrap_or_default().trim();
        if let Some(path) = header.strip_prefix(ADD) {
            let path = self.path(path, ADD)?;
            self.at += 1;
            let mut contents = String::new();
            while let Some(line) = self.peek().and_then(|line| line.strip_prefix('+')) {
                contents.push_str(line);
                contents.push('\n');
                self.at += 1;
            }
            return Ok(FileChange::Add { path, contents });
        }
        if let Some(path) = header.strip_prefix(DELETE) {
            let path = self.path(path, DELETE)?;
            self.at += 1;
            return Ok(FileChange::Delete { path });
        }
        if let Some(path) = header.strip_prefix(UPDATE) {
            let path = self.path(path, UPDATE)?;
            let header_line = self.line_number();
            self.at += 1;
            let move_to = match self.peek().and_then(|line| line.trim().strip_prefix(MOVE)) {
                Some(to) => {
                    let to = self.path(to, MOVE)?;
                    self.at += 1;
                    Some(to)
                }
                None => None,
            };
            let hunks = self.hunks()?;
            if hunks.is_empty() && move_to.is_none() {
                return Err(ParseError::new(
                    header_line,
                    format!(
                        "`{UPDATE} {path}` has no hunks; expected `@@` and lines starting with ' ', '-' or '+' \
                         (or `{MOVE} NEW_PATH` to rename it)"
                    ),
                ));
            }
            return Ok(FileChange::Update { path, move_to, hunks });
        }
        Err(self.error(format!(
            "expected a file header (`{ADD} PATH`, `{DELETE} PATH` or `{UPDATE} PATH`), found `{}`",
            shorten(header)
        )))
    }

    /// The path after a header's marker, which must not be empty.
    fn path(&self, after_marker: &str, marker: &str) -> Result<String, ParseError> {
        let path = after_marker.trim();
        if path.is_empty() {
            return Err(self.error(format!("`{marker}` names no path; expected `{marker} PATH`")));
        }
        Ok(path.to_owned())
    }

    /// An update's hunks, up to the next line starting with `***` or the next file header
    /// (indented or not). Blank lines between hunks are skipped.
    fn hunks(&mut self) -> Result<Vec<Hunk>, ParseError> {
        let mut hunks = Vec::new();
        while let Some(line) = self.peek() {
            if line.starts_with("***") || is_file_marker(line.trim()) {
                break;
            }
            if line.trim().is_empty() {
                self.at += 1;
                continue;
            }
            hunks.push(self.hunk(hunks.is_empty())?);
        }
        Ok(hunks)
    }

    /// One hunk: its `@@` lines (optional for the first hunk), then its lines, up to a
    /// line that is none of ` `, `-`, `+`, empty, or after `*** End of File`.
    fn hunk(&mut self, first: bool) -> Result<Hunk, ParseError> {
        let start = self.line_number();
        let mut context = Vec::new();
        let mut marked = false;
        while let Some(header) = self.peek().and_then(|line| line.strip_prefix("@@")) {
            marked = true;
            if let Some(text) = context_text(header) {
                context.push(text.to_owned());
            }
            self.at += 1;
        }
        if !marked && !first {
            return Err(self.error(format!(
                "expected `@@` to start the next hunk, found `{}`",
                shorten(self.peek().unwrap_or_default())
            )));
        }
        let mut hunk = Hunk {
            context,
            lines: Vec::new(),
            end_of_file: false,
            line: start,
        };
        while let Some(line) = self.peek() {
            if line.trim_end() == END_OF_FILE {
                if hunk.lines.is_empty() {
                    return Err(self.error(format!("`{END_OF_FILE}` ends a hunk that has no lines")));
                }
                hunk.end_of_file = true;
                self.at += 1;
                break;
            }
            let parsed = match line.chars().next() {
                None => HunkLine::Context(String::new()),
                Some(' ') => HunkLine::Context(line[1..].to_owned()),
                Some('-') => HunkLine::Remove(line[1..].to_owned()),
                Some('+') => HunkLine::Add(line[1..].to_owned()),
                Some(_) if hunk.lines.is_empty() => {
                    return Err(self.error(format!(
                        "expected a hunk line starting with ' ' (context), '-' (removed) or '+' (added), \
                         found `{}`",
                        shorten(line)
                    )));
                }
                Some(_) => break,
            };
            hunk.lines.push(parsed);
            self.at += 1;
        }
        if hunk.lines.is_empty() {
            return Err(ParseError::new(
                start,
                "the hunk has no lines; expected lines starting with ' ', '-' or '+' after `@@`",
            ));
        }
        Ok(hunk)
    }
}

/// A header a hunk cannot start with, even indented: the next file, or the end.
fn is_file_marker(line: &str) -> bool {
    [ADD, DELETE, UPDATE]
        .iter()
        .any(|marker| line.starts_with(marker))
        || line == END
}

/// The context of an `@@` line (what follows `@@`), or `None` for a bare `@@`, one with
/// only whitespace after it, or a unified-diff range header (`@@ -1,3 +1,4 @@`).
fn context_text(after_marker: &str) -> Option<&str> {
    let text = after_marker.strip_prefix(' ')?;
    if text.trim().is_empty() || is_range_header(text) {
        return None;
    }
    Some(text)
}

/// `-12,4 +12,5 @@…` (counts optional), as `diff -u` writes after its `@@ `.
fn is_range_header(text: &str) -> bool {
    let range = |text: &str, sign: char| {
        text.strip_prefix(sign).is_some_and(|numbers| {
            !numbers.is_empty()
                && numbers.split(',').count() <= 2
                && numbers
                    .split(',')
                    .all(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    let mut words = text.split(' ');
    matches!(
        (words.next(), words.next(), words.next()),
        (Some(old), Some(new), Some(closing)) if range(old, '-') && range(new, '+') && closing.starts_with("@@")
    )
}

/// A line as quoted in a message: at most 80 characters.
fn shorten(line: &str) -> String {
    const MAX: usize = 80;
    match line.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_owned(),
    }
}
