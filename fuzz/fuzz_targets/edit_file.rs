//! `edit_file` text matching on arbitrary files and old/new text.
//!
//! The input gives a file (arbitrary bytes, mostly UTF-8 text with LF, CRLF and stray CR
//! line breaks) and one to three text edits whose `old_text` is often cut from the file
//! itself. The real tool function (`builtins::fs::__fuzz::edit_file`, what the
//! registry's `edit_file` tool runs) applies them to a file in a temporary workspace.
//!
//! Checked, against a model written here from the tool's documentation:
//! - success only when every edit's `old_text` occurs exactly once (counting overlapping
//!   occurrences: `aa` occurs twice in `aaa`) or `replace_all` is set, and the result
//!   differs from the file; the file then equals the expected splice, with the edit's
//!   line breaks converted to the file's (CRLF files stay CRLF);
//! - on any error the file is byte-identical to before;
//! - a single edit is undone by the reverse edit (`new_text` → `old_text`) when the new
//!   text occurs once in the result and the file's line-break style did not change:
//!   the file is restored exactly.

#![no_main]

use std::fs;
use std::path::Path;

use arbitrary::{Result, Unstructured};
use builtins::fs::__fuzz::edit_file;
use builtins::fs::EditFileArgs;
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use builtins::Workspace;

const FILE: &str = "dir/file.txt";

/// One text edit: `old` → `new`.
#[derive(Debug, Clone)]
struct TextEdit {
    old: String,
    new: String,
    all: bool,
}

/// A piece of `text` cut at character boundaries chosen by the input.
fn slice_of(u: &mut Unstructured<'_>, text: &str) -> Result<String> {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(at, _)| at)
        .chain([text.len()])
        .collect();
    let start = *u.choose(&bounds)?;
    let len = u.int_in_range(0..=8usize)?;
    let end = bounds
        .iter()
        .copied()
        .filter(|&at| at >= start)
        .nth(len)
        .unwrap_or(text.len());
    Ok(text[start..end].to_owned())
}

fn some_text(u: &mut Unstructured<'_>, file: &str) -> Result<String> {
    Ok(match u.int_in_range(0..=5)? {
        0 | 1 | 2 => slice_of(u, file)?,
        3 => {
            let mut text = slice_of(u, file)?;
            text.push_str(&slice_of(u, file)?);
            text
        }
        4 => u
            .choose(&["\n", "\r\n", "\r", "a", "aa", "", " ", "\n\n"])?
            .to_string(),
        _ => u.arbitrary::<String>()?,
    })
}

fn file_bytes(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    if u.ratio(1, 16)? {
        return u.arbitrary::<Vec<u8>>();
    }
    // Text from a small alphabet, so that repeats and overlaps are common.
    let len = u.int_in_range(0..=64usize)?;
    let mut text = String::new();
    for _ in 0..len {
        text.push_str(u.choose(&[
            "a",
            "b",
            "aa",
            "ab",
            "\n",
            "\r\n",
            "\r",
            " ",
            "é",
            "x\n",
            "\u{1F600}",
        ])?);
    }
    if u.ratio(1, 4)? {
        text.push_str(&u.arbitrary::<String>()?);
    }
    Ok(text.into_bytes())
}

/// `text` with its line breaks made the document's (`crlf`): how the tool reads
/// `old_text` and `new_text`.
fn in_endings(text: &str, crlf: bool) -> String {
    let unix = text.replace("\r\n", "\n");
    if crlf { unix.replace('\n', "\r\n") } else { unix }
}

/// Every start of `needle` in `haystack`, overlapping ones included.
fn occurrences(haystack: &str, needle: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = haystack[from..].find(needle) {
        found.push(from + at);
        let step = haystack[from + at..].chars().next().map_or(1, char::len_utf8);
        from += at + step;
        if from > haystack.len() {
            break;
        }
    }
    found
}

/// The file after the edits, or `None` where the tool must refuse.
fn expected(original: &[u8], edits: &[TextEdit]) -> Option<String> {
    let original = std::str::from_utf8(original).ok()?;
    let crlf = original.contains("\r\n");
    let mut text = original.to_owned();
    for edit in edits {
        if edit.old.is_empty() {
            return None;
        }
        let old = in_endings(&edit.old, crlf);
        let new = in_endings(&edit.new, crlf);
        let count = occurrences(&text, &old).len();
        text = match count {
            0 => return None,
            1 => text.replacen(&old, &new, 1),
            _ if edit.all => text.replace(&old, &new),
            _ => return None,
        };
    }
    (text != original).then_some(text)
}

fn args(edits: &[TextEdit]) -> EditFileArgs {
    // As JSON, the way a model's call reaches the tool: the argument structs are
    // `#[non_exhaustive]`, so they are not built field by field outside their crate.
    let edit = |e: &TextEdit| json!({"old_text": e.old, "new_text": e.new, "replace_all": e.all});
    let value = match edits {
        [single] => {
            let mut value = edit(single);
            value["path"] = json!(FILE);
            value
        }
        several => json!({"path": FILE, "edits": several.iter().map(edit).collect::<Vec<_>>()}),
    };
    serde_json::from_value(value).expect("the arguments the target builds deserialize")
}

fn run(u: &mut Unstructured<'_>, dir: &Path) -> Result<()> {
    let original = file_bytes(u)?;
    let text = String::from_utf8_lossy(&original).into_owned();
    let mut edits = Vec::new();
    for _ in 0..u.int_in_range(1..=3)? {
        edits.push(TextEdit {
            old: some_text(u, &text)?,
            new: some_text(u, &text)?,
            all: u.ratio(1, 4)?,
        });
    }
    let path = dir.join(FILE);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, &original).unwrap();
    let workspace = Workspace::open(dir).unwrap();

    let want = expected(&original, &edits);
    let result = edit_file(&workspace, args(&edits));
    let now = fs::read(&path).unwrap();
    match (&want, &result) {
        (Some(want), Ok(_)) => assert!(
            now == want.as_bytes(),
            "wrong result for {edits:?} on {:?}:\n got {:?}\nwant {want:?}",
            String::from_utf8_lossy(&original),
            String::from_utf8_lossy(&now),
        ),
        (Some(want), Err(error)) => panic!(
            "refused {edits:?} on {:?} (expected {want:?}): {error}",
            String::from_utf8_lossy(&original)
        ),
        (None, Ok(message)) => panic!(
            "applied {edits:?} on {:?}, expected a refusal; now {:?}: {message}",
            String::from_utf8_lossy(&original),
            String::from_utf8_lossy(&now),
        ),
        (None, Err(_)) => assert!(now == original, "a refused edit changed the file"),
    }

    // Undo a single edit.
    if let (Some(edited), [edit]) = (want, edits.as_slice()) {
        let original = std::str::from_utf8(&original).unwrap();
        let crlf = original.contains("\r\n");
        let new = in_endings(&edit.new, crlf);
        if !edit.all
            && !edit.new.is_empty()
            && edited.contains("\r\n") == crlf
            && occurrences(&edited, &new).len() == 1
        {
            let reverse = TextEdit {
                old: edit.new.clone(),
                new: edit.old.clone(),
                all: false,
            };
            if let Err(error) = edit_file(&workspace, args(&[reverse.clone()])) {
                panic!("the reverse of {edit:?} failed on {edited:?}: {error}");
            }
            let restored = fs::read(&path).unwrap();
            assert!(
                restored == original.as_bytes(),
                "{edit:?} then {reverse:?} did not restore {original:?}: {:?}",
                String::from_utf8_lossy(&restored)
            );
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let base = if Path::new("/dev/shm").is_dir() {
        tempfile::Builder::new()
            .prefix("fuzz-edit")
            .tempdir_in("/dev/shm")
    } else {
        tempfile::Builder::new().prefix("fuzz-edit").tempdir()
    }
    .unwrap();
    let mut u = Unstructured::new(data);
    let _ = run(&mut u, base.path());
});
