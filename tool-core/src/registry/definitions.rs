//! Tool definitions for requests, rendered once per tool and set of options.
//!
//! An agent sends its tool definitions with every request; rendering a strict or Gemini
//! definition walks and rewrites the whole schema (tens of microseconds per tool), so
//! each entry keeps what it rendered. Specs never change after registration, so nothing
//! goes stale.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use super::ToolRegistry;
use crate::{Definition, DefinitionOptions, Dialect, ToolSpec};

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
    /// [`Strict::Auto`](crate::Strict::Auto).
    pub fn definitions(&self, dialect: Dialect) -> Vec<Value> {
        self.definitions_with(DefinitionOptions::new(dialect))
    }

    /// The tool definitions rendered with `options`, in registration order.
    pub fn definitions_with(&self, options: DefinitionOptions) -> Vec<Value> {
        let rendered = self.rendered(options);
        rendered
            .iter()
            .map(|definition| definition.value.clone())
            .collect()
    }

    /// The definitions with what each dialect could not express: why a tool is not
    /// strict, what a provider would reject.
    pub fn rendered_definitions(&self, options: DefinitionOptions) -> Vec<Definition> {
        let rendered = self.rendered(options);
        rendered
            .iter()
            .map(|definition| Definition::clone(definition))
            .collect()
    }

    fn rendered(&self, options: DefinitionOptions) -> Vec<Arc<Definition>> {
        self.table()
            .entries
            .iter()
            .map(|entry| entry.definitions.get(options, entry.tool.spec()))
            .collect()
    }
}
