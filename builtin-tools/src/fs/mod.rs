//! The file tools: read, write, edit, list and search files in the workspace.
//!
//! Every path a model gives goes through [`Workspace`](crate::Workspace), which opens
//! it beneath the workspace root with the kernel's help, so no tool here can be talked
//! into touching a file outside — not with `..`, absolute paths or symbolic links, and
//! not by racing a check. Each tool is one module: its argument struct (whose doc
//! comments are what the model reads) and its logic.

pub mod edit;
pub mod list;
mod nearby;
pub mod read;
pub mod search;
pub mod write;
