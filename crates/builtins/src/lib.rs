//! The built-in agent tool set of agent-tools: files, shell, web, memory, sub-agents,
//! screenshots, media, images and plans, each built with `#[tool]` and registered through one generated
//! `register_all`.
//!
//! [`Builtins`] is the manifest: one `#[toolset]` impl whose methods are the tools — the
//! doc comment of each is the description the model reads, and the body is one line
//! delegating to the tool's module.
//!
//! ## Features
//!
//! Each family of tools is a Cargo feature, all on by default (`all`); turn the defaults
//! off and name the families you want to compile only their dependencies.
//! [`Builtins`] and [`register_all`] register the tools that are compiled in.
//!
//! | feature | tools | pulls in |
//! |---|---|---|
//! | `fs` | `read_file`, `write_file`, `edit_file`, `list_dir`, `file_search` | ripgrep's crates, `similar` |
//! | `shell` | `exec` (sandboxed on Linux; elsewhere only with `sandbox = "none"`: see the `shell` module), and for background processes `process_output`, `process_write`, `process_kill`, `process_list` | `landlock`, `seccompiler` (Linux only) |
//! | `web` | `web_fetch`, `web_search` | `reqwest` (rustls), `html5ever`, Readability |
//! | `memory` | `memory_write`, `memory_search`, `memory_read` | SQLite (bundled) |
//! | `agent` | `spawn` | `reqwest` |
//! | `screen` | `screenshot` (and `web`, whose SSRF guard page captures use) | `x11rb`, `png` |
//! | `media` | `send_media` | `reqwest` (multipart) |
//! | `image` | `view_image` | `image` (PNG, JPEG, GIF and WebP only) |
//! | `plan` | `update_plan` (the model's plan per session, [`plan::Plans`]) | — |
//!
//! [`Workspace`] and the configuration types are always there: a configuration file that
//! names a family this build leaves out still reads.
//!
//! ```
//! use std::sync::Arc;
//! use agent_tools_builtins::{Builtins, Workspace};
//! use agent_tools_core::ToolRegistry;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let registry = ToolRegistry::new();
//! Arc::new(Builtins::new(Workspace::open(dir.path()).unwrap()).unwrap()).register_all(&registry).unwrap();
//! assert!(registry.contains("read_file"));
//! ```

#![warn(missing_docs)]
// On docs.rs, each item says which features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
// A build with some of the families compiles shared helpers (file kinds, text formats,
// the configuration) of which only the others use some parts; the full build (`all`),
// which CI lints with `-D warnings`, keeps every lint.
#![cfg_attr(
    not(feature = "all"),
    allow(dead_code, unused_imports, unused_variables, unused_mut)
)]

#[cfg(feature = "agent")]
pub mod agent;
#[cfg(any(feature = "web", feature = "media"))]
mod capped_body;
mod config;
mod file_kind;
#[cfg(feature = "fs")]
pub mod fs;
#[cfg(feature = "image")]
pub mod image;
mod manifest;
#[cfg(feature = "media")]
pub mod media;
#[cfg(feature = "memory")]
pub mod memory;
#[cfg(feature = "memory")]
mod memory_source;
#[cfg(feature = "plan")]
pub mod plan;
#[cfg(any(feature = "shell", feature = "screen"))]
mod process_group;
pub mod result_files;
#[cfg(feature = "screen")]
pub mod screen;
mod setup_error;
#[cfg(feature = "shell")]
pub mod shell;
#[cfg(any(feature = "memory", feature = "plan"))]
mod state_dir;
mod text_format;
// With `shell` alone: the SSRF guard and proxy that `exec`'s network allow-list uses.
#[cfg(any(feature = "web", feature = "shell"))]
pub mod web;
mod workspace;

pub use config::{
    BuiltinConfig, ExecConfig, ExecNetwork, ExecRead, ExecSandbox, MediaSection, MemorySection,
    ScreenshotSection, SubagentsSection, TelegramSection, WebSection, WorkspaceSection, register_all,
    register_all_with_env,
};
pub use manifest::{Builtins, BuiltinsBuilder};
pub use setup_error::{BoxError, SetupError};
pub use workspace::{OpenedFile, Workspace, WorkspaceError, WriteMode, Written};
