//! The parallel walk that proposes the files to search.
//!
//! It lists paths with `ignore` (ripgrep's walker: one thread per core, `.gitignore` and
//! hidden files honored) and never follows symbolic links, so a link cycle ends and a link
//! pointing out is not descended. The paths it yields are only proposals: the visitors
//! open them through the workspace capability, which is what keeps reads inside.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use super::glob::PathGlob;

/// Receives the regular files of a walk, on one of its threads.
pub(super) trait FileVisitor: Send {
    /// A regular file (not a link), as a path relative to the workspace root.
    fn visit(&mut self, relative: &Path);
    /// A directory or file the walk could not read.
    fn unreadable(&mut self);
}

/// What to walk and which files to propose.
pub(super) struct Walk<'a> {
    /// The workspace root; proposed paths are relative to it.
    root: &'a Path,
    /// The absolute path to walk.
    start: PathBuf,
    /// Only files matching this are proposed.
    filter: Option<&'a PathGlob>,
    include_hidden: bool,
    respect_gitignore: bool,
}

impl<'a> Walk<'a> {
    /// A walk of `start` (relative to `root`), hiding hidden and ignored files.
    pub(super) fn new(root: &'a Path, start: &Path, filter: Option<&'a PathGlob>) -> Self {
        Self {
            root,
            start: root.join(start),
            filter,
            include_hidden: false,
            respect_gitignore: true,
        }
    }

    /// Whether hidden files and directories are walked too.
    pub(super) fn include_hidden(mut self, yes: bool) -> Self {
        self.include_hidden = yes;
        self
    }

    /// Whether `.gitignore`, `.ignore` and git's exclude files are honored.
    pub(super) fn respect_gitignore(mut self, yes: bool) -> Self {
        self.respect_gitignore = yes;
        self
    }

    /// Walks in parallel, giving each thread a visitor from `make`; returns the visitors.
    pub(super) fn run<V: FileVisitor>(&self, make: impl FnMut() -> V) -> Vec<V> {
        let done = Mutex::new(Vec::new());
        let mut builder = Builder {
            make,
            walk: self,
            done: &done,
        };
        self.builder().build_parallel().visit(&mut builder);
        done.into_inner().unwrap_or_else(PoisonError::into_inner)
    }

    fn builder(&self) -> WalkBuilder {
        let ignore = self.respect_gitignore;
        let mut builder = WalkBuilder::new(&self.start);
        // Ignore files are read from the workspace only: not from directories above the
        // root (`parents`), not the user's global git configuration.
        builder
            .hidden(!self.include_hidden)
            .ignore(ignore)
            .git_ignore(ignore)
            .git_global(false)
            .git_exclude(ignore)
            .parents(false)
            .require_git(false)
            .follow_links(false)
            .filter_entry(|entry| entry.file_name() != ".git");
        if ignore {
            for file in self.ancestor_ignore_files() {
                builder.add_ignore(file);
            }
        }
        builder
    }

    /// The `.gitignore` and `.ignore` files of the directories between the root and the
    /// start of the walk (the walk itself reads those below), which `parents(false)`
    /// would otherwise miss.
    fn ancestor_ignore_files(&self) -> Vec<PathBuf> {
        let Ok(below_root) = self.start.strip_prefix(self.root) else {
            return Vec::new();
        };
        let mut dir = self.root.to_path_buf();
        let mut files = Vec::new();
        for component in std::iter::once(None).chain(below_root.components().map(Some)) {
            if let Some(component) = component {
                dir.push(component);
            }
            if dir == self.start {
                break;
            }
            files.extend(
                [".gitignore", ".ignore"]
                    .map(|name| dir.join(name))
                    .into_iter()
                    .filter(|f| f.is_file()),
            );
        }
        files
    }

    /// Hands one walk entry to a visitor if it is a regular file that passes the filter.
    fn propose(&self, entry: Result<DirEntry, ignore::Error>, visitor: &mut impl FileVisitor) {
        let entry = match entry {
            Ok(entry) => entry,
            // Errors in ignore files (a bad glob) are not unreadable files.
            Err(error) if error.io_error().is_none() => return,
            Err(_) => return visitor.unreadable(),
        };
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            return;
        }
        match entry.path().strip_prefix(self.root) {
            Ok(relative) if self.filter.is_none_or(|filter| filter.is_match(relative)) => {
                visitor.visit(relative)
            }
            Ok(_) => {}
            Err(_) => visitor.unreadable(),
        }
    }
}

/// Makes one [`Worker`] per walk thread.
struct Builder<'s, F, V> {
    make: F,
    walk: &'s Walk<'s>,
    done: &'s Mutex<Vec<V>>,
}

impl<'s, F: FnMut() -> V, V: FileVisitor + 's> ParallelVisitorBuilder<'s> for Builder<'s, F, V> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Worker {
            visitor: Some((self.make)()),
            walk: self.walk,
            done: self.done,
        })
    }
}

/// A walk thread's visitor; hands it back when the thread is done.
struct Worker<'s, V> {
    /// Always `Some` until dropped.
    visitor: Option<V>,
    walk: &'s Walk<'s>,
    done: &'s Mutex<Vec<V>>,
}

impl<V: FileVisitor> ParallelVisitor for Worker<'_, V> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if let Some(visitor) = &mut self.visitor {
            self.walk.propose(entry, visitor);
        }
        WalkState::Continue
    }
}

impl<V> Drop for Worker<'_, V> {
    fn drop(&mut self) {
        if let Some(visitor) = self.visitor.take() {
            self.done
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(visitor);
        }
    }
}
