//! `edit_file`: change part of a text file — exact text, or a range of lines — and show
//! the change as a unified diff.
//!
//! Models edit best by quoting the text to replace; when the quote is off, the error
//! points at the closest region and how similar it is, so the next attempt can copy it
//! exactly. Several edits apply all or nothing. The file keeps its line endings (CRLF
//! stays CRLF) and whether it ends with a newline.
//!
//! What a hostile edit could make expensive is bounded: the file read (16 MiB), the
//! result (16 MiB, checked before it is built), the diff's time (a deadline, after which
//! `similar` approximates and the output says so) and its text (64 KiB kept, the rest
//! only counted), and the near-miss hint (`closest.rs`).

mod apply;
pub(super) mod closest;

use std::fmt::Write as _;
use std::io::Read as _;
use std::time::{Duration, Instant};

use crate::Workspace;
use agent_tools_core::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;

use apply::{Change, Document};

/// Most diff text returned.
pub(super) const MAX_DIFF_BYTES: usize = 64 * 1024;
/// Largest file edited, and largest result written (each is held in memory, twice,
/// while the edits apply).
pub(super) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Longest the diff may take to compute before `similar` approximates it.
pub(super) const DIFF_TIME: Duration = Duration::from_secs(1);

/// One edit: `old_text` → `new_text`, or lines `start_line`..=`end_line` → `new_text`, or
/// `new_text` inserted before `start_line`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Edit {
    /// The exact text to replace, including whitespace and indentation; it must occur
    /// once in the file (or set `replace_all`). Give this or `start_line`.
    pub old_text: Option<String>,
    /// The new text (empty to delete).
    pub new_text: Option<String>,
    /// Replace every occurrence of `old_text`.
    pub replace_all: Option<bool>,
    /// First line to replace, 1-based (instead of `old_text`).
    #[schemars(range(min = 1))]
    pub start_line: Option<u32>,
    /// Last line to replace, inclusive. Default `start_line`.
    #[schemars(range(min = 1))]
    pub end_line: Option<u32>,
    /// Insert `new_text` before `start_line` instead of replacing lines (`start_line` one
    /// past the last line appends).
    pub insert: Option<bool>,
}

/// Arguments of `edit_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct EditFileArgs {
    /// Path of the file, relative to the workspace root.
    pub path: String,
    /// The edit, when making one.
    #[serde(flatten)]
    pub edit: Edit,
    /// Several edits instead, applied in order (each to the result of the ones before),
    /// all or nothing.
    pub edits: Option<Vec<Edit>>,
}

/// Applies the edits to a file in the workspace and returns a summary and diff.
pub(crate) fn edit_file(ws: &Workspace, args: EditFileArgs) -> Result<String, ToolError> {
    let path = args.path.clone();
    let planned = plan(ws, args)?;
    ws.write(&path, &planned.edited)?;
    Ok(format!(
        "Edited `{}`: {}.\n{}",
        planned.shown,
        planned.summary.join("; "),
        planned.diff()
    ))
}

/// What `edit_file` would do with `args`, changing nothing: the diff, or why it would fail.
pub(crate) fn preview_edit_file(ws: &Workspace, args: &EditFileArgs) -> String {
    match plan(ws, args.clone()) {
        Ok(planned) => planned.diff(),
        Err(error) => format!("The edit would fail: {error}"),
    }
}

/// An edit worked out against the file's current text, not yet written.
struct Planned {
    /// The file's path as shown.
    shown: String,
    original: String,
    edited: String,
    /// What each edit did, in order.
    summary: Vec<String>,
}

impl Planned {
    fn diff(&self) -> String {
        diff(&self.shown, &self.original, &self.edited)
    }
}

/// Reads the file and applies the edits in memory.
fn plan(ws: &Workspace, args: EditFileArgs) -> Result<Planned, ToolError> {
    let changes = changes(args.edit, args.edits)?;
    let (shown, original) = read_text(ws, &args.path, "edit_file")?;
    let mut document = Document::new(&original, MAX_FILE_BYTES as usize);
    let mut summary = Vec::new();
    for (index, change) in changes.iter().enumerate() {
        let done = document.apply(change).map_err(|problem| {
            let which = if changes.len() > 1 {
                format!(" (edit {} of {})", index + 1, changes.len())
            } else {
                String::new()
            };
            ToolError::new(format!(
                "nothing was changed{which}: {}",
                problem.describe(&shown)
            ))
        })?;
        summary.push(done);
    }
    let edited = document.into_text();
    if edited == original {
        return Err(ToolError::new(
            "the edit leaves the file as it is; nothing was changed",
        ));
    }
    Ok(Planned {
        shown,
        original,
        edited,
        summary,
    })
}

/// The file's text, and its path as shown; files too large or not UTF-8 are refused,
/// in messages naming `tool`.
pub(super) fn read_text(ws: &Workspace, path: &str, tool: &str) -> Result<(String, String), ToolError> {
    let opened = ws.open_file(path)?;
    let shown = Workspace::display(&opened.path);
    let size = opened.metadata.len();
    if size > MAX_FILE_BYTES {
        return Err(ToolError::new(format!(
            "`{shown}` has {size} bytes; {tool} edits files up to {MAX_FILE_BYTES} bytes (use write_file to replace it)"
        )));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    opened
        .file
        .take(MAX_FILE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|error| ToolError::new(format!("cannot read `{shown}`: {error}")))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::new(format!(
            "`{shown}` is not UTF-8 text; {tool} edits text files only"
        ))
    })?;
    Ok((shown, text))
}

/// The edits asked for, checked for a complete and unambiguous combination of fields.
fn changes(single: Edit, list: Option<Vec<Edit>>) -> Result<Vec<Change>, ToolError> {
    let single_given = single.old_text.is_some() || single.new_text.is_some() || single.start_line.is_some();
    match (single_given, list) {
        (true, Some(_)) => Err(ToolError::new(
            "give either one edit (old_text/start_line with new_text) or `edits`, not both",
        )),
        (false, None) => Err(ToolError::new(
            "say what to change: old_text and new_text, or start_line and new_text, or a list of `edits`",
        )),
        (false, Some(list)) if list.is_empty() => Err(ToolError::new("`edits` is empty")),
        (false, Some(list)) => {
            let count = list.len();
            list.into_iter()
                .enumerate()
                .map(|(index, edit)| {
                    Change::from_edit(edit).map_err(|problem| {
                        ToolError::new(format!("edit {} of {count}: {problem}", index + 1))
                    })
                })
                .collect()
        }
        (true, None) => Ok(vec![Change::from_edit(single).map_err(ToolError::new)?]),
    }
}

/// A unified diff with three lines of context, capped; CRs are left out so CRLF files
/// read like any other. A diff that ran out of time is correct but may show more lines
/// as changed than were, and says so.
pub(super) fn diff(shown: &str, before: &str, after: &str) -> String {
    let names = DiffNames {
        old: shown,
        new: shown,
    };
    diff_within(names, before, after, Instant::now() + DIFF_TIME, MAX_DIFF_BYTES)
}

/// The file names a diff's header shows: `a/OLD`, `b/NEW`.
#[derive(Debug, Clone, Copy)]
pub(super) struct DiffNames<'a> {
    pub(super) old: &'a str,
    pub(super) new: &'a str,
}

/// [`diff`] with its own names, deadline and cap on the text kept (for several files
/// sharing one budget).
pub(super) fn diff_within(
    names: DiffNames<'_>,
    before: &str,
    after: &str,
    deadline: Instant,
    max: usize,
) -> String {
    let before = before.replace("\r\n", "\n");
    let after = after.replace("\r\n", "\n");
    let diff = similar::TextDiff::configure()
        .deadline(deadline)
        .diff_lines(&before, &after);
    let ran_out = Instant::now() > deadline;
    let mut text = Capped::new(max);
    // Writing to a `Capped` cannot fail.
    let _ = write!(
        text,
        "{}",
        diff.unified_diff()
            .context_radius(3)
            .header(&format!("a/{}", names.old), &format!("b/{}", names.new))
    );
    let mut out = text.kept;
    if text.total > out.len() {
        let _ = writeln!(out, "\n[diff cut at {} of {} bytes]", out.len(), text.total);
    }
    if ran_out {
        let _ = writeln!(
            out,
            "[the diff took over {} s to compute and was approximated: it may show more lines as changed than were]",
            DIFF_TIME.as_secs()
        );
    }
    out
}

/// Text written in pieces, of which the first `max` bytes are kept and the rest only
/// counted, so a huge diff is never held whole.
struct Capped {
    kept: String,
    total: usize,
    max: usize,
    full: bool,
}

impl Capped {
    fn new(max: usize) -> Self {
        Self {
            kept: String::new(),
            total: 0,
            max,
            full: false,
        }
    }
}

impl std::fmt::Write for Capped {
    fn write_str(&mut self, piece: &str) -> std::fmt::Result {
        self.total += piece.len();
        if !self.full {
            let room = self.max - self.kept.len();
            let fitting = crate::text_format::prefix_within(piece, room);
            self.kept.push_str(fitting);
            self.full = fitting.len() < piece.len();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
