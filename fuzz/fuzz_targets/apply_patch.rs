//! The `apply_patch` format: the parser on arbitrary text, and the tool on a file and a
//! patch made to hit it.
//!
//! Checked:
//! - `patch::parse` never panics; what it accepts names no empty path, has no hunk
//!   without lines, and its canonical form (`Display`) parses back to the same patch
//!   (for texts without a carriage return, which the format cannot keep at a line's end);
//! - the tool body (`builtins::fs::__fuzz::apply_patch`) on a workspace holding one file,
//!   with a patch whose hunk lines are often cut from that file: it never panics, and when
//!   it fails the file is byte-identical to before and no other file appeared.

#![no_main]

use std::fs;

use agent_tools_core::patch::{self, FileChange};
use arbitrary::{Result, Unstructured};
use builtins::Workspace;
use builtins::fs::ApplyPatchArgs;
use builtins::fs::__fuzz::apply_patch;
use libfuzzer_sys::fuzz_target;

fn check_parser(text: &str) {
    let Ok(parsed) = patch::parse(text) else {
        return;
    };
    for change in &parsed.changes {
        assert!(change.paths().all(|path| !path.is_empty()), "{change:?}");
        if let FileChange::Update { hunks, .. } = change {
            assert!(hunks.iter().all(|hunk| !hunk.lines.is_empty()), "{change:?}");
        }
    }
    if !text.contains('\r') {
        let shown = parsed.to_string();
        let again = patch::parse(&shown).expect("the canonical form parses");
        assert_eq!(without_positions(again), without_positions(parsed), "{shown}");
    }
}

/// `patch` with each hunk's line number in its text cleared: the canonical form may lay
/// the same patch out on other lines (no heredoc, no padding), so only the content must
/// survive the round trip.
fn without_positions(mut patch: patch::Patch) -> patch::Patch {
    for change in &mut patch.changes {
        if let FileChange::Update { hunks, .. } = change {
            for hunk in hunks {
                hunk.line = 0;
            }
        }
    }
    patch
}

/// A hunk line: a line of the file (often) or arbitrary text, with a marker.
fn hunk_line(u: &mut Unstructured<'_>, file_lines: &[&str]) -> Result<String> {
    let text = if !file_lines.is_empty() && u.ratio(3, 4)? {
        (*u.choose(file_lines)?).to_owned()
    } else {
        u.choose(&["", "a", " a", "a ", "\u{2014}", "x"])?.to_string()
    };
    let marker = *u.choose(&[" ", " ", "-", "+"])?;
    Ok(format!("{marker}{text}"))
}

fn made_patch(u: &mut Unstructured<'_>, file: &str) -> Result<String> {
    let file_lines: Vec<&str> = file.lines().collect();
    let mut text = String::from("*** Begin Patch\n*** Update File: f.txt\n");
    if u.ratio(1, 4)? {
        text.push_str("*** Move to: g.txt\n");
    }
    for _ in 0..u.int_in_range(1..=3)? {
        text.push_str("@@");
        if u.ratio(1, 4)? && !file_lines.is_empty() {
            text.push(' ');
            text.push_str(u.choose(&file_lines)?);
        }
        text.push('\n');
        for _ in 0..u.int_in_range(1..=4)? {
            text.push_str(&hunk_line(u, &file_lines)?);
            text.push('\n');
        }
        if u.ratio(1, 8)? {
            text.push_str("*** End of File\n");
        }
    }
    text.push_str("*** End Patch\n");
    Ok(text)
}

fn check_tool(u: &mut Unstructured<'_>) -> Result<()> {
    let file: String = u.arbitrary()?;
    let patch = if u.ratio(1, 4)? {
        u.arbitrary::<String>()?
    } else {
        made_patch(u, &file)?
    };
    let base = if std::path::Path::new("/dev/shm").is_dir() { "/dev/shm" } else { "/tmp" };
    let temp = tempfile::Builder::new().tempdir_in(base).expect("a temporary directory");
    let path = temp.path().join("f.txt");
    fs::write(&path, &file).expect("the file is written");
    let ws = Workspace::open(temp.path()).expect("the workspace opens");
    if apply_patch(&ws, ApplyPatchArgs::new(patch)).is_err() {
        assert_eq!(fs::read(&path).expect("the file is still there"), file.as_bytes());
        let entries = fs::read_dir(temp.path()).expect("listed").count();
        assert_eq!(entries, 1, "a failed patch left a file behind");
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    check_parser(&String::from_utf8_lossy(data));
    let _ = check_tool(&mut Unstructured::new(data));
});
