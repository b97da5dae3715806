//! The database's path, followed nowhere: no component of it may be a symbolic link, and
//! the file may have no other names.
//!
//! A link planted at any component — the data directory's subdirectories, the database
//! file, its `-wal`, `-shm` or `-journal` companions — would make the store create or
//! write a file wherever the link points. So the directories are created one at a time,
//! each checked not to be a link (and made private, `0700`), the files are checked not to
//! be links, the database not to have a second hard link, and SQLite opens the file with
//! `SQLITE_OPEN_NOFOLLOW`, which resolves the path itself and refuses it if any component
//! is a link; its companions it opens with `O_NOFOLLOW`.
//!
//! What this does not stop: SQLite opens by path, so a process that can write these
//! directories could still swap a component between the check and the open. Outside the
//! workspace (the default location) that is no process the agent controls, since the
//! sandboxed `exec` writes only the workspace. A `[memory] path` inside the workspace is
//! exposed to `exec` this way and every other (it can delete the file); it is the user's
//! choice, and documented as such.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use super::super::error::MemoryError;
use crate::state_dir::{self, CreateDirError};

/// The files SQLite keeps next to the database.
const COMPANIONS: [&str; 3] = ["-wal", "-shm", "-journal"];

/// Creates the missing directories of `database` (absolute) without following a link,
/// and checks that neither it nor its companions is a link and that it has one name.
pub(super) fn prepare(database: &Path) -> Result<(), MemoryError> {
    if let Some(parent) = database.parent() {
        create_directories(parent)?;
    }
    let companions = COMPANIONS.map(|suffix| {
        let mut name = database.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    });
    for file in std::iter::once(database.to_path_buf()).chain(companions) {
        match std::fs::symlink_metadata(&file) {
            Ok(metadata) if metadata.is_symlink() => return Err(MemoryError::Symlink { path: file }),
            Ok(metadata) if file == database && metadata.nlink() > 1 => {
                return Err(MemoryError::HardLinked {
                    path: file,
                    links: metadata.nlink(),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// The missing directories, made private, none of them a link
/// ([`state_dir::create_private_dirs`], shared with the other state of a workspace).
fn create_directories(directory: &Path) -> Result<(), MemoryError> {
    state_dir::create_private_dirs(directory).map_err(|error| match error {
        CreateDirError::Symlink { path } => MemoryError::Symlink { path },
        CreateDirError::Io { path, source } => MemoryError::CreateDir { path, source },
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{PermissionsExt as _, symlink};

    use super::*;

    #[test]
    fn missing_directories_are_made_private_and_links_refused() {
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().canonicalize().unwrap();
        let database = base.join("a/b/memory.db");
        prepare(&database).unwrap();
        let mode = std::fs::metadata(base.join("a/b")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);

        let elsewhere = base.join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        symlink(&elsewhere, base.join("link")).unwrap();
        let error = prepare(&base.join("link/new/memory.db")).unwrap_err();
        assert!(
            matches!(&error, MemoryError::Symlink { path } if path == &base.join("link")),
            "{error}"
        );
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);

        std::fs::write(base.join("file"), "").unwrap();
        let error = prepare(&base.join("file/memory.db")).unwrap_err();
        assert!(error.to_string().contains("it is not a directory"), "{error}");
    }

    #[test]
    fn the_database_and_its_companions_must_not_be_links_or_shared() {
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().canonicalize().unwrap();
        let database = base.join("memory.db");
        for companion in ["memory.db", "memory.db-wal", "memory.db-shm", "memory.db-journal"] {
            symlink(base.join("target"), base.join(companion)).unwrap();
            let error = prepare(&database).unwrap_err();
            assert!(
                matches!(error, MemoryError::Symlink { .. }),
                "{companion}: {error}"
            );
            std::fs::remove_file(base.join(companion)).unwrap();
        }
        std::fs::write(base.join("other"), "").unwrap();
        std::fs::hard_link(base.join("other"), &database).unwrap();
        let error = prepare(&database).unwrap_err();
        assert!(
            matches!(error, MemoryError::HardLinked { links: 2, .. }),
            "{error}"
        );
    }
}
