//! Paths as a workspace tool will resolve them, for rules over an argument of kind
//! [`ArgumentKind::WorkspacePath`](crate::spec::ArgumentKind::WorkspacePath).
//!
//! With the policy's workspace set ([`PolicyBuilder::workspace`](super::PolicyBuilder::workspace)),
//! a path is resolved the way the built-in file tools resolve it: relative to the
//! workspace; an absolute path inside it taken as the relative path it names; `.` and
//! repeated `/` dropped; `..` applied; and every symbolic link inside the workspace
//! followed, up to 40, so the rule sees the file a write will land on. A rule's glob is
//! matched against that path relative to the workspace (`src/lib.rs`, `.env`), or the
//! absolute path when it lands outside.
//!
//! A deny or ask rule also sees the path as written and lexically normalized; an allow
//! rule sees only where it lands.
//!
//! What this does not do: the file system can change between the decision and the
//! write. The built-in tools open every path beneath the workspace with the kernel's
//! `RESOLVE_BENEATH`, so a link swapped in later cannot lead outside the workspace, but
//! it can lead to another file inside it. Without a workspace set, paths are only
//! normalized as text: links are not followed and an absolute path is taken as outside.

use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};

/// How many links are followed before the path is taken as unresolvable (Linux's limit).
const MAX_LINKS: usize = 40;

/// Where a path argument lands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Landing {
    /// Inside the workspace, at this relative path (`""` is the workspace itself).
    Inside(String),
    /// Outside it, at this absolute path (or a relative path climbing out of it, when no
    /// workspace is set).
    Outside(String),
    /// Links loop or go deeper than [`MAX_LINKS`].
    Unresolvable,
}

/// Resolves `text` against `root` (canonical), or lexically without one.
pub(crate) fn resolve(text: &str, root: Option<&Path>) -> Landing {
    let path = Path::new(text);
    let Some(root) = root else {
        return lexical(path);
    };
    let mut remaining: VecDeque<String> = VecDeque::new();
    if path.is_absolute() {
        match path.strip_prefix(root) {
            Ok(inside) => remaining.extend(names(inside)),
            Err(_) => return Landing::Outside(normalized_absolute(path)),
        }
    } else {
        remaining.extend(names(path));
    }
    let mut resolved: Vec<String> = Vec::new();
    let mut links = 0;
    while let Some(name) = remaining.pop_front() {
        match name.as_str() {
            "." => continue,
            ".." => {
                if resolved.pop().is_none() {
                    // Climbing out of the workspace: the rest is outside.
                    let mut outside = root.parent().unwrap_or(root).to_path_buf();
                    outside.extend(remaining);
                    return Landing::Outside(normalized_absolute(&outside));
                }
                continue;
            }
            _ => {}
        }
        resolved.push(name);
        let here = root.join(resolved.join("/"));
        let Ok(target) = std::fs::read_link(&here) else {
            // Not a link (or not there yet): the name stays as it is.
            continue;
        };
        links += 1;
        if links > MAX_LINKS {
            return Landing::Unresolvable;
        }
        resolved.pop();
        if target.is_absolute() {
            match target.strip_prefix(root) {
                Ok(inside) => {
                    resolved.clear();
                    for name in names(inside).into_iter().rev() {
                        remaining.push_front(name);
                    }
                }
                Err(_) => {
                    let mut outside = target.clone();
                    outside.extend(remaining);
                    return Landing::Outside(normalized_absolute(&outside));
                }
            }
        } else {
            for name in names(&target).into_iter().rev() {
                remaining.push_front(name);
            }
        }
    }
    Landing::Inside(resolved.join("/"))
}

/// The names of a relative path's components (`.` and `..` kept, as `.`/`..`).
fn names(path: &Path) -> Vec<String> {
    path.components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            Component::ParentDir => Some("..".to_owned()),
            Component::CurDir => Some(".".to_owned()),
            Component::RootDir | Component::Prefix(_) => None,
        })
        .collect()
}

/// Without a workspace: a relative path normalized, inside unless it climbs out.
fn lexical(path: &Path) -> Landing {
    if path.is_absolute() {
        return Landing::Outside(normalized_absolute(path));
    }
    let mut kept: Vec<String> = Vec::new();
    for name in names(path) {
        match name.as_str() {
            "." => {}
            ".." if kept.pop().is_none() => {
                return Landing::Outside(path.to_string_lossy().into_owned());
            }
            ".." => {}
            _ => kept.push(name),
        }
    }
    Landing::Inside(kept.join("/"))
}

/// An absolute path with `.`, `..` and repeated `/` resolved as text.
fn normalized_absolute(path: &Path) -> String {
    let mut kept: Vec<String> = Vec::new();
    for name in names(path) {
        match name.as_str() {
            "." => {}
            ".." => {
                kept.pop();
            }
            _ => kept.push(name),
        }
    }
    let mut text = PathBuf::from("/");
    text.extend(kept);
    text.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("allowed")).unwrap();
        std::os::unix::fs::symlink("../.env", root.join("allowed/link")).unwrap();
        std::os::unix::fs::symlink(root.join("src"), root.join("abs")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
        std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
        let at = |text: &str| resolve(text, Some(&root));
        let inside = |text: &str| Landing::Inside(text.to_owned());
        assert_eq!(at(".env"), inside(".env"));
        assert_eq!(at("./src//../.env"), inside(".env"));
        assert_eq!(at(&format!("{}/.env", root.display())), inside(".env"));
        assert_eq!(at("allowed/link"), inside(".env"));
        assert_eq!(at("abs/lib.rs"), inside("src/lib.rs"));
        assert_eq!(at("etc/passwd"), Landing::Outside("/etc/passwd".to_owned()));
        assert_eq!(
            at("../x"),
            Landing::Outside(format!("{}/x", root.parent().unwrap().display()))
        );
        assert_eq!(at("/etc/./passwd"), Landing::Outside("/etc/passwd".to_owned()));
        assert_eq!(at("loop"), Landing::Unresolvable);
    }

    #[test]
    fn without_a_workspace_paths_are_normalized_as_text() {
        assert_eq!(resolve("src/../.env", None), Landing::Inside(".env".to_owned()));
        assert_eq!(resolve("../x", None), Landing::Outside("../x".to_owned()));
        assert_eq!(resolve("/a/../etc", None), Landing::Outside("/etc".to_owned()));
    }
}
