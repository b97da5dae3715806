//! Content mode: the lines of files that match a regular expression, with context.
//!
//! Each walk thread owns a clone of the matcher and of the searcher (with its buffers), so
//! nothing is shared or allocated per file but the file's own results. Files are opened
//! through the workspace capability and the opened handle is what gets searched.

mod sink;

use std::path::Path;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, MmapChoice, Searcher, SearcherBuilder};
use tool_core::{ToolError, Workspace};

pub(super) use self::sink::{Entry, FileLines, LineKind};

use self::sink::LineSink;
use super::collect::Collected;
use super::walk::{FileVisitor, Walk};

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
            Err(_) => {
                self.sink.take();
                self.found.unreadable();
            }
        }
    }

    fn unreadable(&mut self) {
        self.found.unreadable();
    }
}
