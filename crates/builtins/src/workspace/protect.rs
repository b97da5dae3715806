//! Which parts of the workspace the write tools refuse: patterns of paths, each with the
//! reason a model is told.
//!
//! A pattern is a path relative to the root whose components may be globs: `*` and `?`
//! within a component, `**` for any number of components (`**/.git` is a `.git` at any
//! depth). A path is protected when it, or a directory it lies in, matches a pattern, so
//! `secrets` protects everything below `secrets`. Names are compared without regard to
//! ASCII case: on a case-insensitive file system `.GIT/hooks` *is* `.git/hooks`, and on
//! a case-sensitive one refusing it costs nothing.
//!
//! What is matched is every directory a write passes through, both as the model wrote
//! it and as it resolves (symbolic links inside the workspace followed, `..` applied
//! where the kernel applies it); see `Workspace::check_unprotected`.

use std::ffi::OsStr;
use std::path::{Component, Path};

/// Why a part of the workspace is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reason {
    /// The application asked for it ([`Workspace::protect`](super::Workspace::protect)).
    Asked,
    /// Git runs what is there outside any sandbox (see `git.rs`).
    Git,
}

/// One protected pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Protection {
    /// Its components.
    parts: Vec<Part>,
    pub(super) reason: Reason,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// `**`: any number of components, none included.
    AnyDepth,
    /// One component, possibly with `*` and `?`, lowercased.
    Name(Vec<u8>),
}

impl Protection {
    /// The pattern `pattern` (relative; `.` and `..` are applied, a leading `/` ignored).
    pub(super) fn new(pattern: &Path, reason: Reason) -> Self {
        let mut parts = Vec::new();
        for component in pattern.components() {
            match component {
                Component::Normal(name) if name == "**" => parts.push(Part::AnyDepth),
                Component::Normal(name) => parts.push(Part::Name(lowercase(name))),
                Component::ParentDir => {
                    parts.pop();
                }
                _ => {}
            }
        }
        Self { parts, reason }
    }

    /// Whether `path` (normalized, relative to the root) matches the pattern exactly.
    /// An empty pattern (the root itself) matches only the root.
    pub(super) fn matches(&self, path: &Path) -> bool {
        let names: Vec<Vec<u8>> = path
            .components()
            .filter_map(|component| match component {
                Component::Normal(name) => Some(lowercase(name)),
                _ => None,
            })
            .collect();
        matches_parts(&self.parts, &names)
    }
}

fn lowercase(name: &OsStr) -> Vec<u8> {
    name.as_encoded_bytes().to_ascii_lowercase()
}

/// Whether the components `names` match the pattern `parts`.
fn matches_parts(parts: &[Part], names: &[Vec<u8>]) -> bool {
    match parts.split_first() {
        None => names.is_empty(),
        Some((Part::AnyDepth, rest)) => (0..=names.len()).any(|skip| matches_parts(rest, &names[skip..])),
        Some((Part::Name(glob), rest)) => names
            .split_first()
            .is_some_and(|(name, others)| matches_name(glob, name) && matches_parts(rest, others)),
    }
}

/// Whether one component matches a glob of `*` (any run of bytes) and `?` (one byte),
/// by the linear two-pointer method: on a mismatch, the last `*` takes one more byte.
fn matches_name(glob: &[u8], name: &[u8]) -> bool {
    let (mut g, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match glob.get(g) {
            Some(b'*') => {
                star = Some((g, n));
                g += 1;
            }
            Some(&c) if c == b'?' || c == name[n] => {
                g += 1;
                n += 1;
            }
            _ => match star {
                Some((star_g, star_n)) => {
                    g = star_g + 1;
                    n = star_n + 1;
                    star = Some((star_g, star_n + 1));
                }
                None => return false,
            },
        }
    }
    glob[g..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, path: &str) -> bool {
        Protection::new(Path::new(pattern), Reason::Asked).matches(Path::new(path))
    }

    #[test]
    fn literal_paths_match_themselves_in_any_ascii_case() {
        assert!(matches("memory", "memory"));
        assert!(matches("memory", "Memory"));
        assert!(matches("a/b", "A/B"));
        assert!(
            !matches("memory", "memory/db"),
            "below is the caller's prefix walk"
        );
        assert!(!matches("memory", "memory-notes"));
        assert!(matches("./x/../memory", "memory"));
    }

    #[test]
    fn globs_within_and_across_components() {
        assert!(matches("**/.git", ".git"));
        assert!(matches("**/.git", "a/b/.GIT"));
        assert!(!matches("**/.git", "a/.github"));
        assert!(matches("*.pem", "key.pem"));
        assert!(matches("**/*.pem", "deep/er/key.PEM"));
        assert!(matches("k?y.*", "key.txt"));
        assert!(!matches("*.pem", "dir/key.pem"));
        assert!(matches("a/**", "a"));
        assert!(matches("a/**/z", "a/b/c/z"));
        assert!(matches("*a*b*", "xxaxxbxx"));
        assert!(!matches("*a*b", "xxaxxbxx"));
    }
}
