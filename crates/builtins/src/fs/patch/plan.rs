//! Working out a whole patch in memory before anything is written.
//!
//! Every file the patch names is read once, through the workspace, and its new content
//! computed; the changes apply one after the other to this in-memory view, so a patch
//! may add a file and then update it, or move a file and delete the old name's
//! replacement. Every precondition is checked here, and every hunk located: if anything
//! fails, nothing has been written. The preconditions, following Codex:
//!
//! - an update or a delete needs the file to exist (and to be a UTF-8 text file of at
//!   most 16 MiB);
//! - an add over an existing file replaces it, as Codex does (the summary says so);
//! - a move onto an existing file replaces it, as Codex does (the summary says so);
//! - every path must be writable: inside the workspace, not protected, no symbolic link
//!   on the way, no `..` (see the [tool's docs](super)).
//!
//! What is held is bounded: each file's old and new text (16 MiB each, as `edit_file`),
//! and all of them together ([`MAX_HELD_BYTES`]).

use agent_tools_core::ToolError;
use agent_tools_core::patch::{FileChange, Patch};

use super::apply::apply_hunks;
use super::seek::{BUDGET, Budget};
use crate::Workspace;
use crate::fs::edit::{MAX_FILE_BYTES, read_text};
use crate::text_format::human_size;

/// Most bytes of old and new text held for one patch.
const MAX_HELD_BYTES: u64 = 64 * 1024 * 1024;

/// One file the patch touches: its content before and after.
#[derive(Debug)]
pub(super) struct FileState {
    /// Its path relative to the workspace, normalized, as shown.
    pub(super) path: String,
    /// The content it had; `None` if it did not exist.
    pub(super) original: Option<String>,
    /// The content it will have; `None` if it is to be deleted (or never existed).
    pub(super) current: Option<String>,
    /// The file it was moved from, when a move created it (an index into the files).
    pub(super) moved_from: Option<usize>,
}

impl FileState {
    pub(super) fn changed(&self) -> bool {
        self.original != self.current
    }
}

/// What one file section did, for the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Done {
    Added {
        path: String,
        replaced: bool,
    },
    Modified {
        path: String,
    },
    Deleted {
        path: String,
    },
    Moved {
        from: String,
        to: String,
        replaced: bool,
    },
}

/// A patch worked out against the files as they are, not yet written.
#[derive(Debug)]
pub(super) struct Plan {
    /// Every file touched, in the order first touched.
    pub(super) files: Vec<FileState>,
    /// What each section did, in the patch's order.
    pub(super) done: Vec<Done>,
}

/// Reads what the patch touches and applies it in memory.
pub(super) fn plan(ws: &Workspace, patch: &Patch) -> Result<Plan, ToolError> {
    if patch.is_empty() {
        return Err(ToolError::new(
            "the patch has no file sections (`*** Add File:`, `*** Update File:` or `*** Delete File:`); nothing was changed",
        ));
    }
    let mut planner = Planner {
        ws,
        plan: Plan {
            files: Vec::new(),
            done: Vec::new(),
        },
        held: 0,
        budget: Budget(BUDGET),
    };
    for change in &patch.changes {
        let done = planner.change(change)?;
        planner.plan.done.push(done);
    }
    if !planner.plan.files.iter().any(FileState::changed) {
        return Err(ToolError::new(
            "the patch leaves every file as it is; nothing was changed",
        ));
    }
    Ok(planner.plan)
}

struct Planner<'w> {
    ws: &'w Workspace,
    plan: Plan,
    /// Bytes of text held so far.
    held: u64,
    budget: Budget,
}

impl Planner<'_> {
    fn change(&mut self, change: &FileChange) -> Result<Done, ToolError> {
        match change {
            FileChange::Add { path, contents } => {
                let at = self.file(path)?;
                let replaced = self.plan.files[at].current.is_some();
                self.set(at, Some(contents.clone()))?;
                Ok(Done::Added {
                    path: self.plan.files[at].path.clone(),
                    replaced,
                })
            }
            FileChange::Delete { path } => {
                let at = self.existing(path, "delete")?;
                self.plan.files[at].current = None;
                Ok(Done::Deleted {
                    path: self.plan.files[at].path.clone(),
                })
            }
            FileChange::Update { path, move_to, hunks } => {
                let at = self.existing(path, "update")?;
                let shown = self.plan.files[at].path.clone();
                let text = self.plan.files[at].current.as_deref().unwrap_or_default();
                let updated = if hunks.is_empty() {
                    text.to_owned()
                } else {
                    apply_hunks(text, hunks, &mut self.budget).map_err(|error| {
                        let hunk = &hunks[error.number - 1];
                        ToolError::new(format!(
                            "nothing was changed: {}",
                            error.describe(&shown, hunk, text)
                        ))
                    })?
                };
                let Some(to) = move_to.as_deref() else {
                    self.set(at, Some(updated))?;
                    return Ok(Done::Modified { path: shown });
                };
                let dest = self.file(to)?;
                if dest == at {
                    self.set(at, Some(updated))?;
                    return Ok(Done::Modified { path: shown });
                }
                let replaced = self.plan.files[dest].current.is_some();
                self.set(dest, Some(updated))?;
                self.plan.files[at].current = None;
                if self.plan.files[dest].original.is_none() {
                    self.plan.files[dest].moved_from = Some(at);
                }
                Ok(Done::Moved {
                    from: shown,
                    to: self.plan.files[dest].path.clone(),
                    replaced,
                })
            }
            other => Err(ToolError::new(format!(
                "nothing was changed: the patch's change of `{}` is not one apply_patch makes",
                other.path()
            ))),
        }
    }

    /// The index of the file at `path`, read from the workspace the first time.
    fn file(&mut self, path: &str) -> Result<usize, ToolError> {
        let shown = checked_path(self.ws, path)?;
        if let Some(at) = self.plan.files.iter().position(|file| file.path == shown) {
            return Ok(at);
        }
        let original = match self.ws.open_file(&shown) {
            Ok(_) => Some(read_text(self.ws, &shown, "apply_patch")?.1),
            Err(crate::WorkspaceError::NotFound { .. }) => None,
            Err(error) => return Err(error.into()),
        };
        self.hold(original.as_deref().map_or(0, str::len))?;
        self.plan.files.push(FileState {
            path: shown,
            current: original.clone(),
            original,
            moved_from: None,
        });
        Ok(self.plan.files.len() - 1)
    }

    /// The index of the file at `path`, which must exist (as the patch has left it so far).
    fn existing(&mut self, path: &str, doing: &str) -> Result<usize, ToolError> {
        let at = self.file(path)?;
        if self.plan.files[at].current.is_none() {
            let shown = &self.plan.files[at].path;
            let deleted = if self.plan.files[at].original.is_some() {
                " (an earlier section of the patch deletes or moves it)"
            } else {
                ""
            };
            return Err(ToolError::new(format!(
                "nothing was changed: cannot {doing} `{shown}`: it does not exist{deleted}"
            )));
        }
        Ok(at)
    }

    /// Gives file `at` its new content, within the size limits.
    fn set(&mut self, at: usize, content: Option<String>) -> Result<(), ToolError> {
        let size = content.as_deref().map_or(0, str::len);
        if size as u64 > MAX_FILE_BYTES {
            return Err(ToolError::new(format!(
                "nothing was changed: the patch would make `{}` {}, more than the {} apply_patch writes",
                self.plan.files[at].path,
                human_size(size as u64),
                human_size(MAX_FILE_BYTES)
            )));
        }
        self.hold(size)?;
        self.plan.files[at].current = content;
        Ok(())
    }

    fn hold(&mut self, bytes: usize) -> Result<(), ToolError> {
        self.held += bytes as u64;
        if self.held > MAX_HELD_BYTES {
            return Err(ToolError::new(format!(
                "nothing was changed: the patch touches more than {} of text; split it into smaller patches",
                human_size(MAX_HELD_BYTES)
            )));
        }
        Ok(())
    }
}

/// A path of the patch as the tool writes it: inside the workspace, normalized, without
/// `..`, and writable (not protected, no link at its end).
fn checked_path(ws: &Workspace, path: &str) -> Result<String, ToolError> {
    let relative = ws.relative_path(path)?;
    if relative
        .components()
        .any(|component| component == std::path::Component::ParentDir)
    {
        return Err(ToolError::new(format!(
            "nothing was changed: `{path}` has a `..` in it; name the file by its path from the workspace root"
        )));
    }
    let shown = Workspace::display(&relative);
    ws.check_writable(&shown)?;
    Ok(shown)
}
