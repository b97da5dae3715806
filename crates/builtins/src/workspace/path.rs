//! Turning the path a model sent into a path relative to the workspace root.
//!
//! This is only the first line of defense, for clear messages: containment itself is
//! enforced when the path is opened through the root's capability handle (`openat2` with
//! `RESOLVE_BENEATH`), which no string check could do against symbolic links and races.
//! Here, paths are compared by components, never as strings, so `/ws_evil` is not inside
//! `/ws`.

use std::path::{Component, Path, PathBuf};

/// The part of `given` below one of `roots`, checked lexically: not empty, no NUL, no
/// `..` that climbs above the root (`sub/../file` is fine, `sub/../../x` is not).
/// Absolute paths must lie below a root; `~` is an ordinary name.
pub(crate) fn relative_to(roots: &[&Path], given: &str) -> Option<PathBuf> {
    if given.is_empty() || given.contains('\0') {
        return None;
    }
    let path = Path::new(given);
    let relative = if path.is_absolute() {
        roots.iter().find_map(|root| path.strip_prefix(root).ok())?
    } else {
        path
    };
    stays_below_root(relative).then(|| {
        if relative.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            relative.to_path_buf()
        }
    })
}

/// Whether walking `relative` component by component never goes above its start.
fn stays_below_root(relative: &Path) -> bool {
    let mut depth: usize = 0;
    for component in relative.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => return false,
            },
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

/// `relative` without `.` and with `..` applied, for comparing with protected paths.
pub(crate) fn normalized(relative: &Path) -> PathBuf {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::ParentDir => {
                parts.pop();
            }
            _ => {}
        }
    }
    parts.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relative(given: &str) -> Option<String> {
        relative_to(&[Path::new("/srv/ws")], given).map(|path| path.display().to_string())
    }

    #[test]
    fn paths_inside_the_root() {
        assert_eq!(relative("a/b.txt").as_deref(), Some("a/b.txt"));
        assert_eq!(relative("/srv/ws/a.txt").as_deref(), Some("a.txt"));
        assert_eq!(relative("/srv/ws").as_deref(), Some("."));
        assert_eq!(relative("sub/../f").as_deref(), Some("sub/../f"));
        assert_eq!(relative("..foo").as_deref(), Some("..foo"));
        assert_eq!(relative("foo..").as_deref(), Some("foo.."));
        assert_eq!(relative("~/notes").as_deref(), Some("~/notes"));
        assert_eq!(relative("./a b/ünï.txt").as_deref(), Some("./a b/ünï.txt"));
    }

    #[test]
    fn paths_outside_the_root() {
        for outside in [
            "",
            "a\0b",
            "../x",
            "sub/../../ws2/f",
            "/srv/ws2/f",
            "/srv/ws_evil/f",
            "/srv/ws.bak",
            "/srv/ws/../ws2/f",
            "/proc/self/root/srv/ws/f",
            "/etc/passwd",
        ] {
            assert_eq!(relative(outside), None, "{outside:?}");
        }
    }

    #[test]
    fn normalization_for_comparisons() {
        assert_eq!(normalized(Path::new("./a/../b/./c")), Path::new("b/c"));
    }
}
