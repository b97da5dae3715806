//! Landlock rules that grant a tree except what is hidden in it.
//!
//! Landlock only grants: a rule gives rights on a directory and everything beneath it,
//! and nothing can take a right back lower down. So a tree with a hidden path inside is
//! granted around it. The directories on the way down to a hidden path may be listed (a
//! listing right on a directory reaches everything beneath it, so the names inside a
//! hidden directory can be listed too, never read); every other entry along the way gets
//! the whole right on its own; the hidden path gets nothing. For `read = "all"` with the
//! default `deny_read`, that is a rule for each entry of `/`, of the home directory and of
//! `/etc` and a few below them: some hundred rules, built before each command.
//!
//! What this does not do:
//! - (the other way round) an entry made in one of the listable directories while the
//!   command runs (a new file in the home directory, or in the workspace when a hidden
//!   path lies in it) is not readable to it: the rules name what existed when it started;
//! - a hidden file reached through another mount (a bind mount of the home directory
//!   elsewhere) or another hard link: Landlock follows the path the command opens;
//! - a symbolic link among the entries gets no rule of its own; what it points to is
//!   judged where it lies.

use std::path::{Path, PathBuf};

use landlock::{ABI, Access, AccessFs, BitFlags};

/// A path and the rights on it and beneath it.
pub(crate) type Grant = (PathBuf, BitFlags<AccessFs>);

/// Adds to `grants` the rules that give `rights` on `tree`, minus every path of
/// `hidden`. `listing` is what the directories on the way to a hidden path get.
pub(crate) fn grant_around(
    tree: &Path,
    rights: BitFlags<AccessFs>,
    listing: BitFlags<AccessFs>,
    hidden: &[PathBuf],
    grants: &mut Vec<Grant>,
) {
    if hidden.iter().any(|path| tree.starts_with(path)) {
        return;
    }
    if !hidden.iter().any(|path| path.starts_with(tree)) {
        grants.push((tree.to_path_buf(), rights));
        return;
    }
    grants.push((tree.to_path_buf(), listing));
    let Ok(entries) = std::fs::read_dir(tree) else {
        // What cannot be listed is not granted: the command reads none of it.
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let is_link = entry.file_type().is_ok_and(|kind| kind.is_symlink());
        if !is_link {
            grant_around(&entry.path(), rights, listing, hidden, grants);
        }
    }
}

/// The rights to read a tree: open files, run programs, list directories.
pub(crate) fn read_rights(abi: ABI) -> BitFlags<AccessFs> {
    AccessFs::from_read(abi)
}

/// What a directory on the way to a hidden path gets within a readable tree.
pub(crate) fn read_listing() -> BitFlags<AccessFs> {
    AccessFs::ReadDir.into()
}

/// What a directory on the way to a hidden path gets within a writable tree: everything
/// but reading and running files.
pub(crate) fn write_listing(abi: ABI) -> BitFlags<AccessFs> {
    AccessFs::from_all(abi) & !(AccessFs::ReadFile | AccessFs::Execute)
}
