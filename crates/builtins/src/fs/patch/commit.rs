//! Writing a worked-out patch all or nothing.
//!
//! Every new content is written first, each file atomically (a temporary file renamed
//! over the name, `Workspace::write`), then the deleted files are removed. If a step
//! fails, the steps before it are undone in reverse, from the old contents kept in
//! memory: a file written is given its old content back (or removed, if it was new), a
//! file removed is written again. The call then fails with the step's error.
//!
//! What remains possible: the process killed or the machine stopped between two steps
//! leaves the files done so far changed (each file itself is whole, old or new); an undo
//! that fails too (the disk full) leaves its file as the patch made it, and the error
//! names it; a file given back is a new file with the default permissions (the old
//! one's mode and other hard links are not restored); directories created for added
//! files stay.

use agent_tools_core::ToolError;

use super::plan::FileState;
use crate::{Workspace, WorkspaceError};

/// The two file operations a commit makes, so that a test can make one fail.
pub(super) trait Files {
    fn write(&self, path: &str, contents: &str) -> Result<(), WorkspaceError>;
    fn remove(&self, path: &str) -> Result<(), WorkspaceError>;
}

impl Files for Workspace {
    fn write(&self, path: &str, contents: &str) -> Result<(), WorkspaceError> {
        Workspace::write(self, path, contents).map(|_| ())
    }

    fn remove(&self, path: &str) -> Result<(), WorkspaceError> {
        self.remove_file(path).map(|_| ())
    }
}

/// Writes the changed files, then removes the deleted ones; on a failure, undoes what
/// was done.
pub(super) fn commit(files: &impl Files, states: &[FileState]) -> Result<(), ToolError> {
    let writes = states
        .iter()
        .filter(|file| file.changed() && file.current.is_some());
    let removals = states
        .iter()
        .filter(|file| file.changed() && file.current.is_none());
    let mut done: Vec<&FileState> = Vec::new();
    for file in writes.chain(removals) {
        let result = match &file.current {
            Some(contents) => files.write(&file.path, contents),
            None => files.remove(&file.path),
        };
        if let Err(error) = result {
            return Err(undo(files, &done, file, &error));
        }
        done.push(file);
    }
    Ok(())
}

/// Gives the files done back their old contents; the error for the model.
fn undo(files: &impl Files, done: &[&FileState], failed: &FileState, error: &WorkspaceError) -> ToolError {
    let doing = if failed.current.is_some() {
        "writing"
    } else {
        "deleting"
    };
    let mut left = Vec::new();
    for file in done.iter().rev() {
        let restored = match &file.original {
            Some(contents) => files.write(&file.path, contents),
            None => files.remove(&file.path),
        };
        if let Err(undo_error) = restored {
            left.push(format!("`{}` ({undo_error})", file.path));
        }
    }
    let outcome = if left.is_empty() {
        match done.len() {
            0 => "nothing was changed".to_owned(),
            count => format!("nothing was changed (the {count} files changed before were restored)"),
        }
    } else {
        format!(
            "restoring the files changed before failed for {}: they are left as the patch made them",
            left.join(", ")
        )
    };
    ToolError::new(format!("{doing} `{}` failed: {error}; {outcome}", failed.path))
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// The workspace, with the `fail_at`-th operation (0-based) failing.
    struct Failing {
        ws: Workspace,
        fail_at: usize,
        count: Cell<usize>,
    }

    impl Failing {
        fn step(&self, path: &str) -> Result<(), WorkspaceError> {
            let n = self.count.get();
            self.count.set(n + 1);
            if n == self.fail_at {
                return Err(WorkspaceError::ReadOnly {
                    path: path.to_owned(),
                });
            }
            Ok(())
        }
    }

    impl Files for Failing {
        fn write(&self, path: &str, contents: &str) -> Result<(), WorkspaceError> {
            self.step(path)?;
            self.ws.write(path, contents).map(|_| ())
        }

        fn remove(&self, path: &str) -> Result<(), WorkspaceError> {
            self.step(path)?;
            self.ws.remove_file(path).map(|_| ())
        }
    }

    fn state(path: &str, original: Option<&str>, current: Option<&str>) -> FileState {
        FileState {
            path: path.to_owned(),
            original: original.map(str::to_owned),
            current: current.map(str::to_owned),
            moved_from: None,
        }
    }

    #[test]
    fn a_failure_midway_restores_every_file_done_before() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        std::fs::write(root.join("a.txt"), "old a\n").unwrap();
        std::fs::write(root.join("gone.txt"), "old gone\n").unwrap();
        std::fs::write(root.join("c.txt"), "old c\n").unwrap();
        let states = [
            state("a.txt", Some("old a\n"), Some("new a\n")),
            state("dir/new.txt", None, Some("new\n")),
            state("c.txt", Some("old c\n"), Some("new c\n")),
            state("gone.txt", Some("old gone\n"), None),
        ];
        let snapshot = || {
            ["a.txt", "dir/new.txt", "c.txt", "gone.txt"]
                .map(|name| std::fs::read_to_string(root.join(name)).ok())
        };
        let before = snapshot();
        // Fail at each step in turn: the third write, then the removal.
        for fail_at in [2, 3] {
            let files = Failing {
                ws: Workspace::open(root).unwrap(),
                fail_at,
                count: Cell::new(0),
            };
            let error = commit(&files, &states).unwrap_err().to_string();
            assert_eq!(snapshot(), before, "fail at step {fail_at}: {error}");
            assert!(
                error.ends_with(&format!(
                    "nothing was changed (the {fail_at} files changed before were restored)"
                )),
                "{error}"
            );
        }
        let files = Failing {
            ws: Workspace::open(root).unwrap(),
            fail_at: usize::MAX,
            count: Cell::new(0),
        };
        commit(&files, &states).unwrap();
        assert_eq!(
            snapshot(),
            [Some("new a\n"), Some("new\n"), Some("new c\n"), None].map(|text| text.map(str::to_owned))
        );
    }
}
