use super::*;

fn workspace() -> (tempfile::TempDir, Workspace) {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    (temp, ws)
}

fn patch(sections: &str) -> ApplyPatchArgs {
    ApplyPatchArgs::new(format!("*** Begin Patch\n{sections}*** End Patch\n"))
}

#[test]
fn the_result_sums_up_each_section_and_shows_the_diffs() {
    let (temp, ws) = workspace();
    std::fs::write(temp.path().join("a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(temp.path().join("old.txt"), "moved\n").unwrap();
    std::fs::write(temp.path().join("gone.txt"), "bye\n").unwrap();
    let out = apply_patch(
        &ws,
        patch(
            "*** Add File: new/b.txt\n+hello\n\
             *** Update File: a.txt\n@@\n one\n-two\n+three\n\
             *** Update File: old.txt\n*** Move to: moved/new.txt\n\
             *** Delete File: gone.txt\n",
        ),
    )
    .unwrap();
    assert_eq!(
        out,
        "Applied the patch: 4 files changed.\n\
         A new/b.txt\nM a.txt\nR old.txt -> moved/new.txt\nD gone.txt\n\n\
         --- a/new/b.txt\n+++ b/new/b.txt\n@@ -0,0 +1 @@\n+hello\n\
         --- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n\
         (`old.txt` renamed to `moved/new.txt` unchanged)\n\
         --- a/gone.txt\n+++ b/gone.txt\n@@ -1 +0,0 @@\n-bye\n"
    );
    assert_eq!(
        std::fs::read_to_string(temp.path().join("moved/new.txt")).unwrap(),
        "moved\n"
    );
    assert!(!temp.path().join("old.txt").exists() && !temp.path().join("gone.txt").exists());
}

#[test]
fn a_preview_shows_the_diff_and_writes_nothing() {
    let (temp, ws) = workspace();
    std::fs::write(temp.path().join("a.txt"), "one\n").unwrap();
    let args = patch("*** Update File: a.txt\n@@\n-one\n+two\n*** Add File: b.txt\n+b\n");
    let preview = preview_apply_patch(&ws, &args);
    assert!(preview.starts_with("M a.txt\nA b.txt\n"), "{preview}");
    assert!(preview.contains("-one\n+two\n"), "{preview}");
    assert_eq!(
        std::fs::read_to_string(temp.path().join("a.txt")).unwrap(),
        "one\n"
    );
    assert!(!temp.path().join("b.txt").exists());
    let failing = preview_apply_patch(&ws, &patch("*** Delete File: missing.txt\n"));
    assert_eq!(
        failing,
        "The patch would fail: nothing was changed: cannot delete `missing.txt`: it does not exist"
    );
}

#[test]
fn changes_apply_in_order_to_the_files_as_the_patch_leaves_them() {
    let (temp, ws) = workspace();
    apply_patch(
        &ws,
        patch("*** Add File: a.txt\n+one\n*** Update File: a.txt\n@@\n-one\n+two\n*** Update File: a.txt\n*** Move to: b.txt\n"),
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(temp.path().join("b.txt")).unwrap(),
        "two\n"
    );
    assert!(!temp.path().join("a.txt").exists());
    let error = apply_patch(
        &ws,
        patch("*** Delete File: b.txt\n*** Update File: b.txt\n@@\n-two\n+x\n"),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "nothing was changed: cannot update `b.txt`: it does not exist (an earlier section of the patch deletes or moves it)"
    );
    assert!(temp.path().join("b.txt").exists());
}

#[test]
fn a_link_or_a_climb_on_the_way_is_refused() {
    let (temp, ws) = workspace();
    std::fs::create_dir(temp.path().join("real")).unwrap();
    std::fs::write(temp.path().join("real/f.txt"), "x\n").unwrap();
    std::os::unix::fs::symlink("real", temp.path().join("alias")).unwrap();
    let error = apply_patch(&ws, patch("*** Update File: alias/f.txt\n@@\n-x\n+y\n")).unwrap_err();
    assert!(
        error.to_string().contains("has a symbolic link on the way"),
        "{error}"
    );
    let error = apply_patch(&ws, patch("*** Add File: real/../g.txt\n+g\n")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "nothing was changed: `real/../g.txt` has a `..` in it; name the file by its path from the workspace root"
    );
    assert_eq!(
        std::fs::read_to_string(temp.path().join("real/f.txt")).unwrap(),
        "x\n"
    );
    assert!(!temp.path().join("g.txt").exists());
}
