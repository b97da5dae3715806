//! `apply_patch`: Codex's patch format applied to the workspace — several files added,
//! updated, moved and deleted in one call, all or nothing.
//!
//! The patch is parsed by [`agent_tools_core::patch`], the parser the policy uses to see
//! the paths it names, so the tool and the rules read the same patch. Then:
//!
//! 1. **plan** (`plan.rs`): every file named is read and its new content worked out in
//!    memory; every precondition is checked and every hunk located (`apply.rs`, with the
//!    tolerance ladder of `seek.rs`). Any failure ends the call here, with nothing written;
//! 2. **commit** (`commit.rs`): the new contents are written, each file atomically, then
//!    the deleted files removed; a failure midway gives the files done back their old
//!    contents;
//! 3. **report** (`report.rs`): a line per file section (`A`, `M`, `D`, `R`), and the
//!    unified diffs.
//!
//! Paths go through [`Workspace`] following no symbolic link (the workspace's no-links
//! mode, always, not only when the policy pinned paths): what the policy resolved is
//! what is written, and a link on the way — one pointing out of the workspace, or one
//! swapped in after the decision — fails the call before anything is written. A path with
//! `..` in it is refused as well, so that the path the tool writes is the path the rules
//! saw. Protected paths (`.git`), the read-only workspace and the size limits are the
//! workspace's, as for `write_file`. What this does not stop: another process changing a
//! file between the plan and the commit (its change is overwritten), and what
//! `commit.rs` says remains after a crash.

mod apply;
mod commit;
mod plan;
mod report;
mod seek;

use agent_tools_core::ToolError;
use agent_tools_core::patch;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::Workspace;

/// The Lark grammar of the format, for OpenAI's custom tools: the model's output is
/// constrained to it.
pub(crate) const GRAMMAR: &str = include_str!("apply_patch.lark");

/// Arguments of `apply_patch`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ApplyPatchArgs {
    /// The whole patch, from `*** Begin Patch` to `*** End Patch`.
    pub input: String,
}

impl ApplyPatchArgs {
    /// The arguments for patch text `input`.
    pub fn new(input: impl Into<String>) -> Self {
        Self { input: input.into() }
    }
}

/// Applies the patch to the workspace; returns the summary and the diffs.
pub(crate) fn apply_patch(ws: &Workspace, args: ApplyPatchArgs) -> Result<String, ToolError> {
    let ws = ws.following_no_links();
    let patch = parse(&args.input)?;
    let planned = plan::plan(&ws, &patch)?;
    commit::commit(&ws, &planned.files)?;
    Ok(format!(
        "Applied the patch: {}.\n{}\n{}",
        crate::text_format::plural(planned.done.len(), "file changed", "files changed"),
        report::summary(&planned),
        report::diffs(&planned.files)
    ))
}

/// What `apply_patch` would do, changing nothing: the summary and the diffs, or why it
/// would fail.
pub(crate) fn preview_apply_patch(ws: &Workspace, args: &ApplyPatchArgs) -> String {
    let ws = ws.following_no_links();
    let planned = parse(&args.input).and_then(|patch| plan::plan(&ws, &patch));
    match planned {
        Ok(planned) => format!("{}\n{}", report::summary(&planned), report::diffs(&planned.files)),
        Err(error) => format!("The patch would fail: {error}"),
    }
}

fn parse(input: &str) -> Result<patch::Patch, ToolError> {
    patch::parse(input).map_err(|error| {
        ToolError::invalid_arguments(format!(
            "{error}. A patch starts with `*** Begin Patch`, has `*** Add File: PATH`, \
             `*** Update File: PATH` or `*** Delete File: PATH` sections, and ends with `*** End Patch`; \
             nothing was changed"
        ))
    })
}

#[cfg(test)]
mod tests;
