//! The parts of a workspace that git runs programs from, protected from the write tools by
//! default.
//!
//! Git runs hooks, and the programs its configuration names (`core.fsmonitor`,
//! `core.sshCommand`, `core.pager`, filter and diff drivers, …), as the user, outside any
//! sandbox: a hook the agent writes today runs when the user commits tomorrow. So
//! [`Workspace::open`](super::Workspace::open) protects, unless told otherwise
//! ([`Workspace::protect_git`](super::Workspace::protect_git)):
//!
//! - `**/.git`: every repository's git directory at any depth (`sub/.git` of a nested
//!   repository too) — its hooks, `config`, `config.worktree`, and the git directories of
//!   submodules and worktrees under `.git/modules` and `.git/worktrees` — and a `.git`
//!   *file* (`gitdir: …`, as worktrees and submodules use), which would point git at a
//!   directory the agent filled with hooks of its own. Names are matched without regard
//!   to ASCII case (`.GIT/hooks` on a case-insensitive file system), and both as written
//!   and as resolved, so a symbolic link to `.git/hooks`, or a `.git` that is a link to
//!   some other directory, does not get around it.
//! - The directory `core.hooksPath` names in the workspace repository's own `.git/config`
//!   (as husky and other hook managers set it), and the directory a root `.git` symbolic
//!   link or `gitdir:` file points to, when they lie inside the workspace (read once, when
//!   the workspace opens).
//!
//! What this does not stop, and what does:
//!
//! - `exec`: its sandbox lets commands write the whole workspace, `.git` included. An
//!   agent with `exec` can plant hooks; give it no `exec`, or run git with
//!   `-c core.hooksPath=/dev/null` on a repository an agent has worked in.
//! - A planted bare repository (a directory with `HEAD`, `objects/`, `refs/` and a
//!   `config`): git takes it for a repository when run inside it. Set
//!   `safe.bareRepository = explicit` in your git configuration (git 2.38 or later).
//! - `core.hooksPath` set in the global or system configuration, or through `include`
//!   (only the repository's own `.git/config` is read, once, when the workspace opens),
//!   and the scripts hook managers run from the work tree (`.husky/pre-commit`,
//!   `.pre-commit-config.yaml`, `lefthook.yml`): they are project files. Add them to the
//!   protected list if the agent must not change them.
//! - Other spellings of `.git` that some file systems treat as the same name (HFS+
//!   ignores some Unicode code points, NTFS has 8.3 names like `GIT~1`): only ASCII case
//!   is folded.

use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

use cap_std::fs::Dir;

/// Every git directory (or `.git` file) at any depth.
pub(super) const GIT_DIRS: &str = "**/.git";

/// Most of `.git/config` read: a real one is a few KiB.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The workspace repository's parts found by reading it, relative to the root, that
/// `**/.git` does not already cover: the git directory that a root `.git` symbolic link
/// or `gitdir:` file points to, and the hooks directory `core.hooksPath` names.
pub(super) fn repository_parts(dir: &Dir, root: &Path) -> Vec<PathBuf> {
    let git_dir = pointed_git_dir(dir, root);
    let config = git_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(".git"))
        .join("config");
    let hooks = read_small(dir, &config)
        .and_then(|text| configured_hooks_path(&text))
        .and_then(|value| inside(root, &value));
    git_dir.into_iter().chain(hooks).collect()
}

/// Where the root's `.git` points, when it is a symbolic link or a `gitdir:` file
/// leading to a directory inside the workspace.
fn pointed_git_dir(dir: &Dir, root: &Path) -> Option<PathBuf> {
    let metadata = dir.symlink_metadata(".git").ok()?;
    if metadata.is_symlink() {
        return dir.canonicalize(".git").ok();
    }
    let text = metadata.is_file().then(|| read_small(dir, Path::new(".git")))??;
    let target = text.lines().find_map(|line| line.strip_prefix("gitdir:"))?.trim();
    dir.canonicalize(inside(root, target)?).ok()
}

fn read_small(dir: &Dir, path: &Path) -> Option<String> {
    let file = dir.open(path).ok()?;
    let mut text = String::new();
    file.take(MAX_CONFIG_BYTES).read_to_string(&mut text).ok()?;
    Some(text)
}

/// A path from git's files, relative to the root, if it lies inside the workspace.
/// Relative paths are taken from the root (where git resolves a non-bare repository's
/// `core.hooksPath` and the root's `gitdir:`).
fn inside(root: &Path, value: &str) -> Option<PathBuf> {
    let path = Path::new(value);
    let relative = if path.is_absolute() {
        path.strip_prefix(root).ok()?
    } else if value.starts_with('~') {
        // The home directory: outside the workspace unless the workspace holds it, and
        // then the write tools cannot tell which part it is without it.
        return None;
    } else {
        path
    };
    let stays = relative
        .components()
        .all(|component| !matches!(component, Component::ParentDir));
    stays.then(|| relative.to_path_buf())
}

/// The last `hooksPath` of the `[core]` section in a git config file's text.
fn configured_hooks_path(config: &str) -> Option<String> {
    let mut in_core = false;
    let mut found = None;
    for line in config.lines() {
        let mut line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let Some((section, rest)) = header.split_once(']') else {
                in_core = false;
                continue;
            };
            in_core = section.trim().eq_ignore_ascii_case("core");
            // `[core] hooksPath = x` on one line is valid too.
            line = rest.trim();
        }
        if !in_core {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim().eq_ignore_ascii_case("hookspath") {
            found = Some(config_value(value));
        }
    }
    found.filter(|value| !value.is_empty())
}

/// A config value without its quotes and trailing comment.
fn config_value(raw: &str) -> String {
    let mut value = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => value.extend(chars.next()),
            '#' | ';' if !quoted => break,
            c => value.push(c),
        }
    }
    value.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_path_is_read_from_the_core_section() {
        let config =
            "[core]\n\tbare = false\n\thooksPath = .husky/_\n[remote \"origin\"]\n\thooksPath = no\n";
        assert_eq!(configured_hooks_path(config).as_deref(), Some(".husky/_"));
        let quoted = "[Core]\nHOOKSPATH = \"tools/git hooks\" ; a comment\n";
        assert_eq!(configured_hooks_path(quoted).as_deref(), Some("tools/git hooks"));
        assert_eq!(
            configured_hooks_path("[core] hooksPath = one\n[core]\nhooksPath = two\n").as_deref(),
            Some("two")
        );
        assert_eq!(configured_hooks_path("[user]\nhooksPath = x\n"), None);
        assert_eq!(configured_hooks_path("[core]\nhooksPath =\n"), None);
    }

    #[test]
    fn only_parts_inside_the_workspace_are_kept() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        let dir = Dir::open_ambient_dir(&root, cap_std::ambient_authority()).unwrap();
        let hooks = |value: &str| {
            std::fs::write(root.join(".git/config"), format!("[core]\nhooksPath = {value}\n")).unwrap();
            repository_parts(&dir, &root)
        };
        assert_eq!(hooks(".githooks"), [PathBuf::from(".githooks")]);
        let inside = root.join("tools/hooks");
        assert_eq!(hooks(inside.to_str().unwrap()), [PathBuf::from("tools/hooks")]);
        assert!(hooks("/etc/git-hooks").is_empty());
        assert!(hooks("~/hooks").is_empty());
        assert!(hooks("../elsewhere").is_empty());
    }

    #[test]
    fn a_root_git_link_or_gitdir_file_names_the_real_git_directory() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("store")).unwrap();
        std::fs::write(root.join("store/config"), "[core]\nhooksPath = h\n").unwrap();
        let dir = Dir::open_ambient_dir(&root, cap_std::ambient_authority()).unwrap();
        std::os::unix::fs::symlink("store", root.join(".git")).unwrap();
        assert_eq!(
            repository_parts(&dir, &root),
            [PathBuf::from("store"), PathBuf::from("h")]
        );
        std::fs::remove_file(root.join(".git")).unwrap();
        std::fs::write(root.join(".git"), "gitdir: store\n").unwrap();
        assert_eq!(
            repository_parts(&dir, &root),
            [PathBuf::from("store"), PathBuf::from("h")]
        );
        std::fs::write(root.join(".git"), "gitdir: /elsewhere/.git/worktrees/w\n").unwrap();
        assert!(repository_parts(&dir, &root).is_empty());
    }
}
