//! Content mode: the lines of files that match a regular expression, with context.
//!
//! Each walk thread owns a clone of the matcher and of the searcher (with its buffers), so
//! nothing is shared or allocated per file but the file's own results. Files are opened
//! through the workspace capability and the opened handle is what gets searched.
//!
//! The searcher holds whole lines (with their context) in its buffer, which grows to fit
//! the longest: a 4 GiB file without a newline would have taken 4 GiB. Its heap is
//! limited to [`MAX_LINE_BYTES`] (per walk thread; memory maps, which would avoid the
//! copy, stay off because a file truncated under a map kills the process with
//! `SIGBUS`), and a file with a longer line is skipped and named in the output.

mod sink;

use std::path::Path;

use crate::Workspace;
use agent_tools_core::ToolError;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, MmapChoice, Searcher, SearcherBuilder};

pub(super) use self::sink::{Entry, FileLines, LineKind};

use self::sink::LineSink;
use super::collect::Collected;
use super::walk::{FileVisitor, Walk};

/// The most a searcher holds of a file at once: a file with a longer line (or a match
/// with its context longer than this) is skipped and reported.
pub(super) const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// A compiled content search.
pub(super) struct Query {
    matcher: RegexMatcher,
    searcher: Searcher,
}

impl Query {
    /// Compiles `pattern`; `case_sensitive: None` is smart case.
    pub(super) fn new(
        pattern: &str,
        literal: Option<bool>,
        case_sensitive: Option<bool>,
        context: u8,
    ) -> Result<Self, ToolError> {
        let mut builder = RegexMatcherBuilder::new();
        match case_sensitive {
            None => builder.case_smart(true),
            Some(sensitive) => builder.case_insensitive(!sensitive),
        };
        let matcher = builder
            .fixed_strings(literal.unwrap_or(false))
            .line_terminator(Some(b'\n'))
            .build(pattern)
            .map_err(|error| {
                ToolError::invalid_arguments(format!(
                    "invalid regex: {error}\n(to search for plain text, set `literal: true`)"
                ))
            })?;
        let searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(b'\0'))
            .line_number(true)
            .before_context(context.into())
            .after_context(context.into())
            .memory_map(MmapChoice::never())
            .heap_limit(Some(MAX_LINE_BYTES))
            .build();
        Ok(Self { matcher, searcher })
    }
}

/// Searches the files `walk` proposes; keeps about the first `limit` matching lines in
/// path order and counts them all.
pub(super) fn search(ws: &Workspace, walk: &Walk<'_>, query: &Query, limit: usize) -> Collected<FileLines> {
    let visitors = walk.run(|| Visitor::new(ws, query, limit));
    Collected::merge(limit, visitors.into_iter().map(Visitor::into_found))
}

/// One walk thread's search state and results.
pub(super) struct Visitor<'a> {
    ws: &'a Workspace,
    matcher: RegexMatcher,
    searcher: Searcher,
    sink: LineSink,
    found: Collected<FileLines>,
}

impl<'a> Visitor<'a> {
    /// A visitor with its own copy of the query, keeping about `limit` matches.
    pub(super) fn new(ws: &'a Workspace, query: &Query, limit: usize) -> Self {
        Self {
            ws,
            matcher: query.matcher.clone(),
            searcher: query.searcher.clone(),
            sink: LineSink::new(limit),
            found: Collected::new(limit),
        }
    }

    /// What it found.
    pub(super) fn into_found(self) -> Collected<FileLines> {
        self.found
    }
}

/// Whether a search stopped because a line did not fit the heap limit. grep-searcher
/// has no error kind for it, only this message (`configured allocation limit (N)
/// exceeded`).
fn is_over_heap_limit(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::Other && error.to_string().contains("configured allocation limit")
}

impl FileVisitor for Visitor<'_> {
    fn visit(&mut self, relative: &Path) {
        // Not valid UTF-8: the workspace only opens paths a model could have written.
        let Some(opened) = relative.to_str().and_then(|path| self.ws.open_file(path).ok()) else {
            return self.found.unreadable();
        };
        let file = opened.file.into_std();
        match self.searcher.search_file(&self.matcher, &file, &mut self.sink) {
            Ok(()) => {
                if let Some((lines, found)) = self.sink.take() {
                    self.found.add(opened.path, lines, found);
                }
            }
            Err(error) => {
                self.sink.take();
                match is_over_heap_limit(&error) {
                    true => self.found.long_line(opened.path),
                    false => self.found.unreadable(),
                }
            }
        }
    }

    fn unreadable(&mut self) {
        self.found.unreadable();
    }
}
