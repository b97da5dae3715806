use std::os::unix::fs::symlink;

use super::*;

fn setup() -> (tempfile::TempDir, Workspace) {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    std::fs::create_dir_all(root.join("src/cli")).unwrap();
    std::fs::create_dir_all(root.join("node_modules/pkg")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "x".repeat(1536)).unwrap();
    std::fs::write(root.join("src/cli/args.rs"), "").unwrap();
    std::fs::write(root.join("README.md"), "hi").unwrap();
    std::fs::write(root.join(".env"), "SECRET=1").unwrap();
    symlink("src/lib.rs", root.join("lib-link")).unwrap();
    let ws = Workspace::open(root).unwrap();
    (temp, ws)
}

fn list(ws: &Workspace, args: ListDirArgs) -> String {
    list_dir(ws, args).unwrap()
}

#[test]
fn one_level_sorted_directories_first() {
    let (_temp, ws) = setup();
    assert_eq!(
        list(&ws, ListDirArgs::default()),
        "`.`: 2 directories, 2 files\nnode_modules/  [not descended]\nsrc/\nREADME.md  2 B\nlib-link -> src/lib.rs\n[1 hidden entry; set include_hidden to show them]\n"
    );
}

#[test]
fn recursive_listing_skips_noise_and_respects_depth() {
    let (_temp, ws) = setup();
    let args = ListDirArgs {
        recursive: Some(true),
        include_hidden: Some(true),
        ..ListDirArgs::default()
    };
    assert_eq!(
        list(&ws, args),
        "`.`: 3 directories, 5 files\nnode_modules/  [not descended]\nsrc/\n  cli/\n    args.rs  0 B\n  lib.rs  1.5 KB\n.env  8 B\nREADME.md  2 B\nlib-link -> src/lib.rs\n[not descended into: node_modules; list them directly if needed]\n"
    );
    let shallow = ListDirArgs {
        path: Some("src".into()),
        recursive: Some(true),
        max_depth: Some(1),
        ..ListDirArgs::default()
    };
    assert_eq!(
        list(&ws, shallow),
        "`src`: 1 directory, 1 file\ncli/\nlib.rs  1.5 KB\n"
    );
}

#[test]
fn limits_files_and_missing_directories() {
    let (_temp, ws) = setup();
    let limited = ListDirArgs {
        recursive: Some(true),
        limit: Some(2),
        ..ListDirArgs::default()
    };
    let out = list(&ws, limited);
    assert!(out.contains("[5 more entries not listed; raise limit"), "{out}");
    let error = list_dir(
        &ws,
        ListDirArgs {
            path: Some("README.md".into()),
            ..ListDirArgs::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "`README.md` is a file; use read_file to read it"
    );
    let error = list_dir(
        &ws,
        ListDirArgs {
            path: Some("scr".into()),
            ..ListDirArgs::default()
        },
    )
    .unwrap_err();
    assert_eq!(error.to_string(), "`scr` does not exist; did you mean `src`?");
}

#[test]
fn symlinks_are_never_followed_out_or_around() {
    let (temp, ws) = setup();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    symlink(outside.path(), temp.path().join("out")).unwrap();
    symlink(".", temp.path().join("src/loop")).unwrap();
    let args = ListDirArgs {
        recursive: Some(true),
        max_depth: Some(10),
        ..ListDirArgs::default()
    };
    let out = list(&ws, args);
    assert!(!out.contains("secret.txt"), "{out}");
    assert!(out.contains("loop -> ."), "{out}");
    let error = list_dir(
        &ws,
        ListDirArgs {
            path: Some("out".into()),
            ..ListDirArgs::default()
        },
    )
    .unwrap_err();
    assert!(error.to_string().contains("outside the workspace"), "{error}");
}
