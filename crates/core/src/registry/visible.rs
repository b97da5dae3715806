//! What a call made with a [`ToolVisibility`] is shown of a registry's table.
//!
//! A tool is seen when the visibility says so; the registry's own `tool_search` only when
//! the call also sees one of the deferred tools it searches, since a registry holding
//! none of them would serve no search. Dispatch looks calls up through
//! [`ToolRegistry::lookup_seen`] (a hidden tool is an unknown tool) and names only seen
//! tools in an unknown tool's error; [`ToolRegistry::definitions_for`] offers only seen
//! tools. What it does not cover is in the [`ToolVisibility`] docs.

use std::sync::Arc;

use super::call::CallOptions;
use super::{Entry, ToolRegistry, ToolTable};
use crate::policy::ToolRules;
use crate::tool_search::ToolVisibility;

impl ToolTable {
    /// Which entries `visibility` sees, parallel to `entries`.
    pub(super) fn seen_by(&self, visibility: &ToolVisibility) -> Vec<bool> {
        let mut seen: Vec<bool> = self
            .entries
            .iter()
            .enumerate()
            .map(|(position, entry)| self.search != Some(position) && visibility.sees(entry.tool.spec()))
            .collect();
        if let Some(search) = self.search {
            let some_deferred = seen
                .iter()
                .zip(&self.deferred)
                .any(|(seen, deferred)| *seen && *deferred);
            seen[search] = some_deferred && visibility.sees(self.entries[search].tool.spec());
        }
        seen
    }

    /// Whether `visibility` sees the entry at `position`.
    fn sees(&self, position: usize, visibility: &ToolVisibility) -> bool {
        if !visibility.sees(self.entries[position].tool.spec()) {
            return false;
        }
        self.search != Some(position)
            || self
                .entries
                .iter()
                .zip(&self.deferred)
                .any(|(entry, deferred)| *deferred && visibility.sees(entry.tool.spec()))
    }
}

impl ToolRegistry {
    /// The visibility a call was made with: its own extensions' first, then the
    /// registry's, as the tool's [`extension`](crate::context::ToolContext::extension) finds it.
    pub(super) fn visibility_of<'a>(&'a self, options: &'a CallOptions) -> Option<&'a ToolVisibility> {
        options
            .extensions
            .as_ref()
            .and_then(|extensions| extensions.get::<ToolVisibility>())
            .or_else(|| self.config().extensions.get::<ToolVisibility>())
    }

    /// The entry for `name` and the policy's rules for it, if `visibility` sees it.
    pub(super) fn lookup_seen(
        &self,
        name: &str,
        visibility: Option<&ToolVisibility>,
    ) -> Option<(Entry, Option<Arc<ToolRules>>)> {
        let Some(visibility) = visibility else {
            return self.lookup(name);
        };
        // The visibility is asked without holding the table's lock.
        let table = self.table();
        let &position = table.index.get(name)?;
        if !table.sees(position, visibility) {
            return None;
        }
        table.lookup(name)
    }

    /// The names an unknown tool's error may list: those `visibility` sees (all without
    /// one), in registration order.
    pub(super) fn seen_names(&self, visibility: Option<&ToolVisibility>) -> Vec<Arc<str>> {
        let table = self.table();
        let seen = visibility.map(|visibility| table.seen_by(visibility));
        table
            .entries
            .iter()
            .enumerate()
            .filter(|(position, _)| seen.as_ref().is_none_or(|seen| seen[*position]))
            .map(|(_, entry)| entry.name.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::{
        audit::Outcome,
        context::ToolContext,
        dialect::{DefinitionOptions, Dialect},
        dynamic::DynamicTool,
        error::ToolError,
        registry::{ToolCall, ToolRegistry},
        spec::{ToolMeta, ToolSpec},
        tool_search::ToolVisibility,
    };

    /// `read_notes` in the core set; `list_notes` and, unless left out, `delete_notes`
    /// (destructive) deferred.
    fn notes(with_delete: bool) -> ToolRegistry {
        let registry = ToolRegistry::builder().defer_all_except(["read_notes"]).build();
        let tools = [
            ("read_notes", true),
            ("delete_notes", false),
            ("list_notes", true),
        ];
        for (name, read_only) in tools {
            if name == "delete_notes" && !with_delete {
                continue;
            }
            let meta = ToolMeta::new(name, "Work on the notes.").read_only(read_only);
            let tool = DynamicTool::from_meta(
                meta,
                json!({"type": "object"}),
                |_args: Value, _ctx: ToolContext| async move { Ok::<_, ToolError>("ran") },
            );
            registry.register(tool).unwrap();
        }
        registry
    }

    fn read_only() -> ToolVisibility {
        ToolVisibility::new(|spec: &ToolSpec| spec.meta.annotations.read_only == Some(true))
    }

    fn names(definitions: Vec<Value>) -> Vec<String> {
        definitions
            .into_iter()
            .filter_map(|definition| definition["name"].as_str().map(str::to_owned))
            .collect()
    }

    #[tokio::test]
    async fn a_hidden_tool_is_an_unknown_tool_and_never_suggested() {
        let registry = notes(true);
        for name in ["delete_notes", "delete_note", "erase_notes"] {
            let hidden = registry
                .call(ToolCall::new("c1", name, "{}").with_visibility(read_only()))
                .await;
            let absent = notes(false).call(ToolCall::new("c1", name, "{}")).await;
            assert_eq!(hidden.outcome, Outcome::UnknownTool, "{name}");
            assert_eq!(
                hidden.text(),
                absent.text(),
                "{name}: the same answer as if it were not registered"
            );
        }
        let near = registry
            .call(ToolCall::new("c3", "delete_note", "{}").with_visibility(read_only()))
            .await;
        assert!(!near.text().contains("delete_notes"), "{}", near.text());
        assert!(near.text().contains("list_notes"), "{}", near.text());

        let unrestricted = registry.call(ToolCall::new("c4", "delete_note", "{}")).await;
        assert!(
            unrestricted.text().contains("Did you mean `delete_notes`"),
            "{}",
            unrestricted.text()
        );
        let ran = registry.call(ToolCall::new("c5", "delete_notes", "{}")).await;
        assert_eq!(ran.text(), "ran");
    }

    #[tokio::test]
    async fn the_search_is_there_only_while_a_deferred_tool_is_seen() {
        let registry = notes(true);
        let core_only = ToolVisibility::new(|spec: &ToolSpec| {
            spec.meta.name != "list_notes" && spec.meta.name != "delete_notes"
        });
        let options = DefinitionOptions::new(Dialect::Mcp);
        assert_eq!(
            names(registry.definitions_for(options, &read_only())),
            ["read_notes", "tool_search"]
        );
        assert_eq!(
            names(registry.definitions_for(options, &core_only)),
            ["read_notes"]
        );
        let search = registry
            .call(ToolCall::new("c1", "tool_search", json!({"query": "notes"})).with_visibility(core_only))
            .await;
        assert_eq!(search.outcome, Outcome::UnknownTool, "{}", search.text());

        let anthropic = DefinitionOptions::new(Dialect::Anthropic);
        let offered = registry.definitions_for(anthropic, &read_only());
        assert_eq!(offered.len(), 3, "{offered:?}");
        assert_eq!(offered[1]["name"], "list_notes");
        assert_eq!(offered[1]["defer_loading"], true);
        assert_eq!(offered[2]["type"], "tool_search_tool_bm25_20251119");
    }
}
