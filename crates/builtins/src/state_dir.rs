//! Where the built-in tools keep what they know of a workspace (its memories, its
//! sessions' plans): outside the workspace, in the user's data directory, in a directory
//! of its own per workspace.
//!
//! ```text
//! $XDG_DATA_HOME/agent-tools/workspaces/<name>-<16 hex digits>/
//!     memory.db         the memory tools' database
//!     plans/            update_plan's plans, one file per session
//! ```
//!
//! Nothing inside the workspace can hold such state: `exec` may write the whole workspace
//! (`rm -rf .` took the memories with it when they lived in `.agent-tools/`), and a
//! symbolic link it put where a file goes made the tool create the file wherever the
//! link pointed. Under `$XDG_DATA_HOME` (or `~/.local/share`) the sandboxed `exec` cannot
//! write, and only the tools that own the files touch them.
//!
//! `<name>` is the workspace directory's name (for people looking), the digits a hash of
//! its canonical path (so two `src` directories do not share state). A data directory
//! that itself lies inside the workspace (a workspace that is the home directory) is
//! refused rather than used. The directories are created one component at a time, each
//! checked not to be a symbolic link, and made private (`0700`)
//! ([`create_private_dirs`]).
//!
//! What this does not stop: with `exec`'s `sandbox = "none"` a command can change
//! anything the user can, these directories included.

use std::io;
use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Component, Path, PathBuf};

/// Characters of the workspace's name kept in its directory's name.
const MAX_NAME_CHARS: usize = 40;

/// Why a workspace has no state directory.
#[derive(Debug)]
pub(crate) enum StateDirError {
    /// Neither `XDG_DATA_HOME` nor `HOME` is set to an absolute path.
    NoDataDirectory,
    /// The data directory (`path`, resolved) lies inside the workspace.
    InWorkspace { path: PathBuf },
}

/// The state directory of the workspace at `workspace_root` (canonical), with the data
/// directory taken from `env` (`XDG_DATA_HOME`, else `HOME`). Reads the file system only
/// to resolve the links of the data directory that exist; creates nothing.
pub(crate) fn workspace_dir(
    workspace_root: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<PathBuf, StateDirError> {
    let data = data_home(env).ok_or(StateDirError::NoDataDirectory)?;
    let resolved = resolve_existing(&data);
    if data.starts_with(workspace_root) || resolved.starts_with(workspace_root) {
        return Err(StateDirError::InWorkspace { path: resolved });
    }
    Ok(resolved
        .join("agent-tools")
        .join("workspaces")
        .join(directory_name(workspace_root)))
}

/// `$XDG_DATA_HOME`, or `$HOME/.local/share`; relative values are ignored, as the XDG
/// base directory specification asks.
fn data_home(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let absolute = |name: &str| env(name).map(PathBuf::from).filter(|path| path.is_absolute());
    absolute("XDG_DATA_HOME").or_else(|| absolute("HOME").map(|home| home.join(".local/share")))
}

/// `path` with its longest existing part canonical (the user's own links followed) and
/// the rest as written, without `.` and `..`.
fn resolve_existing(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut existing = path;
    loop {
        if let Ok(canonical) = existing.canonicalize() {
            let mut resolved = canonical;
            for part in missing.iter().rev() {
                resolved.push(part);
            }
            return resolved;
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(Component::Normal(name))) => {
                missing.push(name.to_owned());
                existing = parent;
            }
            (Some(parent), _) => existing = parent,
            (None, _) => return path.to_path_buf(),
        }
    }
}

/// `<name>-<hash>` for a workspace: its directory's name made safe, and a hash of its
/// whole path.
pub(crate) fn directory_name(workspace_root: &Path) -> String {
    let name: String = workspace_root
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                true => c,
                false => '_',
            },
        )
        .take(MAX_NAME_CHARS)
        .collect();
    let name = if name.is_empty() { "root".to_owned() } else { name };
    format!(
        "{name}-{:016x}",
        fnv1a(workspace_root.as_os_str().as_encoded_bytes())
    )
}

/// FNV-1a, 64 bits: stable across builds and platforms (unlike `DefaultHasher`), which a
/// file or directory name has to be.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Why [`create_private_dirs`] stopped.
#[derive(Debug)]
pub(crate) enum CreateDirError {
    /// A component is a symbolic link.
    Symlink { path: PathBuf },
    /// A component could not be made or is not a directory.
    Io { path: PathBuf, source: io::Error },
}

/// Each component of `directory` (absolute) from the root: a directory, not a link to
/// one, made private (`0700`) when missing. A link planted at any component would make
/// the tool write wherever it points.
pub(crate) fn create_private_dirs(directory: &Path) -> Result<(), CreateDirError> {
    let mut prefix = PathBuf::new();
    for component in directory.components() {
        prefix.push(component);
        let io_error = |source| CreateDirError::Io {
            path: prefix.clone(),
            source,
        };
        let metadata = match std::fs::symlink_metadata(&prefix) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                match std::fs::DirBuilder::new().mode(0o700).create(&prefix) {
                    Err(error) if error.kind() != io::ErrorKind::AlreadyExists => {
                        return Err(io_error(error));
                    }
                    _ => {}
                }
                // Made by us or by a racing creator: look again, without following.
                std::fs::symlink_metadata(&prefix).map_err(io_error)?
            }
            other => other.map_err(io_error)?,
        };
        if metadata.is_symlink() {
            return Err(CreateDirError::Symlink { path: prefix });
        }
        if !metadata.is_dir() {
            let error = io::Error::new(io::ErrorKind::NotADirectory, "it is not a directory");
            return Err(io_error(error));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{PermissionsExt as _, symlink};

    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        }
    }

    #[test]
    fn the_data_directory_comes_from_xdg_data_home_then_home() {
        let temp = tempfile::tempdir().unwrap();
        let data = temp.path().canonicalize().unwrap();
        let ws = Path::new("/srv/projects/my app");
        let xdg = data.join("xdg");
        let dir = workspace_dir(
            ws,
            &env(&[("XDG_DATA_HOME", xdg.to_str().unwrap()), ("HOME", "/h")]),
        )
        .unwrap();
        let expected = format!("my_app-{:016x}", fnv1a(b"/srv/projects/my app"));
        assert_eq!(dir, xdg.join("agent-tools/workspaces").join(expected));
        let home = workspace_dir(
            ws,
            &env(&[("XDG_DATA_HOME", "relative"), ("HOME", data.to_str().unwrap())]),
        )
        .unwrap();
        assert!(
            home.starts_with(data.join(".local/share/agent-tools/workspaces")),
            "{home:?}"
        );
        assert!(matches!(
            workspace_dir(ws, &env(&[])),
            Err(StateDirError::NoDataDirectory)
        ));
    }

    #[test]
    fn workspaces_get_directories_of_their_own() {
        let a = directory_name(Path::new("/a/src"));
        let b = directory_name(Path::new("/b/src"));
        assert!(a.starts_with("src-") && b.starts_with("src-"));
        assert_ne!(a, b);
        assert_eq!(a, directory_name(Path::new("/a/src")));
        assert!(directory_name(Path::new("/")).starts_with("root-"));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn a_data_directory_inside_the_workspace_is_refused() {
        let temp = tempfile::tempdir().unwrap();
        let ws = temp.path().canonicalize().unwrap();
        let home = ws.to_str().unwrap();
        let error = workspace_dir(&ws, &env(&[("HOME", home)])).unwrap_err();
        assert!(matches!(error, StateDirError::InWorkspace { .. }), "{error:?}");
        // Also when a link outside leads into the workspace.
        let outside = tempfile::tempdir().unwrap();
        let link = outside.path().join("data");
        symlink(ws.join("inside"), &link).unwrap();
        std::fs::create_dir(ws.join("inside")).unwrap();
        let error = workspace_dir(&ws, &env(&[("XDG_DATA_HOME", link.to_str().unwrap())])).unwrap_err();
        assert!(matches!(error, StateDirError::InWorkspace { .. }), "{error:?}");
    }

    #[test]
    fn links_of_the_existing_data_directory_are_resolved() {
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("disk")).unwrap();
        symlink(base.join("disk"), base.join("data")).unwrap();
        assert_eq!(
            resolve_existing(&base.join("data/missing/./more")),
            base.join("disk/missing/more")
        );
    }

    #[test]
    fn missing_directories_are_made_private_and_links_refused() {
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().canonicalize().unwrap();
        create_private_dirs(&base.join("a/b")).unwrap();
        let mode = std::fs::metadata(base.join("a/b")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);

        let elsewhere = base.join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        symlink(&elsewhere, base.join("link")).unwrap();
        let error = create_private_dirs(&base.join("link/new")).unwrap_err();
        assert!(
            matches!(&error, CreateDirError::Symlink { path } if path == &base.join("link")),
            "{error:?}"
        );
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);

        std::fs::write(base.join("file"), "").unwrap();
        let error = create_private_dirs(&base.join("file/x")).unwrap_err();
        assert!(
            matches!(&error, CreateDirError::Io { source, .. } if source.to_string().contains("not a directory")),
            "{error:?}"
        );
    }
}
