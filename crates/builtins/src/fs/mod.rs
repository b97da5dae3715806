//! The file tools: read, write, edit, patch, list and search files in the workspace.
//!
//! Every path a model gives goes through [`Workspace`](crate::Workspace), which opens
//! it beneath the workspace root with the kernel's help, so no tool here can be talked
//! into touching a file outside — not with `..`, absolute paths or symbolic links, and
//! not by racing a check. Each tool is one module: its argument struct (whose doc
//! comments are what the model reads) and its logic.

pub(crate) mod edit;
pub(crate) mod list;
mod nearby;
pub(crate) mod patch;
pub(crate) mod read;
pub(crate) mod search;
pub(crate) mod write;

pub use edit::{Edit, EditFileArgs};
pub use list::ListDirArgs;
pub use patch::ApplyPatchArgs;
pub use read::ReadFileArgs;
pub use search::{FileSearchArgs, SearchMode};
pub use write::{Mode as WriteFileMode, WriteFileArgs};

/// What the fuzz targets reach: `edit_file` and `apply_patch` without a registry in front,
/// so the fuzzer spends its time in the edit logic. Compiled only by `cargo fuzz` (`cfg(fuzzing)`).
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod __fuzz {
    /// The `edit_file` tool's body.
    pub fn edit_file(
        ws: &crate::Workspace,
        args: super::EditFileArgs,
    ) -> Result<String, agent_tools_core::ToolError> {
        super::edit::edit_file(ws, args)
    }

    /// The `apply_patch` tool's body.
    pub fn apply_patch(
        ws: &crate::Workspace,
        args: super::ApplyPatchArgs,
    ) -> Result<String, agent_tools_core::ToolError> {
        super::patch::apply_patch(ws, args)
    }
}
