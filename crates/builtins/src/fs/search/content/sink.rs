//! Recording one file's matching lines and their context as the searcher reports them.

use std::io;
use std::mem;

use grep_searcher::{Searcher, Sink, SinkContext, SinkContextKind, SinkMatch};

use super::super::collect::Hits;
use super::super::render::clip;

/// Whether a line matched or is context around a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::fs::search) enum LineKind {
    /// A matching line.
    Match,
    /// Context before a match.
    Before,
    /// Context after a match.
    After,
}

/// A line of a file's results, or a gap between groups of lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::fs::search) enum Entry {
    /// A line: what it is, its number, its text (without terminator, clipped).
    Line(LineKind, u64, String),
    /// Lines were skipped between two groups with context.
    Break,
}

/// The kept lines of one file, in order.
#[derive(Debug, Default)]
pub(in crate::fs::search) struct FileLines {
    /// The entries, possibly followed by context of a match that was not kept.
    pub(in crate::fs::search) entries: Vec<Entry>,
    /// How many of the entries are matches.
    pub(in crate::fs::search) matches: usize,
}

impl Hits for FileLines {
    fn kept(&self) -> usize {
        self.matches
    }
}

/// A [`Sink`] that keeps the first `limit` matches of a file and counts all of them; it
/// is reused for every file a thread searches.
#[derive(Debug)]
pub(super) struct LineSink {
    limit: usize,
    lines: FileLines,
    /// All matching lines, kept or not.
    found: u64,
    /// A match was not kept: keep nothing more.
    full: bool,
    /// The file is binary: drop its results.
    binary: bool,
}

impl LineSink {
    /// A sink keeping up to `limit` matches per file.
    pub(super) fn new(limit: usize) -> Self {
        Self {
            limit,
            lines: FileLines::default(),
            found: 0,
            full: false,
            binary: false,
        }
    }

    /// The results of the file just searched (none if it had no match or was binary),
    /// with the number of matching lines; resets the sink for the next file.
    pub(super) fn take(&mut self) -> Option<(FileLines, u64)> {
        let lines = mem::take(&mut self.lines);
        let found = mem::replace(&mut self.found, 0);
        let binary = mem::replace(&mut self.binary, false);
        self.full = false;
        (found > 0 && !binary).then_some((lines, found))
    }

    fn keep(&mut self, kind: LineKind, number: Option<u64>, bytes: &[u8]) {
        let text = clip(&String::from_utf8_lossy(without_terminator(bytes)));
        self.lines
            .entries
            .push(Entry::Line(kind, number.unwrap_or(0), text));
    }
}

impl Sink for LineSink {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.found += 1;
        self.full |= self.lines.matches >= self.limit;
        if !self.full {
            self.lines.matches += 1;
            self.keep(LineKind::Match, found.line_number(), found.bytes());
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, io::Error> {
        if !self.full {
            let kind = match context.kind() {
                SinkContextKind::Before => LineKind::Before,
                SinkContextKind::After | SinkContextKind::Other => LineKind::After,
            };
            self.keep(kind, context.line_number(), context.bytes());
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, io::Error> {
        if !self.full {
            self.lines.entries.push(Entry::Break);
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// A line without its `\n` or `\r\n`.
fn without_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}
