use super::*;

fn setup(name: &str, content: &str) -> (tempfile::TempDir, Workspace) {
    let temp = tempfile::tempdir().unwrap();
    std::fs::write(temp.path().join(name), content).unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    (temp, ws)
}

fn text_edit(old: &str, new: &str) -> Edit {
    Edit {
        old_text: Some(old.into()),
        new_text: Some(new.into()),
        ..Edit::default()
    }
}

fn edit(ws: &Workspace, path: &str, edit: Edit) -> Result<String, String> {
    let args = EditFileArgs {
        path: path.into(),
        edit,
        edits: None,
    };
    edit_file(ws, args).map_err(|error| error.to_string())
}

fn content(temp: &tempfile::TempDir, name: &str) -> String {
    std::fs::read_to_string(temp.path().join(name)).unwrap()
}

#[test]
fn exact_text_is_replaced_and_a_diff_returned() {
    let (temp, ws) = setup("a.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    let out = edit(&ws, "a.rs", text_edit("\"hi\"", "\"hello\"")).unwrap();
    assert_eq!(
        out,
        "Edited `a.rs`: replaced 1 occurrence.\n--- a/a.rs\n+++ b/a.rs\n@@ -1,3 +1,3 @@\n fn main() {\n-    println!(\"hi\");\n+    println!(\"hello\");\n }\n"
    );
    assert_eq!(
        content(&temp, "a.rs"),
        "fn main() {\n    println!(\"hello\");\n}\n"
    );
}

#[test]
fn near_misses_point_at_the_closest_text() {
    let (temp, ws) = setup("a.rs", "fn a() {}\nfn main() {\n    println!(\"hello\");\n}\n");
    let error = edit(
        &ws,
        "a.rs",
        text_edit("fn main() {\n  println!(\"helo\");\n}", "x"),
    )
    .unwrap_err();
    assert!(
        error.starts_with("nothing was changed: old_text was not found in `a.rs`. The closest text ("),
        "{error}"
    );
    assert!(
        error.contains("is at lines 2-4:\nfn main() {\n    println!(\"hello\");\n}\n"),
        "{error}"
    );
    assert_eq!(
        content(&temp, "a.rs"),
        "fn a() {}\nfn main() {\n    println!(\"hello\");\n}\n"
    );
}

#[test]
fn several_matches_need_more_context_or_replace_all() {
    let (temp, ws) = setup("a.txt", "x = 1\ny = 2\nx = 1\n");
    let error = edit(&ws, "a.txt", text_edit("x = 1", "x = 3")).unwrap_err();
    assert_eq!(
        error,
        "nothing was changed: old_text occurs 2 times in `a.txt` (at lines 1, 3); include more surrounding text to pick one, or set replace_all to change every one"
    );
    let all = Edit {
        replace_all: Some(true),
        ..text_edit("x = 1", "x = 3")
    };
    assert!(
        edit(&ws, "a.txt", all)
            .unwrap()
            .starts_with("Edited `a.txt`: replaced 2 occurrences.")
    );
    assert_eq!(content(&temp, "a.txt"), "x = 3\ny = 2\nx = 3\n");
}

#[test]
fn overlapping_occurrences_are_ambiguous() {
    // Found by the `edit_file` fuzz target: `aaa` occurs twice in `aaaa` (at 0 and 1),
    // and the first one was replaced as if it were the only one.
    let (temp, ws) = setup("a.txt", "aaaa");
    let error = edit(&ws, "a.txt", text_edit("aaa", "b")).unwrap_err();
    assert_eq!(
        error,
        "nothing was changed: old_text occurs 2 times in `a.txt` (at lines 1, 1); include more surrounding text to pick one, or set replace_all to change every one"
    );
    assert_eq!(content(&temp, "a.txt"), "aaaa");
    let all = Edit {
        replace_all: Some(true),
        ..text_edit("aaa", "b")
    };
    assert!(
        edit(&ws, "a.txt", all)
            .unwrap()
            .starts_with("Edited `a.txt`: replaced 1 occurrence.")
    );
    assert_eq!(content(&temp, "a.txt"), "ba");
}

#[test]
fn crlf_and_the_missing_final_newline_are_kept() {
    let (temp, ws) = setup("w.txt", "one\r\ntwo\r\nthree");
    edit(&ws, "w.txt", text_edit("one\ntwo", "uno\ndos")).unwrap();
    assert_eq!(content(&temp, "w.txt"), "uno\r\ndos\r\nthree");
    let lines = Edit {
        start_line: Some(3),
        new_text: Some("tres\n".into()),
        ..Edit::default()
    };
    edit(&ws, "w.txt", lines).unwrap();
    assert_eq!(content(&temp, "w.txt"), "uno\r\ndos\r\ntres");
}

#[test]
fn line_ranges_and_inserts() {
    let (temp, ws) = setup("l.txt", "1\n2\n3\n4\n");
    let replace = Edit {
        start_line: Some(2),
        end_line: Some(3),
        new_text: Some("two-three".into()),
        ..Edit::default()
    };
    assert!(
        edit(&ws, "l.txt", replace)
            .unwrap()
            .starts_with("Edited `l.txt`: replaced lines 2-3.")
    );
    assert_eq!(content(&temp, "l.txt"), "1\ntwo-three\n4\n");
    let insert = Edit {
        start_line: Some(4),
        insert: Some(true),
        new_text: Some("end".into()),
        ..Edit::default()
    };
    edit(&ws, "l.txt", insert).unwrap();
    assert_eq!(content(&temp, "l.txt"), "1\ntwo-three\n4\nend\n");
    let outside = Edit {
        start_line: Some(9),
        new_text: Some("x".into()),
        ..Edit::default()
    };
    assert_eq!(
        edit(&ws, "l.txt", outside).unwrap_err(),
        "nothing was changed: line 9 is outside `l.txt`, which has 4 lines; use 1 to 4"
    );
}

#[test]
fn several_edits_apply_all_or_nothing() {
    let (temp, ws) = setup("m.txt", "a\nb\nc\n");
    let args = EditFileArgs {
        path: "m.txt".into(),
        edit: Edit::default(),
        edits: Some(vec![text_edit("a", "A"), text_edit("missing", "x")]),
    };
    let error = edit_file(&ws, args).unwrap_err().to_string();
    assert!(
        error.starts_with("nothing was changed (edit 2 of 2): old_text was not found"),
        "{error}"
    );
    assert_eq!(content(&temp, "m.txt"), "a\nb\nc\n");
    let args = EditFileArgs {
        path: "m.txt".into(),
        edit: Edit::default(),
        edits: Some(vec![text_edit("a", "A"), text_edit("c", "C")]),
    };
    assert!(
        edit_file(&ws, args)
            .unwrap()
            .starts_with("Edited `m.txt`: replaced 1 occurrence; replaced 1 occurrence.")
    );
    assert_eq!(content(&temp, "m.txt"), "A\nb\nC\n");
}

#[test]
fn incomplete_or_conflicting_fields_are_explained() {
    let (_temp, ws) = setup("f.txt", "x\n");
    let cases = [
        (Edit::default(), "say what to change"),
        (
            Edit {
                old_text: Some("x".into()),
                ..Edit::default()
            },
            "new_text is missing",
        ),
        (
            Edit {
                old_text: Some("x".into()),
                start_line: Some(1),
                new_text: Some("y".into()),
                ..Edit::default()
            },
            "not both",
        ),
        (text_edit("", "y"), "old_text is empty"),
        (text_edit("x", "x"), "leaves the file as it is"),
    ];
    for (fields, expected) in cases {
        let error = edit(&ws, "f.txt", fields).unwrap_err();
        assert!(error.contains(expected), "{error}");
    }
}
