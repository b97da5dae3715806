//! Codex's patch format (`apply_patch`), parsed: which files a patch adds, deletes,
//! updates or moves, and each update's hunks.
//!
//! OpenAI's models are trained to edit files by writing this format, and Codex's own
//! `apply_patch` tool takes it. One parser serves both sides of a call: the policy, which
//! must see every path a patch touches before it runs ([`ArgumentKind::Patch`](crate::tool::ArgumentKind::Patch)),
//! and the built-in `apply_patch` tool, which applies it. Parsing is pure text; nothing
//! here reads or writes a file.
//!
//! ```text
//! *** Begin Patch
//! *** Add File: hello.txt
//! +Hello world
//! *** Update File: src/app.py
//! *** Move to: src/main.py
//! @@ def greet():
//! -print("Hi")
//! +print("Hello, world!")
//! *** Delete File: obsolete.txt
//! *** End Patch
//! ```
//!
//! What the parser accepts, following Codex's parser where it is more lenient than the
//! format's grammar:
//!
//! - whitespace around the whole text, and leading or trailing whitespace on the
//!   `*** Begin Patch`, `*** End Patch` and file header lines (`*** Add File:`, …, `*** Move to:`);
//! - the text wrapped in a heredoc (`<<'EOF'` … `EOF`, also `<<EOF` and `<<"EOF"`), as a
//!   model writes when it thinks it is typing a shell command;
//! - an update's first hunk without its `@@` line;
//! - several `@@ context` lines before a hunk, each found in turn (Codex's instructions
//!   describe them);
//! - an empty line inside a hunk, read as an empty context line;
//! - a unified-diff range header (`@@ -12,4 +12,5 @@`), read as a bare `@@`;
//! - CRLF line ends.
//!
//! Two things go beyond Codex's parser: an update with a `*** Move to:` and no hunks is a
//! plain rename, and `*** End of File` may carry trailing whitespace. Lines inside a
//! hunk are never trimmed: ` *** End Patch` there is a context line, so a patch can edit
//! text that itself looks like a patch.

mod parse;

use std::fmt;

pub use parse::parse;

/// A parsed patch: its file changes, in the order written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Patch {
    /// The changes, one per file section.
    pub changes: Vec<FileChange>,
}

impl Patch {
    /// Whether the patch changes nothing (`*** Begin Patch` right before `*** End Patch`).
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Every path the patch names, in order: each file added, deleted or updated, and each
    /// `*** Move to:` destination.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.changes.iter().flat_map(FileChange::paths)
    }
}

/// What a patch does to one file. Paths are as written (trimmed): relative to the
/// directory the patch applies in, or absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileChange {
    /// `*** Add File: PATH` and its `+` lines.
    Add {
        /// The file to create.
        path: String,
        /// Its content: each `+` line with a line feed after it.
        contents: String,
    },
    /// `*** Delete File: PATH`.
    Delete {
        /// The file to delete.
        path: String,
    },
    /// `*** Update File: PATH`, optionally `*** Move to: NEW_PATH`, and hunks.
    Update {
        /// The file to change.
        path: String,
        /// Where the changed file goes, if it is renamed.
        move_to: Option<String>,
        /// The changes, in file order (none for a plain rename).
        hunks: Vec<Hunk>,
    },
}

impl FileChange {
    /// The file the change starts from (added, deleted, or updated).
    pub fn path(&self) -> &str {
        match self {
            FileChange::Add { path, .. } | FileChange::Delete { path } | FileChange::Update { path, .. } => {
                path
            }
        }
    }

    /// The `*** Move to:` destination of an update.
    pub fn move_to(&self) -> Option<&str> {
        match self {
            FileChange::Update { move_to, .. } => move_to.as_deref(),
            _ => None,
        }
    }

    /// The paths the change touches: its path, and the destination of a move.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.path()).chain(self.move_to())
    }
}

/// One hunk of an update: where it goes and what it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Hunk {
    /// The text after each `@@ ` line before the hunk (a class or function line), found
    /// in the file in turn before the hunk's own lines are looked for after them.
    pub context: Vec<String>,
    /// The hunk's lines.
    pub lines: Vec<HunkLine>,
    /// Marked `*** End of File`: the hunk's old lines end the file.
    pub end_of_file: bool,
    /// The 1-based line of the patch text where the hunk starts, for messages.
    pub line: usize,
}

impl Hunk {
    /// The lines the file has where the hunk applies: context and removed lines.
    pub fn old_lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().filter_map(|line| match line {
            HunkLine::Context(text) | HunkLine::Remove(text) => Some(text.as_str()),
            HunkLine::Add(_) => None,
        })
    }

    /// The lines it has there afterwards: context and added lines.
    pub fn new_lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().filter_map(|line| match line {
            HunkLine::Context(text) | HunkLine::Add(text) => Some(text.as_str()),
            HunkLine::Remove(_) => None,
        })
    }
}

/// One line of a hunk, without its marker character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    /// ` text`: a line the file has and keeps.
    Context(String),
    /// `-text`: a line the file has and loses.
    Remove(String),
    /// `+text`: a line the file gains.
    Add(String),
}

/// Why a text is not a patch: the 1-based line of the text, and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid patch at line {line}: {message}")]
pub struct ParseError {
    line: usize,
    message: String,
}

impl ParseError {
    pub(crate) fn new(line: usize, message: impl Into<String>) -> Self {
        Self {
            line,
            message: message.into(),
        }
    }

    /// The 1-based line of the patch text.
    pub fn line(&self) -> usize {
        self.line
    }

    /// What is wrong there, and what was expected.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// The patch in the format's canonical form, which [`parse()`] reads back as the same
/// patch.
impl fmt::Display for Patch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "*** Begin Patch")?;
        for change in &self.changes {
            match change {
                FileChange::Add { path, contents } => {
                    writeln!(f, "*** Add File: {path}")?;
                    for line in contents.split_terminator('\n') {
                        writeln!(f, "+{line}")?;
                    }
                }
                FileChange::Delete { path } => writeln!(f, "*** Delete File: {path}")?,
                FileChange::Update { path, move_to, hunks } => {
                    writeln!(f, "*** Update File: {path}")?;
                    if let Some(to) = move_to {
                        writeln!(f, "*** Move to: {to}")?;
                    }
                    for hunk in hunks {
                        write_hunk(f, hunk)?;
                    }
                }
            }
        }
        writeln!(f, "*** End Patch")
    }
}

fn write_hunk(f: &mut fmt::Formatter<'_>, hunk: &Hunk) -> fmt::Result {
    if hunk.context.is_empty() {
        writeln!(f, "@@")?;
    }
    for context in &hunk.context {
        writeln!(f, "@@ {context}")?;
    }
    for line in &hunk.lines {
        match line {
            HunkLine::Context(text) => writeln!(f, " {text}")?,
            HunkLine::Remove(text) => writeln!(f, "-{text}")?,
            HunkLine::Add(text) => writeln!(f, "+{text}")?,
        }
    }
    if hunk.end_of_file {
        writeln!(f, "*** End of File")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
