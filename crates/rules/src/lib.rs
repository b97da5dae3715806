//! An implementation detail of agent-tools; use `agent_tools_core`'s re-exports
//! (`agent_tools_core::tool::validate_tool_name`, `agent_tools_core::suggest::closest`). Nothing here is a
//! stable API of its own.
//!
//! The rules that `agent-tools-core` and `agent-tools-macros` must apply alike: the tool-name rule, so
//! that a name `#[tool]` accepts at compile time is one registration accepts at run
//! time, and the "did you mean" scorer, so that the macro suggests an attribute the way
//! the registry suggests a tool.
//!
//! Why a crate of its own: the macro crate cannot depend on `agent-tools-core`. A proc-macro
//! crate runs inside the compiler, and depending on `agent-tools-core` would build all of it
//! (schemas, tokio, the validator) for the compiler's host as well. Compiling the same
//! source files into both crates with `#[path]` kept one copy of the rules, but reached
//! outside the `agent-tools-macros` package, so `cargo package` could not publish it. A crate
//! that needs nothing but `std` and `strsim` costs the macro's build next to nothing,
//! and each package holds its own files.

#![warn(missing_docs)]
// On docs.rs, each item says which features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod similarity;
mod tool_name;

pub use similarity::closest;
pub use tool_name::{ToolNameError, check_characters, validate_tool_name};
