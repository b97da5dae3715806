use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use crate::Workspace;
use agent_tools_core::ToolError;
use serde_json::{Value, json};
use tempfile::TempDir;

use super::glob::PathGlob;
use super::walk::FileVisitor as _;
use super::{FileSearchArgs, content, file_search, files};

/// A workspace holding `files` (path, contents).
fn workspace(files: &[(&str, &str)]) -> (TempDir, Workspace) {
    let dir = TempDir::new().expect("temp dir");
    for (path, contents) in files {
        write(dir.path(), path, contents);
    }
    let ws = Workspace::open(dir.path()).expect("workspace");
    (dir, ws)
}

fn write(root: &Path, path: &str, contents: &str) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
    fs::write(path, contents).expect("write");
}

fn try_search(ws: &Workspace, args: Value) -> Result<String, ToolError> {
    let args: FileSearchArgs = serde_json::from_value(args).expect("valid arguments");
    file_search(ws, args)
}

fn search(ws: &Workspace, args: Value) -> String {
    try_search(ws, args).expect("search succeeds")
}

fn error(ws: &Workspace, args: Value) -> String {
    try_search(ws, args).expect_err("search fails").to_string()
}

#[test]
fn content_lists_matching_lines_by_file_then_line() {
    let (_dir, ws) = workspace(&[
        ("src/b.rs", "fn b() {}\nlet needle = 1;\n"),
        ("a.txt", "needle here\nnothing\nneedle again\n"),
        ("c.md", "no match\n"),
    ]);
    let out = search(&ws, json!({"pattern": "needle"}));
    assert_eq!(
        out,
        "a.txt:1: needle here\na.txt:3: needle again\nsrc/b.rs:2: let needle = 1;\n\n\
         3 matches in 2 files"
    );
}

#[test]
fn files_mode_matches_names_or_relative_paths() {
    let (_dir, ws) = workspace(&[
        ("main.rs", ""),
        ("src/lib.rs", ""),
        ("src/deep/mod.rs", ""),
        ("tests/test_x.py", ""),
        ("README.md", ""),
    ]);
    let names = search(&ws, json!({"pattern": "*.rs", "mode": "files"}));
    assert_eq!(names, "main.rs\nsrc/deep/mod.rs\nsrc/lib.rs\n\n3 files");
    let paths = search(&ws, json!({"pattern": "src/*.rs", "mode": "files"}));
    assert_eq!(paths, "src/lib.rs\n\n1 file");
    let any_depth = search(&ws, json!({"pattern": "**/test_*.py", "mode": "files"}));
    assert_eq!(any_depth, "tests/test_x.py\n\n1 file");
}

#[test]
fn glob_filters_the_searched_files() {
    let (_dir, ws) = workspace(&[("a.rs", "hit\n"), ("a.ts", "hit\n"), ("src/x/b.ts", "hit\n")]);
    let by_name = search(&ws, json!({"pattern": "hit", "glob": "*.ts"}));
    assert_eq!(by_name, "a.ts:1: hit\nsrc/x/b.ts:1: hit\n\n2 matches in 2 files");
    let by_path = search(
        &ws,
        json!({"pattern": "hit", "glob": "src/**/*.ts", "mode": "content"}),
    );
    assert_eq!(by_path, "src/x/b.ts:1: hit\n\n1 match in 1 file");
}

#[test]
fn literal_searches_plain_text() {
    let (_dir, ws) = workspace(&[("f.txt", "abc\na.c\n")]);
    assert!(search(&ws, json!({"pattern": "a.c"})).starts_with("f.txt:1: abc\nf.txt:2: a.c\n"));
    let literal = search(&ws, json!({"pattern": "a.c", "literal": true}));
    assert!(literal.starts_with("f.txt:2: a.c\n\n1 match"), "{literal}");
}

#[test]
fn case_is_smart_unless_set() {
    let (_dir, ws) = workspace(&[("f.txt", "Foo\nfoo\n")]);
    assert!(search(&ws, json!({"pattern": "foo"})).ends_with("2 matches in 1 file"));
    assert!(search(&ws, json!({"pattern": "Foo"})).ends_with("1 match in 1 file"));
    let insensitive = search(&ws, json!({"pattern": "Foo", "case_sensitive": false}));
    assert!(insensitive.ends_with("2 matches in 1 file"));
    let sensitive = search(&ws, json!({"pattern": "foo", "case_sensitive": true}));
    assert_eq!(sensitive, "f.txt:2: foo\n\n1 match in 1 file");
}

#[test]
fn context_lines_are_marked_and_groups_separated() {
    let lines: String = (1..=12)
        .map(|n| {
            if n == 3 || n == 10 {
                "hit\n".to_owned()
            } else {
                format!("l{n}\n")
            }
        })
        .collect();
    let (_dir, ws) = workspace(&[("a.txt", &lines), ("b.txt", "hit\n")]);
    let out = search(&ws, json!({"pattern": "hit", "context_lines": 1}));
    let expected = "a.txt-2- l2\na.txt:3: hit\na.txt-4- l4\n--\na.txt-9- l9\na.txt:10: hit\na.txt-11- l11\n\
                    --\nb.txt:1: hit\n\n3 matches in 2 files";
    assert_eq!(out, expected);
}

#[test]
fn max_results_caps_the_listing_and_counts_everything() {
    let many: String = "hit\n".repeat(1500);
    let files: Vec<(String, &str)> = (0..3).map(|n| (format!("f{n}.txt"), many.as_str())).collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(path, text)| (path.as_str(), *text)).collect();
    let (_dir, ws) = workspace(&files);
    let out = search(&ws, json!({"pattern": "hit", "max_results": 2}));
    assert_eq!(
        out,
        "f0.txt:1: hit\nf0.txt:2: hit\n\nshowing 2 of 4,500 matches in 3 files; \
         narrow the pattern, `path` or `glob`, or raise max_results"
    );
    let files = search(
        &ws,
        json!({"pattern": "*.txt", "mode": "files", "max_results": 1}),
    );
    assert!(files.starts_with("f0.txt\n\nshowing 1 of 3 files;"), "{files}");
}

#[test]
fn cap_keeps_the_context_after_the_last_shown_match() {
    let (_dir, ws) = workspace(&[("a.txt", "hit\nx\ny\nhit\n")]);
    let out = search(
        &ws,
        json!({"pattern": "hit", "context_lines": 1, "max_results": 1}),
    );
    assert!(
        out.starts_with("a.txt:1: hit\na.txt-2- x\n\nshowing 1 of 2 matches"),
        "{out}"
    );
}

#[test]
fn hidden_files_are_searched_only_on_request_and_git_never() {
    let (_dir, ws) = workspace(&[
        (".env", "hit\n"),
        (".cfg/x", "hit\n"),
        (".git/HEAD", "hit\n"),
        ("v", "hit\n"),
    ]);
    assert!(search(&ws, json!({"pattern": "hit"})).ends_with("1 match in 1 file"));
    let hidden = search(&ws, json!({"pattern": "hit", "include_hidden": true}));
    assert!(
        hidden.starts_with(".cfg/x:1: hit\n.env:1: hit\nv:1: hit\n"),
        "{hidden}"
    );
    assert!(!hidden.contains(".git/"), "{hidden}");
}

#[test]
fn gitignore_and_ignore_files_are_respected_unless_disabled() {
    let (_dir, ws) = workspace(&[
        (".gitignore", "target/\n*.log\n"),
        (".ignore", "secret.txt\n"),
        ("target/out.rs", "hit\n"),
        ("run.log", "hit\n"),
        ("secret.txt", "hit\n"),
        ("src/kept.rs", "hit\n"),
    ]);
    assert_eq!(
        search(&ws, json!({"pattern": "hit"})),
        "src/kept.rs:1: hit\n\n1 match in 1 file"
    );
    let all = search(&ws, json!({"pattern": "hit", "respect_gitignore": false}));
    assert!(all.ends_with("4 matches in 4 files"), "{all}");
    let listed = search(&ws, json!({"pattern": "*", "mode": "files"}));
    assert_eq!(listed, "src/kept.rs\n\n1 file");
}

#[test]
fn ignore_files_of_the_directories_above_the_start_apply() {
    let (_dir, ws) = workspace(&[
        (".gitignore", "generated/\n"),
        ("crates/a/generated/x.rs", "hit\n"),
        ("crates/a/src/y.rs", "hit\n"),
    ]);
    assert_eq!(
        search(&ws, json!({"pattern": "hit", "path": "crates"})),
        "crates/a/src/y.rs:1: hit\n\n1 match in 1 file"
    );
}

#[test]
fn binary_files_are_skipped() {
    let (dir, ws) = workspace(&[("text.txt", "hit\n")]);
    fs::write(dir.path().join("blob.bin"), b"hit\0\x01\x02hit\n").expect("write");
    // The NUL byte comes after the first buffer's matches were reported.
    fs::write(dir.path().join("late.bin"), "hit\n".repeat(50_000) + "\0").expect("write");
    assert_eq!(
        search(&ws, json!({"pattern": "hit"})),
        "text.txt:1: hit\n\n1 match in 1 file"
    );
}

#[test]
fn invalid_regex_explains_and_suggests_literal() {
    let (_dir, ws) = workspace(&[("f.txt", "(\n")]);
    let message = error(&ws, json!({"pattern": "foo("}));
    assert!(message.starts_with("invalid regex:"), "{message}");
    assert!(message.contains("unclosed group"), "{message}");
    assert!(message.contains("`literal: true`"), "{message}");
    assert!(search(&ws, json!({"pattern": "(", "literal": true})).ends_with("1 match in 1 file"));
    assert!(error(&ws, json!({"pattern": "[", "mode": "files"})).starts_with("invalid glob:"));
}

#[test]
fn paths_outside_or_missing_are_refused() {
    let (_dir, ws) = workspace(&[("f.txt", "x\n")]);
    let outside = error(&ws, json!({"pattern": "x", "path": "../"}));
    assert!(outside.contains("outside the workspace"), "{outside}");
    assert!(error(&ws, json!({"pattern": "x", "path": "/etc"})).contains("outside the workspace"));
    assert!(error(&ws, json!({"pattern": "x", "path": "nope"})).contains("`nope` does not exist"));
}

#[test]
fn symlinks_out_of_the_workspace_are_never_searched() {
    let outside = TempDir::new().expect("temp dir");
    write(outside.path(), "secret.txt", "TOPSECRET_4711\n");
    let (dir, ws) = workspace(&[("inside.txt", "TOPSECRET_4711 is not here\n")]);
    symlink(outside.path(), dir.path().join("linked_dir")).expect("symlink");
    symlink(outside.path().join("secret.txt"), dir.path().join("linked.txt")).expect("symlink");
    let all = json!({"pattern": "TOPSECRET", "include_hidden": true, "respect_gitignore": false});
    assert_eq!(
        search(&ws, all),
        "inside.txt:1: TOPSECRET_4711 is not here\n\n1 match in 1 file"
    );
    let files = search(&ws, json!({"pattern": "secret*", "mode": "files"}));
    assert!(files.starts_with("no files match"), "{files}");
    let through_link = error(&ws, json!({"pattern": "TOPSECRET", "path": "linked_dir"}));
    assert!(through_link.contains("outside the workspace"), "{through_link}");
    assert!(error(&ws, json!({"pattern": "T", "path": "linked.txt"})).contains("outside the workspace"));
}

#[test]
fn a_proposed_path_through_a_link_out_is_not_read() {
    // As if `dir` had been swapped for a link out after the walk listed `dir/secret.txt`.
    let outside = TempDir::new().expect("temp dir");
    write(outside.path(), "secret.txt", "TOPSECRET_4711\n");
    let (dir, ws) = workspace(&[]);
    symlink(outside.path(), dir.path().join("dir")).expect("symlink");
    let proposed = Path::new("dir/secret.txt");
    let query = content::Query::new("TOPSECRET", None, None, 0).expect("query");
    let mut searcher = content::Visitor::new(&ws, &query, 10);
    searcher.visit(proposed);
    let (found, totals, _) = searcher.into_found().into_parts();
    assert!(found.is_empty() && totals.results == 0 && totals.unreadable == 1);
    let pattern = PathGlob::new("*").expect("glob");
    let mut lister = files::Visitor::new(&ws, &pattern, 10);
    lister.visit(proposed);
    let (found, totals, _) = lister.into_found().into_parts();
    assert!(found.is_empty() && totals.results == 0 && totals.unreadable == 1);
}

#[test]
fn symlink_cycles_terminate() {
    let (dir, ws) = workspace(&[("a/f.txt", "hit\n")]);
    symlink(dir.path().join("a"), dir.path().join("a/loop")).expect("symlink");
    symlink("..", dir.path().join("a/up")).expect("symlink");
    assert_eq!(
        search(&ws, json!({"pattern": "hit"})),
        "a/f.txt:1: hit\n\n1 match in 1 file"
    );
    assert_eq!(
        search(&ws, json!({"pattern": "*", "mode": "files"})),
        "a/f.txt\n\n1 file"
    );
}

#[test]
fn output_is_sorted_and_deterministic() {
    let files: Vec<(String, String)> = (0..60)
        .map(|n| {
            (
                format!("d{}/f{:02}.txt", n % 7, (n * 37) % 60),
                format!("x\nhit {n}\n"),
            )
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    let (_dir, ws) = workspace(&files);
    let args = json!({"pattern": "hit", "max_results": 25});
    let first = search(&ws, args.clone());
    let paths: Vec<&str> = first
        .lines()
        .take(25)
        .map(|line| line.split(':').next().unwrap_or(""))
        .collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    assert!(first.contains("showing 25 of 60 matches in 60 files"), "{first}");
    for _ in 0..5 {
        assert_eq!(search(&ws, args.clone()), first);
    }
}

#[test]
fn no_match_is_a_sentence_and_a_file_path_searches_that_file() {
    let (_dir, ws) = workspace(&[("src/a.txt", "alpha\n"), ("src/b.txt", "alpha\n")]);
    assert_eq!(
        search(&ws, json!({"pattern": "zeta", "path": "src"})),
        "no matches for `zeta` in `src`"
    );
    assert_eq!(
        search(&ws, json!({"pattern": "zeta"})),
        "no matches for `zeta` in the workspace"
    );
    let one = search(&ws, json!({"pattern": "alpha", "path": "./src/b.txt"}));
    assert_eq!(one, "src/b.txt:1: alpha\n\n1 match in 1 file");
}

#[test]
fn long_lines_are_clipped() {
    let long = format!("hit{}\n", "é".repeat(600));
    let (_dir, ws) = workspace(&[("f.txt", &long)]);
    let out = search(&ws, json!({"pattern": "hit"}));
    let line = out.lines().next().unwrap_or("");
    assert!(
        line.ends_with(&format!("{}…[+103 chars]", "é".repeat(497))),
        "{line}"
    );
}

#[test]
fn files_the_workspace_cannot_open_are_counted() {
    use std::os::unix::ffi::OsStrExt as _;
    let (dir, ws) = workspace(&[("ok.txt", "hit\n")]);
    let odd = std::ffi::OsStr::from_bytes(b"odd\xff.txt");
    fs::write(dir.path().join(odd), "hit\n").expect("write");
    let out = search(&ws, json!({"pattern": "hit"}));
    assert_eq!(
        out,
        "ok.txt:1: hit\n\n1 match in 1 file\n1 file could not be read"
    );
}

#[test]
fn a_file_with_a_line_too_long_to_hold_is_skipped_and_named() {
    let long = format!("{}needle\n", "x".repeat(super::content::MAX_LINE_BYTES + 1));
    let (_dir, ws) = workspace(&[("a.txt", "needle\n"), ("huge.min.js", &long)]);
    let out = search(&ws, json!({"pattern": "needle"}));
    assert_eq!(
        out,
        "a.txt:1: needle\n\n1 match in 1 file\n1 file not searched: a line is longer than 4 MiB \
         (`huge.min.js`); read_file shows such files in part"
    );
    let (_dir, ws) = workspace(
        &(0..7)
            .map(|n| (["z", "y", "x", "w", "v", "u", "t"][n], long.as_str()))
            .collect::<Vec<_>>(),
    );
    let out = search(&ws, json!({"pattern": "nothing"}));
    assert_eq!(
        out,
        "no matches for `nothing` in the workspace\n7 files not searched: a line is longer than 4 MiB \
         (`t`, `u`, `v`, `w`, `x`, and 2 more); read_file shows such files in part"
    );
}
