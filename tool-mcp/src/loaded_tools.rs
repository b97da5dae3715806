//! The deferred tools a session's searches found, listed to that session from then on.
//!
//! A registry with deferred tools lists only `tool_search` and the tools that are not
//! deferred. Many MCP clients let their model call only listed tools, so when a
//! `tool_search` call finds deferred tools, the session's list grows by them and the
//! client is told (`notifications/tools/list_changed`, for clients that connected with
//! `initialize`). Every session starts from the short list; a stateless server, which
//! has no sessions, lists only that, and its clients call found tools by name.

use std::sync::{Mutex, PoisonError};

use serde_json::Value;
use tool_core::{Dialect, ToolRegistry, ToolResult};

/// The names a session's searches loaded, in the order found.
#[derive(Debug, Default)]
pub(crate) struct LoadedTools(Mutex<Vec<String>>);

impl LoadedTools {
    /// Adds the deferred tools `result` found (a `tool_search` result in MCP's format);
    /// whether the list grew.
    pub(crate) fn add_found(&self, registry: &ToolRegistry, result: &ToolResult) -> bool {
        let mut loaded = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let before = loaded.len();
        for definition in result.found_definitions() {
            let Some(name) = definition.get("name").and_then(Value::as_str) else {
                continue;
            };
            if registry.is_deferred(name) && !loaded.iter().any(|known| known == name) {
                loaded.push(name.to_owned());
            }
        }
        loaded.len() > before
    }

    /// The MCP definitions of the loaded tools the registry still has.
    pub(crate) fn definitions(&self, registry: &ToolRegistry) -> Vec<Value> {
        let loaded = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        loaded
            .iter()
            .filter_map(|name| registry.get(name))
            .map(|tool| Dialect::Mcp.definition(tool.spec()))
            .collect()
    }
}
