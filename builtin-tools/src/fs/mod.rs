//! The file tools: every file they touch is opened through the [`tool_core::Workspace`] capability.

pub mod search;
