//! Keeping the first `max_results` results in path order, whatever order the walk's
//! threads find them in, without holding every result of a huge search in memory.
//!
//! Each thread keeps its files sorted and drops a file as soon as the files before it
//! already hold `limit` results; a file needed overall is never dropped, since the files
//! before it in its own thread are a subset of the files before it overall. Totals count
//! everything.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::AddAssign;
use std::path::PathBuf;

/// What one file contributed: its kept results.
pub(super) trait Hits {
    /// How many results it keeps.
    fn kept(&self) -> usize;
}

/// A path is one result in `files` mode.
impl Hits for () {
    fn kept(&self) -> usize {
        1
    }
}

/// How much was found, including what is not kept.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Totals {
    /// Results found.
    pub(super) results: u64,
    /// Files with at least one result.
    pub(super) files: u64,
    /// Files and directories that could not be read.
    pub(super) unreadable: u64,
    /// Files skipped for a line longer than the searcher holds.
    pub(super) long_lines: u64,
}

impl AddAssign for Totals {
    fn add_assign(&mut self, other: Self) {
        self.results += other.results;
        self.files += other.files;
        self.unreadable += other.unreadable;
        self.long_lines += other.long_lines;
    }
}

/// The first files in path order holding at least `limit` results, and the totals.
#[derive(Debug)]
pub(super) struct Collected<T> {
    limit: usize,
    files: BTreeMap<PathBuf, T>,
    kept: usize,
    totals: Totals,
    /// The first files (in path order) skipped for a long line, to name them.
    long_lines: BTreeSet<PathBuf>,
}

/// Files skipped for a long line that are named.
pub(super) const NAMED_LONG_LINES: usize = 5;

impl<T: Hits> Collected<T> {
    /// An empty collection keeping about `limit` results.
    pub(super) fn new(limit: usize) -> Self {
        Self {
            limit,
            files: BTreeMap::new(),
            kept: 0,
            totals: Totals::default(),
            long_lines: BTreeSet::new(),
        }
    }

    /// Adds a file with `found` results, of which `hits` keeps the first.
    pub(super) fn add(&mut self, path: PathBuf, hits: T, found: u64) {
        self.totals.results += found;
        self.totals.files += 1;
        self.kept += hits.kept();
        self.files.insert(path, hits);
        self.prune();
    }

    /// Counts a file or directory that could not be read.
    pub(super) fn unreadable(&mut self) {
        self.totals.unreadable += 1;
    }

    /// Counts a file skipped because a line is longer than the searcher holds, naming
    /// it if it is among the first few.
    pub(super) fn long_line(&mut self, path: PathBuf) {
        self.totals.long_lines += 1;
        self.long_lines.insert(path);
        if self.long_lines.len() > NAMED_LONG_LINES {
            self.long_lines.pop_last();
        }
    }

    /// Merges the collections of the walk's threads.
    pub(super) fn merge(limit: usize, parts: impl IntoIterator<Item = Self>) -> Self {
        let mut merged = Self::new(limit);
        for part in parts {
            merged.totals += part.totals;
            merged.kept += part.kept;
            merged.files.extend(part.files);
            merged.long_lines.extend(part.long_lines);
            while merged.long_lines.len() > NAMED_LONG_LINES {
                merged.long_lines.pop_last();
            }
            merged.prune();
        }
        merged
    }

    /// The kept files in path order, the totals, and the first files skipped for a
    /// long line.
    pub(super) fn into_parts(self) -> (BTreeMap<PathBuf, T>, Totals, BTreeSet<PathBuf>) {
        (self.files, self.totals, self.long_lines)
    }

    /// Drops the last files while the files before them hold `limit` results.
    fn prune(&mut self) {
        while let Some((_, last)) = self.files.last_key_value() {
            let before_last = self.kept - last.kept();
            if before_last < self.limit {
                break;
            }
            self.kept = before_last;
            self.files.pop_last();
        }
    }
}
