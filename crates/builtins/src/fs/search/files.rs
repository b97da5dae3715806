//! Files mode: the paths of files whose name (or path) matches a glob.
//!
//! Nothing is opened; but a path is only reported if the workspace capability still sees
//! a regular file there, beneath the root, so names from outside never reach the model.

use std::path::Path;

use crate::Workspace;

use super::collect::Collected;
use super::glob::PathGlob;
use super::walk::{FileVisitor, Walk};

/// Lists the files `walk` proposes that match `pattern`; keeps the first `limit` paths in
/// order and counts them all.
pub(super) fn search(ws: &Workspace, walk: &Walk<'_>, pattern: &PathGlob, limit: usize) -> Collected<()> {
    let visitors = walk.run(|| Visitor::new(ws, pattern, limit));
    Collected::merge(limit, visitors.into_iter().map(Visitor::into_found))
}

/// One walk thread's matches.
pub(super) struct Visitor<'a> {
    ws: &'a Workspace,
    pattern: &'a PathGlob,
    found: Collected<()>,
}

impl<'a> Visitor<'a> {
    /// A visitor keeping about `limit` paths.
    pub(super) fn new(ws: &'a Workspace, pattern: &'a PathGlob, limit: usize) -> Self {
        Self {
            ws,
            pattern,
            found: Collected::new(limit),
        }
    }

    /// What it found.
    pub(super) fn into_found(self) -> Collected<()> {
        self.found
    }
}

impl FileVisitor for Visitor<'_> {
    fn visit(&mut self, relative: &Path) {
        if !self.pattern.is_match(relative) {
            return;
        }
        match self.ws.dir().symlink_metadata(relative) {
            Ok(metadata) if metadata.is_file() => self.found.add(relative.to_path_buf(), (), 1),
            Ok(_) => {}
            Err(_) => self.found.unreadable(),
        }
    }

    fn unreadable(&mut self) {
        self.found.unreadable();
    }
}
