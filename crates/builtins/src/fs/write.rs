//! `write_file`: create, replace or append to a file, atomically when replacing.

use crate::{Workspace, WriteMode};
use agent_tools_core::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::text_format::{human_size, plural};

/// What to do when the file exists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Replace the file's content (atomically), or create it.
    #[default]
    Overwrite,
    /// Add the content at the end of the file, or create it.
    Append,
    /// Create the file; fail if it already exists.
    CreateNew,
}

/// Arguments of `write_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct WriteFileArgs {
    /// Path of the file, relative to the workspace root. Missing parent directories are
    /// created.
    pub path: String,
    /// The complete text to write.
    pub content: String,
    /// What to do if the file exists. Default `overwrite`.
    pub mode: Option<Mode>,
}

/// Writes a file in the workspace and says what happened.
pub(crate) fn write_file(ws: &Workspace, args: WriteFileArgs) -> Result<String, ToolError> {
    let mode = args.mode.unwrap_or_default();
    let workspace_mode = match mode {
        Mode::Overwrite => WriteMode::Overwrite,
        Mode::Append => WriteMode::Append,
        Mode::CreateNew => WriteMode::CreateNew,
    };
    let written = ws.write_file(&args.path, args.content.as_bytes(), workspace_mode)?;
    let shown = Workspace::display(&written.path);
    let amount = format!(
        "{} ({})",
        plural(line_count(&args.content), "line", "lines"),
        human_size(args.content.len() as u64)
    );
    Ok(match (mode, written.created) {
        (_, true) => format!("Created `{shown}` with {amount}."),
        (Mode::Append, false) => format!("Appended {amount} to `{shown}`."),
        _ => format!("Replaced the content of `{shown}` with {amount}."),
    })
}

/// What `write_file` would do with `args`, changing nothing: a diff against the file as it
/// is (from nothing for a new file), or why the write would fail.
pub(crate) fn preview_write_file(ws: &Workspace, args: &WriteFileArgs) -> String {
    let mode = args.mode.unwrap_or_default();
    let current = match ws.open_file(&args.path) {
        Ok(_) => Some(super::edit::read_text(ws, &args.path, "write_file")),
        Err(crate::WorkspaceError::NotFound { .. }) => None,
        Err(error) => return format!("The write would fail: {error}"),
    };
    let (shown, before) = match current {
        None => (args.path.clone(), String::new()),
        Some(_) if mode == Mode::CreateNew => {
            return format!("The write would fail: `{}` already exists.", args.path);
        }
        Some(Ok(text)) => text,
        // Too large or not text: the new content is shown without a diff, as much of it
        // as a diff would show.
        Some(Err(unreadable)) => {
            let shown = crate::text_format::prefix_within(&args.content, super::edit::MAX_DIFF_BYTES);
            let cut = if shown.len() < args.content.len() {
                format!("\n[cut at {} of {} bytes]", shown.len(), args.content.len())
            } else {
                String::new()
            };
            return format!(
                "Replaces or appends to a file that cannot be shown ({unreadable}) with:\n{shown}{cut}"
            );
        }
    };
    let after = match mode {
        Mode::Append => format!("{before}{}", args.content),
        Mode::Overwrite | Mode::CreateNew => args.content.clone(),
    };
    super::edit::diff(&shown, &before, &after)
}

/// Lines as an editor counts them: a final line without `\n` counts.
fn line_count(text: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(path: &str, content: &str, mode: Option<Mode>) -> WriteFileArgs {
        WriteFileArgs {
            path: path.into(),
            content: content.into(),
            mode,
        }
    }

    #[test]
    fn create_replace_append_and_create_new() {
        let temp = tempfile::tempdir().unwrap();
        let ws = Workspace::open(temp.path()).unwrap();
        let out = write_file(&ws, args("dir/a.txt", "one\ntwo\n", None)).unwrap();
        assert_eq!(out, "Created `dir/a.txt` with 2 lines (8 B).");
        let out = write_file(&ws, args("dir/a.txt", "x", None)).unwrap();
        assert_eq!(out, "Replaced the content of `dir/a.txt` with 1 line (1 B).");
        let out = write_file(&ws, args("dir/a.txt", "y\n", Some(Mode::Append))).unwrap();
        assert_eq!(out, "Appended 1 line (2 B) to `dir/a.txt`.");
        assert_eq!(
            std::fs::read_to_string(temp.path().join("dir/a.txt")).unwrap(),
            "xy\n"
        );
        let error = write_file(&ws, args("dir/a.txt", "z", Some(Mode::CreateNew))).unwrap_err();
        assert!(error.to_string().contains("already exists"), "{error}");
    }

    #[test]
    fn previews_show_the_diff_and_change_nothing() {
        let temp = tempfile::tempdir().unwrap();
        let ws = Workspace::open(temp.path()).unwrap();
        let created = preview_write_file(&ws, &args("new.txt", "one\n", None));
        assert!(
            created.contains("+++ b/new.txt") && created.contains("+one"),
            "{created}"
        );
        assert!(!temp.path().join("new.txt").exists(), "a preview writes nothing");
        std::fs::write(temp.path().join("a.txt"), "old\nsame\n").unwrap();
        let replaced = preview_write_file(&ws, &args("a.txt", "new\nsame\n", None));
        assert!(replaced.contains("-old\n+new\n same"), "{replaced}");
        let appended = preview_write_file(&ws, &args("a.txt", "more\n", Some(Mode::Append)));
        assert!(appended.contains(" same\n+more"), "{appended}");
        let refused = preview_write_file(&ws, &args("a.txt", "x", Some(Mode::CreateNew)));
        assert_eq!(refused, "The write would fail: `a.txt` already exists.");
        let outside = preview_write_file(&ws, &args("../a.txt", "x", None));
        assert!(
            outside.starts_with("The write would fail: `../a.txt` is outside"),
            "{outside}"
        );
        assert_eq!(
            std::fs::read_to_string(temp.path().join("a.txt")).unwrap(),
            "old\nsame\n"
        );
        // A file that is not text: the new content alone, no more of it than a diff shows.
        std::fs::write(temp.path().join("blob.bin"), [0xff, 0xfe, 0x00]).unwrap();
        let huge = "x".repeat(200_000);
        let over_binary = preview_write_file(&ws, &args("blob.bin", &huge, None));
        assert!(over_binary.starts_with("Replaces or appends to a file that cannot be shown"));
        assert!(over_binary.ends_with("[cut at 65536 of 200000 bytes]"));
    }

    #[test]
    fn escapes_are_refused() {
        let temp = tempfile::tempdir().unwrap();
        let ws = Workspace::open(temp.path()).unwrap();
        let error = write_file(&ws, args("../evil.txt", "x", None)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`../evil.txt` is outside the workspace; use a path relative to the workspace root"
        );
    }
}
