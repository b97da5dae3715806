use std::os::unix::fs::symlink;

use agent_tools_core::output::Content;

use super::*;

fn setup() -> (tempfile::TempDir, Workspace) {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    (temp, ws)
}

fn read(ws: &Workspace, path: &str, offset: Option<u32>, limit: Option<u32>) -> Result<String, String> {
    read_file(
        ws,
        ReadFileArgs {
            path: path.into(),
            offset,
            limit,
        },
        None,
    )
    .map(|output| output.text_content())
    .map_err(|error| error.to_string())
}

#[test]
fn numbered_lines_with_a_header() {
    let (temp, ws) = setup();
    std::fs::write(temp.path().join("a.txt"), "one\ntwo\r\nthree").unwrap();
    assert_eq!(
        read(&ws, "a.txt", None, None).unwrap(),
        "`a.txt`: lines 1-3 of 3\n     1\tone\n     2\ttwo\n     3\tthree\n"
    );
}

#[test]
fn paging_says_how_to_continue() {
    let (temp, ws) = setup();
    let text: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    std::fs::write(temp.path().join("long.txt"), text).unwrap();
    let page = read(&ws, "long.txt", Some(4), Some(3)).unwrap();
    assert_eq!(
        page,
        "`long.txt`: lines 4-6 of 10\n     4\tline 4\n     5\tline 5\n     6\tline 6\n[4 more lines; continue with offset=7]\n"
    );
    let error = read(&ws, "long.txt", Some(11), None).unwrap_err();
    assert_eq!(
        error,
        "offset 11 is past the end of `long.txt`, which has 10 lines"
    );
}

#[test]
fn long_lines_are_cut_and_output_is_capped() {
    let (temp, ws) = setup();
    std::fs::write(temp.path().join("wide.txt"), "x".repeat(2500)).unwrap();
    let page = read(&ws, "wide.txt", None, None).unwrap();
    assert!(page.ends_with("… [line cut: 500 more characters]\n"), "{page}");
    let big: String = (0..3000).map(|_| format!("{}\n", "y".repeat(150))).collect();
    std::fs::write(temp.path().join("big.txt"), big).unwrap();
    let page = read(&ws, "big.txt", None, Some(5000)).unwrap();
    assert!(page.len() <= 256 * 1024 + 200, "{}", page.len());
    assert!(page.contains("[output capped at 256.0 KB]"));
    assert!(page.contains("more lines; continue with offset="));
}

#[test]
fn empty_invalid_utf8_binary_and_images() {
    let (temp, ws) = setup();
    std::fs::write(temp.path().join("empty.txt"), "").unwrap();
    assert_eq!(
        read(&ws, "empty.txt", None, None).unwrap(),
        "`empty.txt` is empty."
    );
    std::fs::write(temp.path().join("latin1.txt"), b"caf\xe9\n").unwrap();
    let page = read(&ws, "latin1.txt", None, None).unwrap();
    assert!(
        page.contains("not valid UTF-8") && page.contains("caf\u{FFFD}"),
        "{page}"
    );
    std::fs::write(temp.path().join("blob.bin"), b"\x7fELF\0\0\0").unwrap();
    let error = read(&ws, "blob.bin", None, None).unwrap_err();
    assert_eq!(
        error,
        "`blob.bin` is a binary file (ELF executable, 7 B); read_file shows text and images only"
    );
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    std::fs::write(temp.path().join("pic.png"), &png).unwrap();
    let output = read_file(
        &ws,
        ReadFileArgs {
            path: "pic.png".into(),
            offset: None,
            limit: None,
        },
        None,
    )
    .unwrap();
    assert_eq!(output.text_content(), "`pic.png`: image/png image, 16 B");
    assert!(matches!(&output.content[1], Content::Image { mime_type, .. } if mime_type == "image/png"));
}

#[test]
fn directories_missing_files_and_escapes() {
    let (temp, ws) = setup();
    std::fs::create_dir(temp.path().join("src")).unwrap();
    std::fs::write(temp.path().join("src/main.rs"), "fn main() {}").unwrap();
    assert_eq!(
        read(&ws, "src", None, None).unwrap_err(),
        "`src` is a directory; use list_dir to see its entries"
    );
    assert_eq!(
        read(&ws, "src/mian.rs", None, None).unwrap_err(),
        "`src/mian.rs` does not exist; did you mean `src/main.rs`?"
    );
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "secret").unwrap();
    symlink(outside.path().join("secret"), temp.path().join("leak")).unwrap();
    let error = read(&ws, "leak", None, None).unwrap_err();
    assert!(error.contains("outside the workspace"), "{error}");
}

#[test]
fn a_line_longer_than_memory_should_hold_is_shown_cut_with_its_length() {
    let (temp, ws) = setup();
    let line = format!("{}é{}", "x".repeat(1999), "y".repeat(5_000_000));
    std::fs::write(temp.path().join("one.txt"), format!("{line}\r\nsecond\n")).unwrap();
    let page = read(&ws, "one.txt", None, None).unwrap();
    let expected_first = format!("{}é… [line cut: 5000000 more characters]", "x".repeat(1999));
    assert_eq!(
        page,
        format!("`one.txt`: lines 1-2 of 2\n     1\t{expected_first}\n     2\tsecond\n")
    );
    let page = read(&ws, "one.txt", Some(2), None).unwrap();
    assert_eq!(page, "`one.txt`: lines 2-2 of 2\n     2\tsecond\n");
}
