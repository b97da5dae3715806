//! The text a model reads: results in ripgrep's format, then one line of totals that
//! says what was left out and how to see it.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::Workspace;

use super::MAX_RESULTS;
use super::collect::{Collected, Totals};
use super::content::MAX_LINE_BYTES;
use super::content::{Entry, FileLines, LineKind};

/// Lines longer than this many characters are clipped.
const MAX_LINE_CHARS: usize = 500;

/// What was asked, for the messages.
pub(super) struct Request<'a> {
    /// The pattern as given.
    pub(super) pattern: &'a str,
    /// The searched directory or file, relative to the root.
    pub(super) scope: &'a Path,
    /// How many results to show.
    pub(super) limit: usize,
}

/// Content mode: `path:line: text` for matches, `path-line- text` for context, `--`
/// between groups that are not adjacent.
pub(super) fn content(request: &Request<'_>, found: Collected<FileLines>, with_context: bool) -> String {
    let (files, totals, long_lines) = found.into_parts();
    let skipped = Skipped { totals, long_lines };
    if totals.results == 0 {
        return nothing(
            format!("no matches for `{}` in {}", clip(request.pattern), scope(request)),
            &skipped,
        );
    }
    let mut out = String::new();
    let mut shown = 0;
    for (path, lines) in &files {
        let (entries, matches) = kept_entries(&lines.entries, request.limit - shown);
        if matches == 0 {
            break;
        }
        if with_context && shown > 0 {
            out.push_str("--\n");
        }
        shown += matches;
        let path = Workspace::display(path);
        entries
            .iter()
            .for_each(|entry| write_entry(&mut out, &path, entry));
    }
    let summary = if totals.results > shown as u64 {
        capped(shown, &count(totals.results, "match", "matches"), totals.files)
    } else {
        format!(
            "{} in {}",
            count(totals.results, "match", "matches"),
            count(totals.files, "file", "files")
        )
    };
    finish(out, summary, &skipped)
}

/// Files mode: one path per line.
pub(super) fn files(request: &Request<'_>, found: Collected<()>) -> String {
    let (files, totals, long_lines) = found.into_parts();
    let skipped = Skipped { totals, long_lines };
    if totals.results == 0 {
        return nothing(
            format!("no files match `{}` in {}", clip(request.pattern), scope(request)),
            &skipped,
        );
    }
    let mut out = String::new();
    for path in files.keys().take(request.limit) {
        out.push_str(&Workspace::display(path));
        out.push('\n');
    }
    let shown = files.len().min(request.limit);
    let summary = if totals.results > shown as u64 {
        capped(shown, &count(totals.results, "file", "files"), 0)
    } else {
        count(totals.results, "file", "files")
    };
    finish(out, summary, &skipped)
}

/// `line`, or its first [`MAX_LINE_CHARS`] characters and how many were cut.
pub(super) fn clip(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => line.to_owned(),
        Some((cut, _)) => format!("{}…[+{} chars]", &line[..cut], line[cut..].chars().count()),
    }
}

/// The first entries holding at most `limit` matches, with the context after the last
/// one, and how many matches they hold.
fn kept_entries(entries: &[Entry], limit: usize) -> (&[Entry], usize) {
    let (mut matches, mut end) = (0, 0);
    for (index, entry) in entries.iter().enumerate() {
        match entry {
            Entry::Line(LineKind::Match, ..) if matches == limit => break,
            Entry::Line(LineKind::Match, ..) => {
                matches += 1;
                end = index + 1;
            }
            Entry::Line(LineKind::After, ..) if end == index => end = index + 1,
            _ => {}
        }
    }
    (&entries[..end], matches)
}

fn write_entry(out: &mut String, path: &str, entry: &Entry) {
    // Writing to a String cannot fail.
    let _ = match entry {
        Entry::Line(LineKind::Match, number, text) => writeln!(out, "{path}:{number}: {text}"),
        Entry::Line(_, number, text) => writeln!(out, "{path}-{number}- {text}"),
        Entry::Break => writeln!(out, "--"),
    };
}

/// The summary of a capped listing: `showing 100 of 2,345 matches in 87 files; …`.
fn capped(shown: usize, total: &str, files: u64) -> String {
    let mut summary = format!("showing {} of {total}", thousands(shown as u64));
    if files > 0 {
        let _ = write!(summary, " in {}", count(files, "file", "files"));
    }
    if shown < MAX_RESULTS as usize {
        summary.push_str("; narrow the pattern, `path` or `glob`, or raise max_results");
    } else {
        summary.push_str("; narrow the pattern, `path` or `glob`");
    }
    summary
}

/// What was not searched, for the last lines of the output.
struct Skipped {
    totals: Totals,
    /// The first files skipped for a long line.
    long_lines: BTreeSet<PathBuf>,
}

impl Skipped {
    /// The lines about files that could not be read or were skipped, if any.
    fn lines(&self) -> String {
        let mut out = String::new();
        if self.totals.unreadable > 0 {
            let _ = write!(
                out,
                "\n{} could not be read",
                count(self.totals.unreadable, "file", "files")
            );
        }
        if self.totals.long_lines > 0 {
            let mut names: Vec<String> = self
                .long_lines
                .iter()
                .map(|path| format!("`{}`", Workspace::display(path)))
                .collect();
            let unnamed = self.totals.long_lines - names.len() as u64;
            if unnamed > 0 {
                names.push(format!("and {unnamed} more"));
            }
            let _ = write!(
                out,
                "\n{} not searched: a line is longer than {} MiB ({}); read_file shows such files in part",
                count(self.totals.long_lines, "file", "files"),
                MAX_LINE_BYTES / (1024 * 1024),
                names.join(", ")
            );
        }
        out
    }
}

/// The results, a blank line, the summary and what was not searched.
fn finish(mut out: String, summary: String, skipped: &Skipped) -> String {
    out.push('\n');
    out.push_str(&summary);
    out.push_str(&skipped.lines());
    out
}

/// Nothing found: a sentence, not an error.
fn nothing(message: String, skipped: &Skipped) -> String {
    message + &skipped.lines()
}

/// Where the search looked, for a sentence.
fn scope(request: &Request<'_>) -> String {
    match Workspace::display(request.scope).as_str() {
        "." => "the workspace".to_owned(),
        shown => format!("`{shown}`"),
    }
}

/// `1 file`, `2,345 files`.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// `2345` as `2,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}
