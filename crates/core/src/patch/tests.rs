use super::*;

fn context(text: &str) -> HunkLine {
    HunkLine::Context(text.to_owned())
}
fn remove(text: &str) -> HunkLine {
    HunkLine::Remove(text.to_owned())
}
fn add(text: &str) -> HunkLine {
    HunkLine::Add(text.to_owned())
}

#[test]
fn every_kind_of_change_parses() {
    let patch = parse(
        "*** Begin Patch\n\
         *** Add File: path/add.py\n\
         +abc\n\
         +def\n\
         *** Delete File: path/delete.py\n\
         *** Update File: path/update.py\n\
         *** Move to: path/update2.py\n\
         @@ def f():\n\
         -    pass\n\
         +    return 123\n\
         *** End Patch",
    )
    .unwrap();
    assert_eq!(
        patch.changes,
        vec![
            FileChange::Add {
                path: "path/add.py".into(),
                contents: "abc\ndef\n".into()
            },
            FileChange::Delete {
                path: "path/delete.py".into()
            },
            FileChange::Update {
                path: "path/update.py".into(),
                move_to: Some("path/update2.py".into()),
                hunks: vec![Hunk {
                    context: vec!["def f():".into()],
                    lines: vec![remove("    pass"), add("    return 123")],
                    end_of_file: false,
                    line: 8,
                }],
            },
        ]
    );
    assert_eq!(
        patch.paths().collect::<Vec<_>>(),
        [
            "path/add.py",
            "path/delete.py",
            "path/update.py",
            "path/update2.py"
        ]
    );
}

#[test]
fn hunks_with_several_contexts_end_of_file_and_blank_lines() {
    let patch = parse(
        "*** Begin Patch\n\
         *** Update File: a.py\n\
         @@ class A\n\
         @@     def f(self):\n\
         \x20x = 1\n\
         \n\
         -y = 2\n\
         +y = 3\n\
         \n\
         @@\n\
         \x20last\n\
         +after\n\
         *** End of File\n\
         *** End Patch\n",
    )
    .unwrap();
    let FileChange::Update { hunks, .. } = &patch.changes[0] else {
        panic!("{patch:?}")
    };
    assert_eq!(hunks.len(), 2);
    assert_eq!(hunks[0].context, ["class A", "    def f(self):"]);
    // An empty line inside a hunk is an empty context line; the one before `@@` too.
    assert_eq!(
        hunks[0].lines,
        [
            context("x = 1"),
            context(""),
            remove("y = 2"),
            add("y = 3"),
            context("")
        ]
    );
    assert_eq!(hunks[1].lines, [context("last"), add("after")]);
    assert!(hunks[1].end_of_file && !hunks[0].end_of_file);
    assert_eq!(
        hunks[0].old_lines().collect::<Vec<_>>(),
        ["x = 1", "", "y = 2", ""]
    );
    assert_eq!(
        hunks[0].new_lines().collect::<Vec<_>>(),
        ["x = 1", "", "y = 3", ""]
    );
}

#[test]
fn the_first_hunk_needs_no_marker_and_range_headers_are_bare_markers() {
    let patch = parse("*** Begin Patch\n*** Update File: f\n import foo\n+bar\n*** End Patch").unwrap();
    let FileChange::Update { hunks, .. } = &patch.changes[0] else {
        panic!()
    };
    assert_eq!(hunks[0].lines, [context("import foo"), add("bar")]);
    let patch =
        parse("*** Begin Patch\n*** Update File: f\n@@ -1,2 +1,3 @@ fn x\n a\n+b\n*** End Patch").unwrap();
    let FileChange::Update { hunks, .. } = &patch.changes[0] else {
        panic!()
    };
    assert!(hunks[0].context.is_empty(), "{hunks:?}");
    // `@@ ` followed by spaces only is a bare marker, not a search for a blank line.
    let patch = parse("*** Begin Patch\n*** Update File: f\n@@   \n a\n*** End Patch").unwrap();
    let FileChange::Update { hunks, .. } = &patch.changes[0] else {
        panic!()
    };
    assert!(hunks[0].context.is_empty());
}

#[test]
fn padded_markers_heredocs_and_crlf_are_tolerated() {
    let expected = vec![FileChange::Update {
        path: "file.txt".into(),
        move_to: None,
        hunks: vec![Hunk {
            context: vec![],
            lines: vec![remove("one"), add("two")],
            end_of_file: false,
            line: 3,
        }],
    }];
    for text in [
        " *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch ",
        "*** Begin Patch \n  *** Update File:   file.txt  \n@@\n-one\n+two\n *** End Patch\n",
        "*** Begin Patch\r\n*** Update File: file.txt\r\n@@\r\n-one\r\n+two\r\n*** End Patch\r\n",
    ] {
        assert_eq!(parse(text).unwrap().changes, expected, "{text:?}");
    }
    for opening in ["<<EOF", "<<'EOF'", "<<\"EOF\""] {
        let text = format!(
            "{opening}\n*** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch\nEOF\n"
        );
        let mut changes = parse(&text).unwrap().changes;
        let FileChange::Update { hunks, .. } = &mut changes[0] else {
            panic!()
        };
        assert_eq!(hunks[0].line, 4, "the heredoc line counts");
        hunks[0].line = 3;
        assert_eq!(changes, expected);
    }
    let error = parse("<<\"EOF'\n*** Begin Patch\n*** End Patch\nEOF").unwrap_err();
    assert_eq!(error.line(), 1);
}

#[test]
fn lines_inside_a_hunk_are_never_markers() {
    let patch = parse(
        "*** Begin Patch\n*** Update File: doc.md\n@@\n *** End Patch\n-  *** Add File: x\n+*** Delete File: y\n*** End Patch",
    )
    .unwrap();
    assert_eq!(patch.changes.len(), 1);
    let FileChange::Update { hunks, .. } = &patch.changes[0] else {
        panic!()
    };
    assert_eq!(
        hunks[0].lines,
        [
            context("*** End Patch"),
            remove("  *** Add File: x"),
            add("*** Delete File: y")
        ]
    );
}

#[test]
fn a_rename_needs_no_hunks_and_an_empty_patch_parses() {
    let patch = parse("*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch").unwrap();
    assert_eq!(patch.paths().collect::<Vec<_>>(), ["a", "b"]);
    assert!(parse("*** Begin Patch\n*** End Patch").unwrap().is_empty());
}

#[test]
fn errors_name_the_line_and_what_was_expected() {
    let cases: &[(&str, usize, &str)] = &[
        ("", 1, "the patch is empty; expected `*** Begin Patch`"),
        (
            "bad",
            1,
            "expected `*** Begin Patch` as the first line, found `bad`",
        ),
        (
            "\n\n*** Begin Patch\n*** Add File: a\n+x",
            5,
            "expected `*** End Patch` as the last line, found `+x`",
        ),
        (
            "*** Begin Patch\n*** Change File: a\n*** End Patch",
            2,
            "expected a file header (`*** Add File: PATH`, `*** Delete File: PATH` or `*** Update File: PATH`), found `*** Change File: a`",
        ),
        (
            "*** Begin Patch\n*** Update File: test.py\n*** End Patch",
            2,
            "`*** Update File: test.py` has no hunks; expected `@@` and lines starting with ' ', '-' or '+' (or `*** Move to: NEW_PATH` to rename it)",
        ),
        (
            "*** Begin Patch\n*** Update File: f\n@@\nbad\n*** End Patch",
            4,
            "expected a hunk line starting with ' ' (context), '-' (removed) or '+' (added), found `bad`",
        ),
        (
            "*** Begin Patch\n*** Update File: f\n@@\n*** End of File\n*** End Patch",
            4,
            "`*** End of File` ends a hunk that has no lines",
        ),
        (
            "*** Begin Patch\n*** Update File: f\n@@\n a\n*** End of File\n b\n*** End Patch",
            6,
            "expected `@@` to start the next hunk, found ` b`",
        ),
        (
            "*** Begin Patch\n*** Add File:   \n*** End Patch",
            2,
            "`*** Add File:` names no path; expected `*** Add File: PATH`",
        ),
    ];
    for (text, line, message) in cases {
        let error = parse(text).unwrap_err();
        assert_eq!((error.line(), error.message()), (*line, *message), "{text:?}");
        assert!(
            error
                .to_string()
                .starts_with(&format!("invalid patch at line {line}: "))
        );
    }
}

#[test]
fn the_canonical_form_reads_back_as_the_same_patch() {
    let text = "*** Begin Patch\n\
                *** Add File: a b/c.txt\n\
                +one\n\
                +\n\
                *** Add File: empty\n\
                *** Delete File: d\n\
                *** Update File: u\n\
                *** Move to: v\n\
                @@ class A\n\
                @@ def f\n\
                \x20ctx\n\
                \n\
                -old\n\
                +new\n\
                @@\n\
                \x20tail\n\
                *** End of File\n\
                *** End Patch\n";
    let patch = parse(text).unwrap();
    let shown = patch.to_string();
    let again = parse(&shown).unwrap();
    assert_eq!(again, patch);
    assert_eq!(again.to_string(), shown);
}
