//! The deferred tools a session's searches found, listed to that session from then on.
//!
//! A registry with deferred tools lists only `tool_search` and the tools that are not
//! deferred. Many MCP clients let their model call only listed tools, so when a
//! `tool_search` call finds deferred tools, the session's list grows by them and the
//! client is told (`notifications/tools/list_changed`, for clients that connected with
//! `initialize`). Every session starts from the short list; a stateless server, which
//! has no sessions, lists only that, and its clients call found tools by name.
//!
//! With OAuth, a session lists only the tools its token reaches: a found tool joins the
//! list only if the caller sees it (the search itself finds no other), and the list is
//! read through the visibility of the request that lists it, so a later token of the
//! same subject with fewer scopes does not see what an earlier one loaded. What it does
//! not do: forget a tool loaded by a token that reached it (it stays, hidden from tokens
//! that do not).

use std::sync::{Mutex, PoisonError};

use agent_tools_core::{Dialect, ToolRegistry, ToolResult, search::ToolVisibility};
use serde_json::Value;

/// The names a session's searches loaded, in the order found.
#[derive(Debug, Default)]
pub(crate) struct LoadedTools(Mutex<Vec<String>>);

impl LoadedTools {
    /// Adds the deferred tools `result` found (a `tool_search` result in MCP's format)
    /// that `visibility` sees (all without one); whether the list grew.
    pub(crate) fn add_found(
        &self,
        registry: &ToolRegistry,
        result: &ToolResult,
        visibility: Option<&ToolVisibility>,
    ) -> bool {
        let mut loaded = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let before = loaded.len();
        for definition in result.found_definitions() {
            let Some(name) = definition.get("name").and_then(Value::as_str) else {
                continue;
            };
            if registry.is_deferred(name)
                && seen(registry, name, visibility)
                && !loaded.iter().any(|known| known == name)
            {
                loaded.push(name.to_owned());
            }
        }
        loaded.len() > before
    }

    /// The MCP definitions of the loaded tools the registry still has and `visibility`
    /// sees (all without one).
    pub(crate) fn definitions(
        &self,
        registry: &ToolRegistry,
        visibility: Option<&ToolVisibility>,
    ) -> Vec<Value> {
        let loaded = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        loaded
            .iter()
            .filter_map(|name| registry.get(name))
            .filter(|tool| visibility.is_none_or(|visibility| visibility.sees(tool.spec())))
            .map(|tool| Dialect::Mcp.definition(tool.spec()))
            .collect()
    }
}

/// Whether the registry's tool `name` is one `visibility` sees.
fn seen(registry: &ToolRegistry, name: &str, visibility: Option<&ToolVisibility>) -> bool {
    let Some(visibility) = visibility else {
        return true;
    };
    registry
        .get(name)
        .is_some_and(|tool| visibility.sees(tool.spec()))
}

#[cfg(test)]
mod tests {
    use agent_tools_core::{
        ToolContext, ToolError, ToolOutput,
        search::TOOL_SEARCH,
        tool::{DynamicTool, ToolSpec},
    };
    use serde_json::json;

    use super::*;

    /// A found tool the caller does not see is not loaded, even if a search returned it.
    #[test]
    fn a_found_tool_joins_the_list_only_if_the_caller_sees_it() {
        let registry = ToolRegistry::builder().defer_all().build();
        for name in ["peek", "poke"] {
            let tool = DynamicTool::new(
                name,
                "A tool.",
                json!({"type": "object"}),
                |_args: Value, _ctx: ToolContext| async move { Ok::<_, ToolError>("") },
            );
            registry.register(tool).unwrap();
        }
        let definitions: Vec<Value> = ["peek", "poke"]
            .iter()
            .map(|name| Dialect::Mcp.definition(registry.get(name).unwrap().spec()))
            .collect();
        let found = ToolResult::new(
            "s",
            TOOL_SEARCH,
            ToolOutput::text("peek, poke").with_structured(json!({"tools": definitions})),
        );
        let peek_only = ToolVisibility::new(|spec: &ToolSpec| spec.meta.name == "peek");
        let names = |definitions: Vec<Value>| -> Vec<String> {
            definitions
                .iter()
                .filter_map(|definition| definition["name"].as_str().map(str::to_owned))
                .collect()
        };

        let loaded = LoadedTools::default();
        assert!(loaded.add_found(&registry, &found, Some(&peek_only)));
        assert_eq!(names(loaded.definitions(&registry, None)), ["peek"]);

        let loaded = LoadedTools::default();
        assert!(loaded.add_found(&registry, &found, None));
        assert_eq!(names(loaded.definitions(&registry, None)), ["peek", "poke"]);
        assert_eq!(
            names(loaded.definitions(&registry, Some(&peek_only))),
            ["peek"],
            "listed through the visibility of the request that lists"
        );
    }
}
