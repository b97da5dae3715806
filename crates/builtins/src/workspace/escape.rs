//! Whether a path leads outside the workspace once its symbolic links are followed: what
//! turns the capability handle's refusal into [`WorkspaceError::Outside`].
//!
//! cap-std refuses a resolution that would leave the root (a `..` above it, an absolute
//! symbolic link, a link pointing out) with `PermissionDenied`, the same kind as a file
//! the user may not read, and no typed signal tells them apart. Rather than match its
//! message, this module walks the path itself: component by component, reading each
//! symbolic link and applying `..` lexically, as the kernel would. It decides only which
//! message the model gets; containment is the handle's job, and a race between its
//! refusal and this walk can at worst choose the wrong message.
//!
//! [`WorkspaceError::Outside`]: super::WorkspaceError::Outside

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path};

use cap_std::fs::Dir;

/// How many symbolic links one resolution follows before giving up, as Linux does
/// (`ELOOP`); a loop is not an escape.
const MAX_LINKS: usize = 40;

/// Whether resolving `relative` in `dir`, following symbolic links, would leave `dir`.
pub(super) fn leads_outside(dir: &Dir, relative: &Path) -> bool {
    let mut pending: VecDeque<OsString> = components(relative).into();
    let mut resolved: Vec<OsString> = Vec::new();
    let mut links = 0;
    while let Some(component) = pending.pop_front() {
        if component == "/" {
            return true;
        }
        if component == ".." {
            if resolved.pop().is_none() {
                return true;
            }
            continue;
        }
        resolved.push(component);
        let here: std::path::PathBuf = resolved.iter().collect();
        let is_link = dir
            .symlink_metadata(&here)
            .is_ok_and(|metadata| metadata.is_symlink());
        if !is_link {
            continue;
        }
        links += 1;
        let Ok(target) = dir.read_link_contents(&here) else {
            return false;
        };
        if links > MAX_LINKS {
            return false;
        }
        resolved.pop();
        for part in components(&target).into_iter().rev() {
            pending.push_front(part);
        }
    }
    false
}

/// The components of `path` that matter for resolving it: names, `..`, and `/` for a
/// root (an absolute path); `.` is dropped.
fn components(path: &Path) -> Vec<OsString> {
    path.components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_owned()),
            Component::ParentDir => Some("..".into()),
            Component::RootDir | Component::Prefix(_) => Some("/".into()),
            Component::CurDir => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use cap_std::ambient_authority;

    use super::*;

    #[test]
    fn links_are_followed_and_dot_dot_applied_as_the_kernel_does() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        symlink("/etc", root.join("absolute")).unwrap();
        symlink("..", root.join("a/up1")).unwrap();
        symlink("../..", root.join("a/up2")).unwrap();
        symlink("b", root.join("a/down")).unwrap();
        symlink("loop", root.join("loop")).unwrap();
        let dir = Dir::open_ambient_dir(root, ambient_authority()).unwrap();
        for (path, outside) in [
            ("a/b/file", false),
            ("a/down/../b", false),
            ("a/down/../../x", false),
            ("a/down/../../../x", true),
            ("absolute", true),
            ("absolute/passwd", true),
            ("a/up1/a/b", false),
            ("a/up2", true),
            ("a/up2/x", true),
            ("a/b/../up2/..", true),
            ("..", true),
            ("loop/x", false),
            ("missing/../../x", true),
        ] {
            assert_eq!(leads_outside(&dir, Path::new(path)), outside, "{path}");
        }
    }
}
