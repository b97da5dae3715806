//! Tool definitions for requests, rendered once per tool and set of options.
//!
//! An agent sends its tool definitions with every request; rendering a strict or Gemini
//! definition walks and rewrites the whole schema (tens of microseconds per tool), so
//! each entry keeps what it rendered. Specs never change after registration, so nothing
//! goes stale.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use super::ToolRegistry;
use crate::tool_search;
use crate::{
    dialect::{Definition, DefinitionOptions, Dialect},
    spec::ToolSpec,
    tool_search::{ToolSearchMode, ToolVisibility},
};

/// The definitions rendered for one tool; few option sets are ever used, so a list.
#[derive(Default)]
pub(crate) struct DefinitionCache(Mutex<Vec<(DefinitionOptions, Arc<Definition>)>>);

impl DefinitionCache {
    fn get(&self, options: DefinitionOptions, spec: &ToolSpec) -> Arc<Definition> {
        let mut rendered = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, definition)) = rendered.iter().find(|(seen, _)| *seen == options) {
            return definition.clone();
        }
        let definition = Arc::new(options.render(spec));
        rendered.push((options, definition.clone()));
        definition
    }
}

impl ToolRegistry {
    /// The tool definitions in a provider's request format, in registration order, with
    /// [`Strict::Auto`](crate::dialect::Strict::Auto) and, when tools are deferred,
    /// [`ToolSearchMode::Native`].
    pub fn definitions(&self, dialect: Dialect) -> Vec<Value> {
        self.definitions_with(DefinitionOptions::new(dialect))
    }

    /// The tool definitions rendered with `options`, in registration order; deferred
    /// tools as [`options.tool_search`](DefinitionOptions::tool_search) says, a
    /// provider's own search tool last.
    pub fn definitions_with(&self, options: DefinitionOptions) -> Vec<Value> {
        self.offered(options, None)
            .into_iter()
            .map(|offered| offered.value())
            .collect()
    }

    /// The definitions a caller that may know of only the tools `visibility` sees is
    /// offered: those of [`definitions_with`](Self::definitions_with) that it sees, and a
    /// search (the registry's or the provider's) only while it sees a deferred tool. See
    /// [`ToolVisibility`].
    pub fn definitions_for(&self, options: DefinitionOptions, visibility: &ToolVisibility) -> Vec<Value> {
        self.offered(options, Some(visibility))
            .into_iter()
            .map(|offered| offered.value())
            .collect()
    }

    /// The definitions with what each dialect could not express: why a tool is not
    /// strict, what a provider would reject.
    pub fn rendered_definitions(&self, options: DefinitionOptions) -> Vec<Definition> {
        self.offered(options, None)
            .into_iter()
            .map(|offered| offered.definition())
            .collect()
    }

    /// What a request offers the model (of what `visibility` sees), before cloning into
    /// values.
    fn offered(&self, options: DefinitionOptions, visibility: Option<&ToolVisibility>) -> Vec<Offered> {
        let table = self.table();
        let seen = visibility.map(|visibility| table.seen_by(visibility));
        let seen = |position: usize| seen.as_ref().is_none_or(|seen| seen[position]);
        // The search is seen while a deferred tool is.
        let deferring = table.search.is_some_and(seen);
        let native = match options.tool_search {
            ToolSearchMode::Native if deferring => tool_search::native_search_tool(options.dialect),
            _ => None,
        };
        // The rendering of one tool does not depend on how deferral is offered.
        let key = options.tool_search(ToolSearchMode::default());
        let mut offered = Vec::with_capacity(table.entries.len() + 1);
        for (position, entry) in table.entries.iter().enumerate() {
            let is_search = table.search == Some(position);
            let deferred = table.deferred[position];
            let shown = match options.tool_search {
                ToolSearchMode::LoadAll => !is_search,
                _ if native.is_some() => !is_search,
                _ => !deferred,
            };
            if shown && seen(position) {
                offered.push(Offered::Tool {
                    definition: entry.definitions.get(key, entry.tool.spec()),
                    defer_loading: deferred && native.is_some(),
                });
            }
        }
        offered.extend(native.map(Offered::ProviderSearch));
        offered
    }
}

/// One entry of a request's tool list.
enum Offered {
    /// A registered tool, marked deferred for a provider's own search.
    Tool {
        definition: Arc<Definition>,
        defer_loading: bool,
    },
    /// The provider's search tool.
    ProviderSearch(Value),
}

impl Offered {
    fn value(self) -> Value {
        match self {
            Offered::Tool {
                definition,
                defer_loading,
            } => {
                let mut value = definition.value.clone();
                if defer_loading {
                    tool_search::mark_deferred(&mut value);
                }
                value
            }
            Offered::ProviderSearch(value) => value,
        }
    }

    fn definition(self) -> Definition {
        match self {
            Offered::Tool {
                definition,
                defer_loading,
            } => {
                let mut definition = Definition::clone(&definition);
                if defer_loading {
                    tool_search::mark_deferred(&mut definition.value);
                }
                definition
            }
            Offered::ProviderSearch(value) => Definition::new(value),
        }
    }
}
