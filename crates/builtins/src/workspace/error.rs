//! Why a workspace path could not be used, in words a model can act on.

use std::io;
use std::path::PathBuf;

/// Why a workspace operation failed. Paths are shown relative to the workspace root.
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
    /// The path is empty, contains NUL, or leads outside the workspace (`..`, an absolute
    /// path elsewhere, a symbolic link pointing out).
    #[error("`{path}` is outside the workspace; use a path relative to the workspace root")]
    Outside {
        /// The path as given.
        path: String,
    },
    /// Nothing exists at the path.
    #[error("`{path}` does not exist")]
    NotFound {
        /// The path.
        path: String,
    },
    /// The path is a directory where a file was expected.
    #[error("`{path}` is a directory; use list_dir to see its entries")]
    IsDirectory {
        /// The path.
        path: String,
    },
    /// The path is a FIFO, socket or device, which the file tools do not open.
    #[error("`{path}` is a {kind}, not a regular file")]
    NotAFile {
        /// The path.
        path: String,
        /// What it is: `FIFO`, `socket`, `device`.
        kind: &'static str,
    },
    /// The path is a symbolic link whose target does not exist; writing through it would
    /// create a file wherever it points.
    #[error("`{path}` is a symbolic link to a missing target; write to a real path instead")]
    BrokenSymlink {
        /// The path.
        path: String,
    },
    /// A symbolic link lies on the way to a path that was to be read or written
    /// following none: the path changed after the policy decided on it.
    #[error(
        "`{path}` has a symbolic link on the way that was not there when the policy decided \
         on the path; nothing was read or written. Call again with the path as it is now"
    )]
    LinkOnTheWay {
        /// The path.
        path: String,
    },
    /// A file already exists where a new one was to be created.
    #[error("`{path}` already exists; use mode \"overwrite\" to replace it or \"append\" to add to it")]
    AlreadyExists {
        /// The path.
        path: String,
    },
    /// The workspace is read-only.
    #[error("the workspace is read-only; `{path}` cannot be written")]
    ReadOnly {
        /// The path.
        path: String,
    },
    /// The path is in a protected part of the workspace.
    #[error("`{path}` is in a protected part of the workspace (`{protected}`) and cannot be written")]
    Protected {
        /// The path.
        path: String,
        /// The protected subpath it lies in.
        protected: String,
    },
    /// The path is in a git directory (or a hooks directory git's configuration names),
    /// which the write tools leave alone because git runs what is there outside any
    /// sandbox; see [`Workspace::protect_git`](super::Workspace::protect_git).
    #[error(
        "`{path}` is in `{protected}`, part of a git repository that the file tools do not write: \
         git runs hooks (`.git/hooks`, or the directory `core.hooksPath` names) outside any sandbox, \
         `.git/config` can name programs for git to run (`core.fsmonitor`, `core.sshCommand`), and a \
         `.git` file can point git at another directory; change a repository with git itself"
    )]
    GitProtected {
        /// The path.
        path: String,
        /// The git directory (or hooks directory) it lies in.
        protected: String,
    },
    /// An append to a file with more than one hard link: it would change the file under
    /// its other names too, which may lie outside the workspace.
    #[error(
        "`{path}` has {links} hard links, so appending would also change the file under its other \
         names, which may lie outside the workspace; write the whole content with mode \"overwrite\", \
         which replaces this name only"
    )]
    HardLinked {
        /// The path.
        path: String,
        /// How many names the file has.
        links: u64,
    },
    /// Another file operation failed.
    #[error("`{path}`: {source}")]
    Io {
        /// The path.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
}

impl WorkspaceError {
    /// An I/O error on `path` (as shown to the model), classified by its kind: missing
    /// files are [`NotFound`](Self::NotFound), and so on. Escapes are told apart by
    /// [`Workspace::io_error`](super::Workspace::io_error), which knows the workspace.
    pub(super) fn from_io(path: &str, source: io::Error) -> Self {
        let path = path.to_owned();
        match source.kind() {
            io::ErrorKind::NotFound => WorkspaceError::NotFound { path },
            io::ErrorKind::IsADirectory => WorkspaceError::IsDirectory { path },
            io::ErrorKind::AlreadyExists => WorkspaceError::AlreadyExists { path },
            _ => WorkspaceError::Io { path, source },
        }
    }
}

/// A workspace error is a tool failure the model can act on: its message says what was
/// wrong with the path.
impl From<WorkspaceError> for agent_tools_core::ToolError {
    fn from(error: WorkspaceError) -> Self {
        agent_tools_core::ToolError::new(error.to_string())
    }
}
