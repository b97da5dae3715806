//! [`Workspace`]: the directory the file tools may touch, held as a capability.
//!
//! Containment is not checked by comparing path strings — `str(path).startswith(root)`
//! lets `/ws_evil` pass for `/ws` (CVE-2025-53110), and resolving a path before opening it
//! races with a symlink swapped in between (CVE-2025-53109). Instead every operation goes
//! through a `cap_std::fs::Dir` handle for the root: on Linux each open is an `openat2`
//! with `RESOLVE_BENEATH`, which the kernel refuses if `..`, an absolute path or a
//! symbolic link would leave the root, at the moment of the open. The path checks here
//! come first only to give clear messages.
//!
//! Writes are atomic ([`WriteMode`]), the workspace can be read-only, and subpaths can be
//! protected from the write tools.

mod error;
mod path;
mod write;

use std::ffi::OsStr;
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, File, Metadata, OpenOptions, OpenOptionsExt as _};

pub use error::WorkspaceError;
pub use write::WriteMode;

/// A workspace directory and a capability handle to it. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The canonical root.
    root: Arc<Path>,
    /// The root as given (made absolute), when it differs: absolute paths under either
    /// are inside.
    given_root: Arc<Path>,
    dir: Arc<Dir>,
    read_only: bool,
    protected: Arc<[PathBuf]>,
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Written {
    /// The file written, relative to the root (a symbolic link's target, if the path
    /// was a link inside the workspace).
    pub path: PathBuf,
    /// Whether the file did not exist before.
    pub created: bool,
}

/// A regular file opened for reading.
#[derive(Debug)]
pub struct OpenedFile {
    /// The open file.
    pub file: File,
    /// Its metadata, read from the open handle.
    pub metadata: Metadata,
    /// Its path relative to the root.
    pub path: PathBuf,
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
        let absolute = std::path::absolute(given).map_err(open_error)?;
        let dir = Dir::open_ambient_dir(&canonical, ambient_authority()).map_err(open_error)?;
        Ok(Self {
            root: canonical.into(),
            given_root: absolute.into(),
            dir: Arc::new(dir),
            read_only: false,
            protected: Arc::from(Vec::new()),
        })
    }

    /// Makes the workspace read-only: every write fails with [`WorkspaceError::ReadOnly`].
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Protects a subpath (relative to the root, e.g. the memory database's directory)
    /// from writes: writing it or anything below it fails with
    /// [`WorkspaceError::Protected`]. Reads are unaffected.
    pub fn protect(mut self, subpath: impl AsRef<Path>) -> Self {
        let subpath = subpath.as_ref();
        let relative = subpath.strip_prefix(&self.root).unwrap_or(subpath);
        let mut protected = self.protected.to_vec();
        protected.push(path::normalized(relative));
        self.protected = protected.into();
        self
    }

    /// Whether writes are refused.
    pub fn is_read_only(&self) -> bool {
        self.read_only
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
    /// as they are, absolute paths must lie under the root. `~` is not expanded. Checked
    /// lexically (no `..` above the root, no NUL, not empty); the result still has to be
    /// opened through [`dir`](Self::dir), which enforces containment.
    pub fn relative_path(&self, path: &str) -> Result<PathBuf, WorkspaceError> {
        path::relative_to(&[&self.root, &self.given_root], path).ok_or_else(|| WorkspaceError::Outside {
            path: path.to_owned(),
        })
    }

    /// How a relative path is shown to a model: normalized, `.` for the root.
    pub fn display(relative: &Path) -> String {
        let normalized = path::normalized(relative);
        if normalized.as_os_str().is_empty() {
            ".".to_owned()
        } else {
            normalized.display().to_string()
        }
    }

    /// Opens a regular file for reading. Directories, FIFOs, sockets and devices are
    /// refused without blocking (the open is non-blocking and the type is read from the
    /// opened handle, so a file swapped for a FIFO cannot hang the caller).
    pub fn open_file(&self, path: &str) -> Result<OpenedFile, WorkspaceError> {
        let relative = self.relative_path(path)?;
        let shown = Self::display(&relative);
        let mut options = OpenOptions::new();
        options.read(true).custom_flags(libc::O_NONBLOCK);
        let file = self
            .dir
            .open_with(&relative, &options)
            .map_err(|source| WorkspaceError::from_io(&shown, source))?;
        let metadata = file
            .metadata()
            .map_err(|source| WorkspaceError::from_io(&shown, source))?;
        if metadata.is_dir() {
            return Err(WorkspaceError::IsDirectory { path: shown });
        }
        if !metadata.is_file() {
            let kind = special_kind(&metadata);
            return Err(WorkspaceError::NotAFile { path: shown, kind });
        }
        Ok(OpenedFile {
            file,
            metadata,
            path: relative,
        })
    }

    /// Reads a whole file inside the workspace as bytes.
    pub fn read(&self, path: &str) -> Result<Vec<u8>, WorkspaceError> {
        let mut opened = self.open_file(path)?;
        let mut bytes = Vec::new();
        opened
            .file
            .read_to_end(&mut bytes)
            .map_err(|source| WorkspaceError::from_io(&Self::display(&opened.path), source))?;
        Ok(bytes)
    }

    /// Reads a whole UTF-8 file inside the workspace.
    pub fn read_to_string(&self, path: &str) -> Result<String, WorkspaceError> {
        let bytes = self.read(path)?;
        String::from_utf8(bytes).map_err(|error| WorkspaceError::Io {
            path: path.to_owned(),
            source: io::Error::new(io::ErrorKind::InvalidData, error.utf8_error()),
        })
    }

    /// Replaces (or creates) a file atomically; see [`write_file`](Self::write_file).
    pub fn write(&self, path: &str, contents: impl AsRef<[u8]>) -> Result<Written, WorkspaceError> {
        self.write_file(path, contents.as_ref(), WriteMode::Overwrite)
    }

    /// Writes a file inside the workspace, creating missing parent directories.
    ///
    /// A path that is a symbolic link is written at the link's target when that lies
    /// inside the workspace; a link pointing out, or to nothing, is refused.
    /// [`WriteMode::Overwrite`] is atomic and keeps the file's permissions.
    pub fn write_file(
        &self,
        path: &str,
        contents: &[u8],
        mode: WriteMode,
    ) -> Result<Written, WorkspaceError> {
        let relative = self.relative_path(path)?;
        let target = self.writable_target(&relative)?;
        let shown = Self::display(&target);
        let io_error = |source| WorkspaceError::from_io(&shown, source);
        let (parent, name) =
            split(&target).ok_or_else(|| WorkspaceError::IsDirectory { path: shown.clone() })?;
        let parent_dir = if parent.as_os_str().is_empty() {
            self.dir.try_clone().map_err(io_error)?
        } else {
            self.dir.create_dir_all(parent).map_err(io_error)?;
            self.dir.open_dir(parent).map_err(io_error)?
        };
        let created = write::write_in(&parent_dir, name, contents, mode).map_err(io_error)?;
        Ok(Written {
            path: target,
            created,
        })
    }

    /// Where a write to `relative` lands, after refusing what must not be written.
    fn writable_target(&self, relative: &Path) -> Result<PathBuf, WorkspaceError> {
        let shown = Self::display(relative);
        if self.read_only {
            return Err(WorkspaceError::ReadOnly { path: shown });
        }
        let target = match self.dir.symlink_metadata(relative) {
            Ok(metadata) if metadata.is_symlink() => match self.dir.canonicalize(relative) {
                Ok(target) => target,
                Err(error) if error.kind() == io::ErrorKind::NotFound => {
                    return Err(WorkspaceError::BrokenSymlink { path: shown });
                }
                Err(error) => return Err(WorkspaceError::from_io(&shown, error)),
            },
            Ok(metadata) if metadata.is_dir() => return Err(WorkspaceError::IsDirectory { path: shown }),
            Ok(metadata) if !metadata.is_file() => {
                let kind = special_kind(&metadata);
                return Err(WorkspaceError::NotAFile { path: shown, kind });
            }
            Ok(_) => relative.to_path_buf(),
            Err(error) if error.kind() == io::ErrorKind::NotFound => relative.to_path_buf(),
            Err(error) => return Err(WorkspaceError::from_io(&shown, error)),
        };
        self.check_unprotected(&target)?;
        Ok(target)
    }

    /// Refuses a target inside a protected subpath, comparing canonical paths so that a
    /// symbolic link to a protected directory does not get around it.
    ///
    /// Every directory on the way counts, not only the target, since missing parents are
    /// created as written: those of `prot/new/../../f` would be made inside `prot`, and
    /// those of `link/new/f` inside `prot` when `link` points there (a missing parent
    /// cannot be canonicalized, so the target's own check sees only `link/new/f`).
    fn check_unprotected(&self, target: &Path) -> Result<(), WorkspaceError> {
        if self.protected.is_empty() {
            return Ok(());
        }
        let mut prefix = PathBuf::new();
        let found = target.components().find_map(|part| {
            prefix.push(part);
            self.protecting(&prefix)
        });
        match found {
            Some(protected) => Err(WorkspaceError::Protected {
                path: Self::display(target),
                protected: Self::display(protected),
            }),
            None => Ok(()),
        }
    }

    /// The protected subpath `path` is in, if any, compared canonically.
    fn protecting(&self, path: &Path) -> Option<&PathBuf> {
        let canonical = match split(path) {
            Some((parent, name)) if !parent.as_os_str().is_empty() => match self.dir.canonicalize(parent) {
                Ok(parent) => parent.join(name),
                Err(_) => path::normalized(path),
            },
            _ => path::normalized(path),
        };
        self.protected
            .iter()
            .find(|protected| canonical.starts_with(protected))
    }
}

/// The parent and final name of a file path; `None` for the root itself, and for paths
/// that name a directory (`notes/`, `notes/.`), which `Path::file_name` reads as `notes`.
fn split(path: &Path) -> Option<(&Path, &OsStr)> {
    let normalized_is_root = path::normalized(path).as_os_str().is_empty();
    if normalized_is_root {
        return None;
    }
    let name = path.file_name()?;
    if !path
        .as_os_str()
        .as_encoded_bytes()
        .ends_with(name.as_encoded_bytes())
    {
        return None;
    }
    Some((path.parent().unwrap_or(Path::new("")), name))
}

/// What a non-regular, non-directory file is, for messages.
fn special_kind(metadata: &Metadata) -> &'static str {
    use cap_std::fs::FileTypeExt as _;
    let kind = metadata.file_type();
    if kind.is_fifo() {
        "FIFO"
    } else if kind.is_socket() {
        "socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "device"
    } else if kind.is_symlink() {
        "symbolic link"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests;
