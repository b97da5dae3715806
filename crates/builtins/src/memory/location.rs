//! Where a workspace's memories live by default: outside the workspace, in the user's
//! data directory, in a directory of their own per workspace.
//!
//! The store used to be `<workspace>/.agent-tools/memory.db`. The file tools were kept
//! from it, but nothing else inside the workspace can be: `exec` may write the whole
//! workspace (`rm -rf .` took the memories with it), and a symbolic link it put where the
//! database goes made `memory_write` create the file wherever the link pointed. Outside
//! the workspace, under `$XDG_DATA_HOME` (or `~/.local/share`), the sandboxed `exec`
//! cannot write, and only the memory tools touch the store:
//!
//! ```text
//! $XDG_DATA_HOME/agent-tools/workspaces/<name>-<16 hex digits>/memory.db
//! ```
//!
//! `<name>` is the workspace directory's name (for people looking), the digits a hash
//! of its canonical path (so two `src` directories do not share memories). A data
//! directory that itself lies inside the workspace (a workspace that is the home
//! directory) is refused rather than used, with a message naming `[memory] path`.
//!
//! A database at the old place is neither read nor moved: it lies where the agent (or
//! whoever made the repository) could have written it, and memories are instructions a
//! model trusts, so taking them in unasked would let a planted file speak to every later
//! session. The command line says where it is and where memories are now kept; a user
//! who knows it is theirs moves it there.

use std::path::{Component, Path, PathBuf};

use super::error::MemoryError;

/// The database of the old default location, relative to the workspace root; it is not
/// used any more (see the module docs).
pub const LEGACY_PATH: &str = ".agent-tools/memory.db";

/// Characters of the workspace's name kept in its directory's name.
const MAX_NAME_CHARS: usize = 40;

/// The default database of the workspace at `workspace_root` (canonical), with the data
/// directory taken from `env` (`XDG_DATA_HOME`, else `HOME`). Reads the file system only
/// to resolve the links of the data directory that exist; creates nothing.
pub(super) fn default_path(
    workspace_root: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<PathBuf, MemoryError> {
    let data = data_home(env).ok_or(MemoryError::NoDataDirectory)?;
    let resolved = resolve_existing(&data);
    if data.starts_with(workspace_root) || resolved.starts_with(workspace_root) {
        return Err(MemoryError::DataDirectoryInWorkspace { path: resolved });
    }
    Ok(resolved
        .join("agent-tools")
        .join("workspaces")
        .join(directory_name(workspace_root))
        .join("memory.db"))
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
pub(super) fn directory_name(workspace_root: &Path) -> String {
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
/// directory name has to be.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
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
        let path = default_path(
            ws,
            &env(&[("XDG_DATA_HOME", xdg.to_str().unwrap()), ("HOME", "/h")]),
        )
        .unwrap();
        let expected_dir = format!("my_app-{:016x}", fnv1a(b"/srv/projects/my app"));
        assert_eq!(
            path,
            xdg.join("agent-tools/workspaces")
                .join(expected_dir)
                .join("memory.db")
        );
        let home = default_path(
            ws,
            &env(&[("XDG_DATA_HOME", "relative"), ("HOME", data.to_str().unwrap())]),
        )
        .unwrap();
        assert!(
            home.starts_with(data.join(".local/share/agent-tools/workspaces")),
            "{home:?}"
        );
        assert!(matches!(
            default_path(ws, &env(&[])),
            Err(MemoryError::NoDataDirectory)
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
        let error = default_path(&ws, &env(&[("HOME", home)])).unwrap_err();
        assert!(
            matches!(error, MemoryError::DataDirectoryInWorkspace { .. }),
            "{error}"
        );
        // Also when a link outside leads into the workspace.
        let outside = tempfile::tempdir().unwrap();
        let link = outside.path().join("data");
        std::os::unix::fs::symlink(ws.join("inside"), &link).unwrap();
        std::fs::create_dir(ws.join("inside")).unwrap();
        let error = default_path(&ws, &env(&[("XDG_DATA_HOME", link.to_str().unwrap())])).unwrap_err();
        assert!(
            matches!(error, MemoryError::DataDirectoryInWorkspace { .. }),
            "{error}"
        );
    }

    #[test]
    fn links_of_the_existing_data_directory_are_resolved() {
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("disk")).unwrap();
        std::os::unix::fs::symlink(base.join("disk"), base.join("data")).unwrap();
        assert_eq!(
            resolve_existing(&base.join("data/missing/./more")),
            base.join("disk/missing/more")
        );
    }
}
