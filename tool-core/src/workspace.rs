//! [`Workspace`]: the directory the file tools may touch, held as a capability.
//!
//! Paths are resolved by `cap-std` relative to an open directory handle (`openat2` with
//! `RESOLVE_BENEATH` on Linux), never by comparing path strings, so `..`, absolute paths
//! and symlinks cannot lead outside — not even when the tree changes between a check and
//! a use.

use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use cap_std::ambient_authority;
use cap_std::fs::Dir;

/// A workspace directory and a capability handle to it. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: Arc<Path>,
    dir: Arc<Dir>,
}

/// Why a workspace path could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// The workspace root cannot be opened as a directory.
    #[error("cannot open workspace `{root}`: {source}")]
    Open {
        /// The root as given.
        root: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The path is empty, contains NUL, or points outside the workspace.
    #[error("`{path}` is outside the workspace; use a path relative to the workspace root")]
    Outside {
        /// The path as given.
        path: String,
    },
    /// The file operation failed.
    #[error("`{path}`: {source}")]
    Io {
        /// The path, relative to the root.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
}

impl Workspace {
    /// Opens `root` (made absolute and canonical) as the workspace.
    pub fn open(root: impl AsRef<Path>) -> Result<Self, WorkspaceError> {
        let given = root.as_ref();
        let open_error = |source| WorkspaceError::Open {
            root: given.to_path_buf(),
            source,
        };
        let canonical = given.canonicalize().map_err(open_error)?;
        let dir = Dir::open_ambient_dir(&canonical, ambient_authority()).map_err(open_error)?;
        Ok(Self {
            root: canonical.into(),
            dir: Arc::new(dir),
        })
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The capability handle; every file operation of the tools goes through it.
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// The path relative to the root, for a path a model gave: relative paths are taken
    /// as they are, absolute paths must lie under the root. `~` is not expanded. The
    /// result still has to be opened through [`dir`](Self::dir), which enforces
    /// containment.
    pub fn relative_path(&self, path: &str) -> Result<PathBuf, WorkspaceError> {
        let outside = || WorkspaceError::Outside {
            path: path.to_owned(),
        };
        if path.is_empty() || path.contains('\0') {
            return Err(outside());
        }
        let given = Path::new(path);
        let relative = if given.is_absolute() {
            given.strip_prefix(&self.root).map_err(|_| outside())?
        } else {
            given
        };
        if relative
            .components()
            .any(|part| matches!(part, Component::ParentDir))
        {
            return Err(outside());
        }
        if relative.as_os_str().is_empty() {
            return Ok(PathBuf::from("."));
        }
        Ok(relative.to_path_buf())
    }

    /// Reads a UTF-8 file inside the workspace.
    pub fn read_to_string(&self, path: &str) -> Result<String, WorkspaceError> {
        let relative = self.relative_path(path)?;
        self.dir
            .read_to_string(&relative)
            .map_err(|source| self.io_error(&relative, source))
    }

    /// Writes a file inside the workspace (replacing it).
    pub fn write(&self, path: &str, contents: impl AsRef<[u8]>) -> Result<(), WorkspaceError> {
        let relative = self.relative_path(path)?;
        self.dir
            .write(&relative, contents)
            .map_err(|source| self.io_error(&relative, source))
    }

    /// An I/O error on a relative path; escapes that cap-std refused read as "outside".
    fn io_error(&self, relative: &Path, source: io::Error) -> WorkspaceError {
        let path = relative.display().to_string();
        // cap-std reports a resolution that would leave the directory (`..`, an absolute
        // symlink, a symlink pointing out) as `PermissionDenied` with this wording; it has
        // no dedicated error kind.
        if source.kind() == io::ErrorKind::PermissionDenied
            && source.to_string().contains("outside of the filesystem")
        {
            return WorkspaceError::Outside { path };
        }
        WorkspaceError::Io { path, source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_inside_are_readable_and_escapes_are_refused() {
        let temp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
        let ws = Workspace::open(temp.path()).unwrap();
        ws.write("notes.txt", "hello").unwrap();
        assert_eq!(ws.read_to_string("notes.txt").unwrap(), "hello");
        let absolute = ws.root().join("notes.txt");
        assert_eq!(ws.read_to_string(absolute.to_str().unwrap()).unwrap(), "hello");

        for escape in ["../x", "", "a\0b", "/etc/passwd"] {
            assert!(
                matches!(ws.read_to_string(escape), Err(WorkspaceError::Outside { .. })),
                "{escape:?} must be refused"
            );
        }
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), temp.path().join("link")).unwrap();
        let error = ws.read_to_string("link").unwrap_err();
        assert!(matches!(error, WorkspaceError::Outside { .. }), "{error}");
    }

    #[test]
    fn a_missing_root_is_an_open_error() {
        let error = Workspace::open("/definitely/not/here").unwrap_err();
        assert!(matches!(error, WorkspaceError::Open { .. }));
    }
}
