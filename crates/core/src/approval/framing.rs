//! Framing the text a call brings into its question, so that a model cannot write a
//! question of its own into the one a person is asked.
//!
//! A call's arguments and its preview (a diff, a file's new content, a diff header naming
//! a path the model chose) are the model's text, and so is a mounted tool's title. Shown
//! as they are, their newlines could draw a second question — a fake "Allow `exec` to
//! run?" and a fake choices line — above the real prompt, and the person would answer the
//! wrong one. [`ApprovalRequest::question`] therefore shows them framed:
//!
//! - every line of the arguments and of the preview is quoted behind a gutter (`  │ `, and
//!   `  ┆ ` on a line folded from the one above), which the question's own lines never
//!   start with, so no line of the call's text reads as the question's;
//! - control characters (but the newlines that end quoted lines), bidirectional
//!   overrides and the other invisible format characters (zero-width spaces and joiners,
//!   line and paragraph separators, variation selectors, tag characters, fillers) are
//!   shown escaped (`\u{1b}`), so nothing can clear, move, recolour or reorder what is
//!   shown, or hide text in it (the set is [`is_invisible`]'s, the one list of them in the
//!   crate); tabs become spaces;
//! - quoted lines are folded to the width asked for
//!   ([`ApprovalRequest::question_within`]; 80 columns by default), counting every
//!   character outside ASCII as two columns, so a long line cannot wrap on the terminal
//!   and start a line of its own without the gutter; each quoted block stops after
//!   [`MAX_QUOTED_LINES`] lines, with a line saying how much was left out;
//! - the title and the policy's reason, which share the question's own lines, are shown
//!   on one line, escaped, and the title cut to a few words' width;
//! - the question starts and ends with the tool's name and the call's digest
//!   ([`ApprovalRequest::digest`]): the real prompt is the last line, and a copy the
//!   model wrote into its text sits behind the gutter and cannot carry the digest of the
//!   call it is part of.
//!
//! What it does not stop: text behind the gutter still says whatever the model wants — a
//! person who does not look at the gutter can be misled by it, which is why the digest
//! repeats at the end. A terminal narrower than the width asked for wraps lines
//! regardless (the terminal approver asks for its terminal's width), and so does one
//! that shows a character outside ASCII wider than two columns. The digest is 32 bits
//! of SHA-256: enough to tell a prompt from a copy at a glance, not a proof — a model
//! able to run code could search about 2³² variants of its call for one whose text
//! carries its own digest. Combining marks are not escaped: a terminal draws them on the
//! character before, within its line.

use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use super::ApprovalRequest;
use crate::untrusted::is_invisible;

/// What starts every quoted line.
pub(super) const GUTTER: &str = "  │ ";
/// What starts a quoted line folded from the one above.
pub(super) const FOLDED: &str = "  ┆ ";
/// The width a question is folded to when the width it is shown at is not known.
pub(super) const DEFAULT_COLUMNS: usize = 80;
/// The most lines one quoted block (the arguments, the preview) shows.
pub(super) const MAX_QUOTED_LINES: usize = 200;
/// The narrowest and widest a question folds to, whatever width is asked for.
const COLUMNS: std::ops::RangeInclusive<usize> = 24..=240;
/// The most columns of a title the question shows.
const MAX_TITLE_COLUMNS: usize = 40;
/// How many hexadecimal digits of the digest are shown.
const DIGEST_DIGITS: usize = 8;

/// How many columns of a screen `columns` wide quoted text may fill behind the gutter.
fn quoted_width(columns: usize) -> usize {
    let columns = columns.clamp(*COLUMNS.start(), *COLUMNS.end());
    // One column spare: a line filling the last column leaves some terminals' cursor
    // waiting to wrap.
    columns - GUTTER.chars().count() - 1
}

/// `text` quoted as a question's arguments are, for a screen `columns` wide; `what`
/// names it in the note on what was left out.
pub(super) fn quoted(text: &str, columns: usize, what: &str) -> String {
    let mut out = String::new();
    quote(&mut out, text, quoted_width(columns), what);
    out
}

/// The question about `request`, folded to `columns`.
pub(super) fn question(request: &ApprovalRequest, columns: usize) -> String {
    let width = quoted_width(columns);
    let tool = &request.tool;
    let digest = digest(request);
    let title = match &request.title {
        Some(title) => format!(" ({})", one_line(title, Some(MAX_TITLE_COLUMNS))),
        None => String::new(),
    };
    let mut question = format!("Allow `{tool}`{title} to run with these arguments? [call {digest}]\n");
    let arguments =
        serde_json::to_string_pretty(&request.arguments).unwrap_or_else(|_| request.arguments.to_string());
    quote(&mut question, &arguments, width, "the arguments");
    let reason = one_line(&request.reason.to_string(), None);
    let _ = writeln!(question, "Asked because of {reason}.");
    if let Some(preview) = &request.preview {
        question.push_str("What it would do:\n");
        quote(&mut question, preview, width, "the preview");
    }
    question.push_str("Lines after │ or ┆ quote the call; they are not part of this question.\n");
    let _ = write!(question, "Allow `{tool}` to run? [call {digest}]");
    question
}

/// The call's digest: the first [`DIGEST_DIGITS`] hexadecimal digits of the SHA-256 of
/// the canonical JSON of `{"arguments", "preview", "title", "tool"}` (keys sorted by their
/// bytes at every level, no spaces).
pub(super) fn digest(request: &ApprovalRequest) -> String {
    let mut call = Vec::new();
    call.extend_from_slice(b"{\"arguments\":");
    canonical(&request.arguments, &mut call);
    call.extend_from_slice(b",\"preview\":");
    json(&request.preview, &mut call);
    call.extend_from_slice(b",\"title\":");
    json(&request.title, &mut call);
    call.extend_from_slice(b",\"tool\":");
    json(&request.tool, &mut call);
    call.push(b'}');
    let hash = Sha256::digest(&call);
    let mut shown = String::with_capacity(DIGEST_DIGITS);
    for byte in hash.iter().take(DIGEST_DIGITS / 2) {
        let _ = write!(shown, "{byte:02x}");
    }
    shown
}

/// Appends `value` to `out` as JSON, every object's keys sorted.
fn canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(object) => {
            let mut entries: Vec<_> = object.iter().collect();
            entries.sort_unstable_by_key(|(key, _)| *key);
            out.push(b'{');
            for (index, (key, value)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                json(key, out);
                out.push(b':');
                canonical(value, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                canonical(item, out);
            }
            out.push(b']');
        }
        scalar => json(scalar, out),
    }
}

/// Appends `value` to `out` as compact JSON.
fn json(value: &(impl serde::Serialize + ?Sized), out: &mut Vec<u8>) {
    // Strings, numbers and the like always serialize, and a `Vec` takes every byte.
    let _ = serde_json::to_writer(out, value);
}

/// Appends `text` to `out` behind the gutter, folded to `width` columns, at most
/// [`MAX_QUOTED_LINES`] lines; `what` names it in the note on what was left out.
fn quote(out: &mut String, text: &str, width: usize, what: &str) {
    let mut left = MAX_QUOTED_LINES;
    // Shows one quoted line, starting at byte `at` of `text`; false when no more fit.
    let mut show = |out: &mut String, gutter: &str, line: &str, at: usize| {
        if left == 0 {
            let rest = &text[at..];
            let lines = rest.lines().count();
            let _ = writeln!(
                out,
                "[not shown: {} more {} on {lines} {} of {what}]",
                rest.len(),
                if rest.len() == 1 { "byte" } else { "bytes" },
                if lines == 1 { "line" } else { "lines" },
            );
            return false;
        }
        left -= 1;
        out.push_str(gutter);
        out.push_str(line);
        out.push('\n');
        true
    };
    for (start, line) in lines(text) {
        let mut part = String::new();
        let (mut part_start, mut used, mut gutter) = (start, 0, GUTTER);
        for (at, c) in line.char_indices() {
            let mut shown = Shown::of(c, used, width);
            if used + shown.columns > width && used > 0 {
                if !show(out, gutter, &part, part_start) {
                    return;
                }
                part.clear();
                (part_start, used, gutter) = (start + at, 0, FOLDED);
                shown = Shown::of(c, used, width);
            }
            shown.push_to(&mut part);
            used += shown.columns;
        }
        if !show(out, gutter, &part, part_start) {
            return;
        }
    }
}

/// Each line of `text` with its byte offset: split at `\n`, the empty line after a
/// final `\n` left out (an empty text is one empty line).
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n').scan(0, |start, line| {
        let at = *start;
        *start += line.len() + 1;
        Some((at, line))
    })
}

/// How a character of quoted text is shown.
struct Shown {
    c: char,
    how: How,
    columns: usize,
}

enum How {
    AsItIs,
    Escaped,
    Spaces,
}

impl Shown {
    /// `c`, shown `used` columns into a quoted line `width` columns wide.
    fn of(c: char, used: usize, width: usize) -> Self {
        let (how, columns) = if c == '\t' {
            // To the next tab stop, as a terminal would, and no further than the line.
            let to_stop = 8 - used % 8;
            (How::Spaces, to_stop.min(width.saturating_sub(used)).max(1))
        } else if is_invisible(c) {
            (How::Escaped, escaped(c).len())
        } else {
            (How::AsItIs, columns(c))
        };
        Self { c, how, columns }
    }

    fn push_to(&self, line: &mut String) {
        match self.how {
            How::AsItIs => line.push(self.c),
            How::Escaped => line.push_str(&escaped(self.c)),
            How::Spaces => line.extend(std::iter::repeat_n(' ', self.columns)),
        }
    }
}

/// `text` on one line: escaped like a quoted line (newlines too), and cut to
/// `max_columns` with an ellipsis.
fn one_line(text: &str, max_columns: Option<usize>) -> String {
    let mut shown = String::with_capacity(text.len());
    let mut used = 0;
    for c in text.chars() {
        let (piece, columns) = if is_invisible(c) || c == '\n' || c == '\t' {
            let escaped = escaped(c);
            let columns = escaped.len();
            (escaped, columns)
        } else {
            (c.to_string(), columns(c))
        };
        if max_columns.is_some_and(|max| used + columns > max.saturating_sub(1)) {
            shown.push('…');
            break;
        }
        shown.push_str(&piece);
        used += columns;
    }
    shown
}

/// How many columns `c` may take: one for printable ASCII, and, to be safe, two for
/// anything else (East Asian wide characters and emoji take two).
fn columns(c: char) -> usize {
    if c.is_ascii() { 1 } else { 2 }
}

/// `c` as shown escaped: `\u{1b}`.
fn escaped(c: char) -> String {
    format!("\\u{{{:x}}}", u32::from(c))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{
        policy::{Policy, ToolVerdict},
        spec::ToolSpec,
    };

    /// A policy's reason to ask about `exec`.
    fn reason() -> crate::policy::Reason {
        let policy = Policy::builder().ask("exec").build().unwrap();
        let spec = ToolSpec::new("exec", "Run a command.", json!({"type": "object"}));
        match policy.verdict_for_tool(&spec) {
            ToolVerdict::Asks(reason) => reason,
            other => panic!("{other:?}"),
        }
    }

    fn request(arguments: Value, title: Option<&str>, preview: Option<&str>) -> ApprovalRequest {
        ApprovalRequest {
            call_id: "c1".into(),
            tool: "exec".into(),
            title: title.map(str::to_owned),
            arguments,
            reason: reason(),
            session_id: None,
            principal: None,
            preview: preview.map(str::to_owned),
        }
    }

    /// The lines of a question that are its own, not quoted text.
    fn own_lines(question: &str) -> Vec<&str> {
        question
            .lines()
            .filter(|line| !line.starts_with(GUTTER) && !line.starts_with(FOLDED))
            .collect()
    }

    #[test]
    fn the_calls_text_is_quoted_and_the_prompt_comes_last() {
        let request = request(
            json!({"command": "ls\nrm -rf /"}),
            Some("Run"),
            Some("--- a/x\n+++ b/x\n+evil"),
        );
        let digest = request.digest();
        let question = request.question();
        assert_eq!(
            question,
            format!(
                "Allow `exec` (Run) to run with these arguments? [call {digest}]\n\
                 \x20 │ {{\n\
                 \x20 │   \"command\": \"ls\\nrm -rf /\"\n\
                 \x20 │ }}\n\
                 Asked because of the ask rule `exec`.\n\
                 What it would do:\n\
                 \x20 │ --- a/x\n\
                 \x20 │ +++ b/x\n\
                 \x20 │ +evil\n\
                 Lines after │ or ┆ quote the call; they are not part of this question.\n\
                 Allow `exec` to run? [call {digest}]"
            )
        );
    }

    #[test]
    fn the_digest_is_sha256_of_the_canonical_call() {
        // Keys in any order give one digest; the value is
        // printf '%s' '{"arguments":{"a":1,"b":[{"c":2,"d":3}]},"preview":null,"title":null,"tool":"exec"}' | sha256sum
        let one = request(json!({"b": [{"d": 3, "c": 2}], "a": 1}), None, None);
        let other = request(json!({"a": 1, "b": [{"c": 2, "d": 3}]}), None, None);
        assert_eq!(one.digest(), other.digest());
        assert_eq!(one.digest(), "3908ac46");
        let previewed = request(json!({"a": 1, "b": [{"c": 2, "d": 3}]}), None, Some("x"));
        assert_ne!(previewed.digest(), one.digest(), "the preview counts");
        // The example in `ApprovalRequest::question`'s docs.
        let documented = request(json!({"command": "ls"}), None, None);
        assert_eq!(documented.digest(), "77117285");
        assert_eq!(
            documented.question(),
            "Allow `exec` to run with these arguments? [call 77117285]\n  │ {\n  │   \"command\": \"ls\"\n  │ }\n\
             Asked because of the ask rule `exec`.\n\
             Lines after │ or ┆ quote the call; they are not part of this question.\n\
             Allow `exec` to run? [call 77117285]"
        );
    }

    #[test]
    fn control_bidi_and_invisible_characters_are_escaped_and_tabs_expanded() {
        let hostile = "a\u{1b}[2J\u{1b}]0;title\u{7}b\u{202e}c\u{9b}d\u{200b}e\u{2028}f\u{feff}g\u{e0041}\th";
        let question = request(json!({}), None, Some(hostile)).question_within(120);
        assert!(
            question.contains(
                "  │ a\\u{1b}[2J\\u{1b}]0;title\\u{7}b\\u{202e}c\\u{9b}d\\u{200b}e\\u{2028}f\\u{feff}g\\u{e0041}      h\n"
            ),
            "{question}"
        );
        assert!(
            !question.chars().any(|c| is_invisible(c) && c != '\n'),
            "{question:?}"
        );
    }

    #[test]
    fn titles_and_reasons_stay_on_their_line() {
        let title = format!("T\nAllow `rm`?\r{}", "x".repeat(100));
        let question = request(json!({}), Some(&title), None).question();
        let first = question.lines().next().unwrap();
        let shown = format!("T\\u{{a}}Allow `rm`?\\u{{d}}{}…", "x".repeat(17));
        assert!(
            first.starts_with(&format!(
                "Allow `exec` ({shown}) to run with these arguments? [call "
            )),
            "{first}"
        );
        assert_eq!(own_lines(&question).len(), 4, "{question}");
    }

    #[test]
    fn long_lines_fold_within_the_width_and_long_previews_are_cut() {
        let long = format!("{}{}", "a".repeat(300), "中".repeat(100));
        let question = request(json!({"long": long}), None, None).question_within(60);
        for line in question
            .lines()
            .filter(|line| line.starts_with(GUTTER) || line.starts_with(FOLDED))
        {
            let columns: usize = line.chars().skip(4).map(columns).sum::<usize>() + 4;
            assert!(columns < 60, "{columns}: {line}");
        }
        assert!(question.lines().filter(|line| line.starts_with(FOLDED)).count() > 5);

        let preview = "line\n".repeat(1000);
        let question = request(json!({}), None, Some(&preview)).question();
        let quoted = question.lines().filter(|line| line.starts_with(GUTTER)).count();
        assert_eq!(quoted, 1 + MAX_QUOTED_LINES, "{question}");
        assert!(
            question.contains("\n  │ line\n[not shown: 4000 more bytes on 800 lines of the preview]\n"),
            "{question}"
        );
        let long = "x".repeat(100_000);
        let question = request(json!({}), None, Some(&long)).question();
        let shown = 75 * MAX_QUOTED_LINES;
        assert!(
            question.contains(&format!(
                "\n  ┆ {}\n[not shown: {} more bytes on 1 line of the preview]\n",
                "x".repeat(75),
                100_000 - shown
            )),
            "{question}"
        );
    }
}
