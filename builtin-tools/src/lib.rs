//! The built-in agent tool set of agent-tools: files, shell, web, memory, sub-agents,
//! screenshots and media, each built with `#[tool]` and registered through one generated
//! `register_all`.
//!
//! [`Builtins`] is the manifest: one `#[toolset]` impl whose methods are the tools — the
//! doc comment of each is the description the model reads, and the body is one line
//! delegating to the tool's module. So far it has the file tools ([`fs`]); the other
//! families arrive issue by issue.
//!
//! ```
//! use std::sync::Arc;
//! use builtin_tools::{Builtins, Workspace};
//! use tool_core::ToolRegistry;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let registry = ToolRegistry::new();
//! Arc::new(Builtins::new(Workspace::open(dir.path()).unwrap()).unwrap()).register_all(&registry).unwrap();
//! assert!(registry.contains("read_file"));
//! ```

#![warn(missing_docs)]

pub mod agent;
mod config;
pub mod fs;
mod manifest;
pub mod media;
pub mod memory;
mod memory_source;
mod process_group;
pub mod screen;
pub mod shell;
pub mod web;
mod workspace;

pub use config::{
    BuiltinConfig, ExecSection, MediaSection, MemorySection, SandboxSetting, SubagentsSection,
    TelegramSection, WebSection, WorkspaceSection, register_all, register_all_with_env,
};
pub use manifest::{Builtins, BuiltinsBuilder};
pub use workspace::{OpenedFile, Workspace, WorkspaceError, WriteMode, Written};
