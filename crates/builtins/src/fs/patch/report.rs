//! What `apply_patch` says it did: a line per file section, then the unified diffs.

use std::fmt::Write as _;
use std::time::Instant;

use super::plan::{Done, FileState, Plan};
use crate::fs::edit::{DIFF_TIME, DiffNames, MAX_DIFF_BYTES, diff_within};

/// `A path`, `M path`, `D path`, `R from -> to`, one per section of the patch.
pub(super) fn summary(plan: &Plan) -> String {
    let mut out = String::new();
    for done in &plan.done {
        let _ = match done {
            Done::Added {
                path,
                replaced: false,
            } => writeln!(out, "A {path}"),
            Done::Added { path, replaced: true } => writeln!(out, "A {path} (replaced the existing file)"),
            Done::Modified { path } => writeln!(out, "M {path}"),
            Done::Deleted { path } => writeln!(out, "D {path}"),
            Done::Moved {
                from,
                to,
                replaced: false,
            } => writeln!(out, "R {from} -> {to}"),
            Done::Moved {
                from,
                to,
                replaced: true,
            } => {
                writeln!(out, "R {from} -> {to} (replaced the existing file)")
            }
        };
    }
    out
}

/// The unified diff of every file changed, together at most [`MAX_DIFF_BYTES`] and
/// computed within one [`DIFF_TIME`]. A file a move created is diffed against the file
/// it was moved from, under both names.
pub(super) fn diffs(files: &[FileState]) -> String {
    let deadline = Instant::now() + DIFF_TIME;
    let mut out = String::new();
    let shown_with_move: Vec<usize> = files
        .iter()
        .filter_map(|file| file.moved_from)
        .filter(|from| files[*from].current.is_none())
        .collect();
    let mut left_out = Vec::new();
    for (index, file) in files.iter().enumerate() {
        if !file.changed() || shown_with_move.contains(&index) {
            continue;
        }
        let (names, before) = match file.moved_from.filter(|from| shown_with_move.contains(from)) {
            Some(from) => (
                DiffNames {
                    old: &files[from].path,
                    new: &file.path,
                },
                files[from].original.as_deref(),
            ),
            None => (
                DiffNames {
                    old: &file.path,
                    new: &file.path,
                },
                file.original.as_deref(),
            ),
        };
        let room = MAX_DIFF_BYTES.saturating_sub(out.len());
        if room == 0 {
            left_out.push(file.path.as_str());
            continue;
        }
        let before = before.unwrap_or_default();
        let after = file.current.as_deref().unwrap_or_default();
        if before == after {
            // No line differs: a plain rename, or an empty file created or deleted.
            let _ = match (names.old == names.new, file.current.is_some()) {
                (false, _) => writeln!(out, "(`{}` renamed to `{}` unchanged)", names.old, names.new),
                (true, true) => writeln!(out, "(`{}` created empty)", names.new),
                (true, false) => writeln!(out, "(`{}` deleted; it was empty)", names.old),
            };
            continue;
        }
        out.push_str(&diff_within(names, before, after, deadline, room));
    }
    if !left_out.is_empty() {
        let _ = writeln!(
            out,
            "[diffs left out, past {} KiB: {}]",
            MAX_DIFF_BYTES / 1024,
            left_out.join(", ")
        );
    }
    out
}
