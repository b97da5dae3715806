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
//! Writes are atomic ([`WriteMode`]), the workspace can be read-only, and parts of it can
//! be protected from the write tools ([`Workspace::protect`]): by default every git
//! directory, since git runs the hooks and programs it names outside any sandbox (see
//! [`Workspace::protect_git`] for what that covers and what it does not). An append,
//! the one write that changes a file in place, refuses a file with more than one hard
//! link, since the other names of the file may lie outside the workspace.

mod error;
mod escape;
mod git;
mod no_links;
mod path;
mod protect;
mod write;

use std::ffi::OsStr;
use std::io::{self, Read as _};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, File, Metadata, OpenOptions, OpenOptionsExt as _};

pub use error::WorkspaceError;
pub use write::WriteMode;

use protect::{Protection, Reason};

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
    protected: Arc<[Protection]>,
    /// Writes follow no symbolic link ([`following_no_links`](Workspace::following_no_links)).
    no_links: bool,
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
    /// Opens `root` (made absolute and canonical) as the workspace, with its git
    /// directories protected ([`protect_git`](Self::protect_git)).
    pub fn open(root: impl AsRef<Path>) -> Result<Self, WorkspaceError> {
        let given = root.as_ref();
        let open_error = |source| WorkspaceError::Open {
            root: given.to_path_buf(),
            source,
        };
        let canonical = given.canonicalize().map_err(open_error)?;
        let absolute = std::path::absolute(given).map_err(open_error)?;
        let dir = Dir::open_ambient_dir(&canonical, ambient_authority()).map_err(open_error)?;
        let workspace = Self {
            root: canonical.into(),
            given_root: absolute.into(),
            dir: Arc::new(dir),
            read_only: false,
            protected: Arc::from(Vec::new()),
            no_links: false,
        };
        Ok(workspace.protect_git(true))
    }

    /// The same workspace, whose writes and [`open_file`](Self::open_file) follow no
    /// symbolic link: a path with one on the way is refused
    /// ([`WorkspaceError::LinkOnTheWay`]). For a path the registry's policy
    /// already resolved ([`ToolContext::paths_pinned`](agent_tools_core::ToolContext::paths_pinned)):
    /// the write lands where the policy looked, and a link swapped in since cannot
    /// redirect it. The kernel checks each directory as it opens it (`openat2` with
    /// `RESOLVE_NO_SYMLINKS`); the file itself is replaced by a rename, which replaces a
    /// link rather than following it, or appended to with `O_NOFOLLOW`.
    #[must_use]
    pub fn following_no_links(&self) -> Self {
        Self {
            no_links: true,
            ..self.clone()
        }
    }

    /// Makes the workspace read-only: every write fails with [`WorkspaceError::ReadOnly`].
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Protects part of the workspace from writes: the paths matching `pattern` and
    /// everything below them; writing there fails with [`WorkspaceError::Protected`].
    /// Reads are unaffected.
    ///
    /// The pattern is a path relative to the root (an absolute one under the root is
    /// made relative; one outside has no effect, as nothing outside can be written
    /// anyway) whose components may hold `*` and `?`, or be `**` for any number of
    /// directories: `"memory"`, `"**/.env"`, `"secrets/*.pem"`. Names are compared
    /// without regard to ASCII case. Symbolic links do not get around it: every directory
    /// a write passes through is compared as written and as resolved.
    pub fn protect(self, pattern: impl AsRef<Path>) -> Self {
        let pattern = pattern.as_ref();
        let relative = match pattern.is_absolute() {
            true => match [&self.root, &self.given_root]
                .iter()
                .find_map(|root| pattern.strip_prefix(root).ok())
            {
                Some(relative) => relative.to_path_buf(),
                None => return self,
            },
            false => pattern.to_path_buf(),
        };
        self.with_protection(Protection::new(&relative, Reason::Asked))
    }

    /// Whether git's directories are protected from writes (the default): every `.git`
    /// directory or file at any depth, and, read now, the workspace repository's git
    /// directory when the root's `.git` points elsewhere inside (a link, a `gitdir:` file)
    /// and the hooks directory its configuration names (`core.hooksPath`). Git runs the hooks
    /// and the programs its configuration names outside any sandbox, so a hook written
    /// by an agent would run when the user next commits.
    ///
    /// What this stops and what it does not (`exec`, planted bare repositories, global
    /// git configuration, hook managers' scripts) is in the guide's chapter on the built-in
    /// tools, under the file tools.
    pub fn protect_git(mut self, yes: bool) -> Self {
        let kept: Vec<Protection> = self
            .protected
            .iter()
            .filter(|protection| protection.reason != Reason::Git)
            .cloned()
            .collect();
        self.protected = kept.into();
        if !yes {
            return self;
        }
        let parts = git::repository_parts(&self.dir, &self.root);
        std::iter::once(PathBuf::from(git::GIT_DIRS))
            .chain(parts)
            .fold(self, |workspace, part| {
                workspace.with_protection(Protection::new(&part, Reason::Git))
            })
    }

    fn with_protection(mut self, protection: Protection) -> Self {
        let mut protected = self.protected.to_vec();
        protected.push(protection);
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

    /// An I/O error on `relative`, classified the way a model needs it: an escape the
    /// capability handle refused (a `..` above the root, a symbolic link pointing out)
    /// is [`WorkspaceError::Outside`], a missing file [`WorkspaceError::NotFound`], and
    /// so on.
    pub fn io_error(&self, relative: &Path, source: io::Error) -> WorkspaceError {
        let path = Self::display(relative);
        if source.kind() == io::ErrorKind::PermissionDenied && escape::leads_outside(&self.dir, relative) {
            return WorkspaceError::Outside { path };
        }
        WorkspaceError::from_io(&path, source)
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
        let file = if self.no_links {
            no_links::open_file(&self.dir, &relative).map_err(|source| match source.raw_os_error() {
                Some(libc::ELOOP) => WorkspaceError::LinkOnTheWay { path: shown.clone() },
                _ => self.io_error(&relative, source),
            })?
        } else {
            let mut options = OpenOptions::new();
            options.read(true).custom_flags(libc::O_NONBLOCK);
            self.dir
                .open_with(&relative, &options)
                .map_err(|source| self.io_error(&relative, source))?
        };
        let metadata = file
            .metadata()
            .map_err(|source| self.io_error(&relative, source))?;
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
            .map_err(|source| self.io_error(&opened.path, source))?;
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
    /// [`WriteMode::Overwrite`] is atomic and keeps the file's permissions; it replaces
    /// the name, so other hard links to the old file keep the old content.
    /// [`WriteMode::Append`] refuses a file with more than one hard link
    /// ([`WorkspaceError::HardLinked`]).
    pub fn write_file(
        &self,
        path: &str,
        contents: &[u8],
        mode: WriteMode,
    ) -> Result<Written, WorkspaceError> {
        let relative = self.relative_path(path)?;
        let target = self.writable_target(&relative)?;
        let shown = Self::display(&target);
        let io_error = |source| self.io_error(&target, source);
        let (parent, name) =
            split(&target).ok_or_else(|| WorkspaceError::IsDirectory { path: shown.clone() })?;
        let parent_dir = if parent.as_os_str().is_empty() {
            self.dir.try_clone().map_err(io_error)?
        } else if self.no_links {
            self.dir.create_dir_all(parent).map_err(io_error)?;
            no_links::open_dir(&self.dir, parent).map_err(|source| match source.raw_os_error() {
                Some(libc::ELOOP) => WorkspaceError::LinkOnTheWay { path: shown.clone() },
                _ => io_error(source),
            })?
        } else {
            self.dir.create_dir_all(parent).map_err(io_error)?;
            self.dir.open_dir(parent).map_err(io_error)?
        };
        let created =
            write::write_in(&parent_dir, name, contents, mode, self.no_links).map_err(|source| {
                match write::hard_links(&source) {
                    Some(links) => WorkspaceError::HardLinked {
                        path: shown.clone(),
                        links,
                    },
                    None => io_error(source),
                }
            })?;
        Ok(Written {
            path: target,
            created,
        })
    }

    /// Deletes the file at `path` (the name: a symbolic link itself, not its target),
    /// refused as a write there would be: read-only, protected, a link on the way in the
    /// no-links mode. Directories are refused. Returns the path relative to the root.
    pub(crate) fn remove_file(&self, path: &str) -> Result<PathBuf, WorkspaceError> {
        let relative = self.relative_path(path)?;
        let shown = Self::display(&relative);
        if self.read_only {
            return Err(WorkspaceError::ReadOnly { path: shown });
        }
        let io_error = |source| self.io_error(&relative, source);
        let (parent, name) =
            split(&relative).ok_or_else(|| WorkspaceError::IsDirectory { path: shown.clone() })?;
        let parent_dir = if parent.as_os_str().is_empty() {
            self.dir.try_clone().map_err(io_error)?
        } else if self.no_links {
            no_links::open_dir(&self.dir, parent).map_err(|source| match source.raw_os_error() {
                Some(libc::ELOOP) => WorkspaceError::LinkOnTheWay { path: shown.clone() },
                _ => io_error(source),
            })?
        } else {
            self.dir.open_dir(parent).map_err(io_error)?
        };
        let metadata = parent_dir.symlink_metadata(name).map_err(io_error)?;
        if metadata.is_dir() {
            return Err(WorkspaceError::IsDirectory { path: shown });
        }
        self.check_unprotected(&relative, &relative)?;
        parent_dir.remove_file(name).map_err(io_error)?;
        write::sync_dir(&parent_dir).map_err(io_error)?;
        Ok(relative)
    }

    /// Checks that a file could be written at `path` (not read-only, not protected, not
    /// a directory or special file, no link at the end in the no-links mode), writing
    /// nothing; returns where the write would land, relative to the root.
    pub(crate) fn check_writable(&self, path: &str) -> Result<PathBuf, WorkspaceError> {
        let relative = self.relative_path(path)?;
        self.writable_target(&relative)
    }

    /// Where a write to `relative` lands, after refusing what must not be written.
    fn writable_target(&self, relative: &Path) -> Result<PathBuf, WorkspaceError> {
        let shown = Self::display(relative);
        if self.read_only {
            return Err(WorkspaceError::ReadOnly { path: shown });
        }
        let target = match self.dir.symlink_metadata(relative) {
            Ok(metadata) if metadata.is_symlink() && self.no_links => {
                return Err(WorkspaceError::LinkOnTheWay { path: shown });
            }
            Ok(metadata) if metadata.is_symlink() => match self.dir.canonicalize(relative) {
                Ok(target) => target,
                Err(error) if error.kind() == io::ErrorKind::NotFound => {
                    return Err(WorkspaceError::BrokenSymlink { path: shown });
                }
                Err(error) => return Err(self.io_error(relative, error)),
            },
            Ok(metadata) if metadata.is_dir() => return Err(WorkspaceError::IsDirectory { path: shown }),
            Ok(metadata) if !metadata.is_file() => {
                let kind = special_kind(&metadata);
                return Err(WorkspaceError::NotAFile { path: shown, kind });
            }
            Ok(_) => relative.to_path_buf(),
            Err(error) if error.kind() == io::ErrorKind::NotFound => relative.to_path_buf(),
            Err(error) => return Err(self.io_error(relative, error)),
        };
        self.check_unprotected(relative, &target)?;
        Ok(target)
    }

    /// Refuses a write to `relative` (landing at `target`) that passes through a
    /// protected part of the workspace.
    ///
    /// Every directory on the way counts, not only the target, since missing parents are
    /// created as written: those of `prot/new/../../f` would be made inside `prot`, and
    /// those of `link/new/f` inside `prot` when `link` points there. Each is compared
    /// twice: as the model wrote it (so a `.git` that is a symbolic link to another
    /// directory is still `.git`, as git sees it) and as the kernel resolves it, links
    /// followed and `..` applied to where they led (so a link to `.git/hooks`, or
    /// `new/../link` with `link` pointing into a protected directory, is caught).
    fn check_unprotected(&self, relative: &Path, target: &Path) -> Result<(), WorkspaceError> {
        if self.protected.is_empty() {
            return Ok(());
        }
        let mut written = PathBuf::new();
        let mut resolved = PathBuf::new();
        for component in relative.components() {
            match component {
                Component::Normal(name) => {
                    written.push(name);
                    resolved.push(name);
                    self.follow_last(&mut resolved);
                    if let Some(error) = self
                        .protecting(&written, target)
                        .or_else(|| self.protecting(&resolved, target))
                    {
                        return Err(error);
                    }
                }
                Component::ParentDir => {
                    written.pop();
                    resolved.pop();
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Replaces `resolved` by its target (relative to the root) if its last component is
    /// a symbolic link that resolves inside; a dangling link, or one pointing out, stays
    /// as it is, since the write through it is refused anyway.
    fn follow_last(&self, resolved: &mut PathBuf) {
        let is_link = self
            .dir
            .symlink_metadata(&*resolved)
            .is_ok_and(|metadata| metadata.is_symlink());
        if let Some(target) = is_link.then(|| self.dir.canonicalize(&*resolved).ok()).flatten() {
            *resolved = target;
        }
    }

    /// The error for a write to `target` when `path` or a directory it lies in is
    /// protected.
    fn protecting(&self, path: &Path, target: &Path) -> Option<WorkspaceError> {
        path.ancestors().find_map(|ancestor| {
            let protection = self
                .protected
                .iter()
                .find(|protection| protection.matches(ancestor))?;
            let (path, protected) = (Self::display(target), Self::display(ancestor));
            Some(match protection.reason {
                Reason::Git => WorkspaceError::GitProtected { path, protected },
                Reason::Asked => WorkspaceError::Protected { path, protected },
            })
        })
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
