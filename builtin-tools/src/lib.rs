//! The built-in agent tool set of agent-tools: files, shell, web, memory, sub-agents,
//! screenshots and media, each built with `#[tool]` and registered through one generated
//! `register_all`.
//!
//! Empty for now: the tools arrive family by family (see the project's issues).

#![warn(missing_docs)]

pub mod fs;
