//! Building registries from registries: per-agent views, unions and namespaces.
//!
//! Derived registries are snapshots: they share the tools (and the settings and audit
//! sinks) of their source at the time they are made, and later registrations on either
//! side do not carry over.

use std::sync::Arc;

use serde_json::Value;

use super::{Entry, ToolRegistry, ToolTable};
use crate::tool::BoxFuture;
use crate::{
    context::ToolContext,
    error::{RegistryError, ToolError},
    output::ToolOutput,
    spec::{ToolSpec, validate_tool_name},
    tool::Tool,
};

impl ToolRegistry {
    /// A registry with the tools whose spec satisfies `predicate`, e.g. only read-only
    /// tools for a planning agent.
    pub fn filter(&self, predicate: impl Fn(&ToolSpec) -> bool) -> ToolRegistry {
        let entries = self
            .table()
            .entries
            .iter()
            .filter(|entry| predicate(entry.tool.spec()))
            .cloned()
            .collect();
        self.derive(entries)
    }

    /// A registry with exactly the named tools; fails if one is not registered or named
    /// twice.
    pub fn subset(&self, names: &[&str]) -> Result<ToolRegistry, RegistryError> {
        let repeated = names
            .iter()
            .enumerate()
            .find(|(position, name)| names[..*position].contains(name));
        if let Some((_, name)) = repeated {
            return Err(RegistryError::DuplicateName {
                name: (*name).to_owned(),
            });
        }
        let table = self.table();
        let entries = names
            .iter()
            .map(|name| {
                table
                    .get(name)
                    .cloned()
                    .ok_or_else(|| RegistryError::UnknownTool {
                        name: (*name).to_owned(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.derive(entries))
    }

    /// Adds all of `other`'s tools to this registry, all or none.
    pub fn merge(&self, other: &ToolRegistry) -> Result<(), RegistryError> {
        self.insert_all(other.table().entries.clone())
    }

    /// A registry with the same tools renamed `<prefix><name>`, to keep groups apart when
    /// merging (`fs_read_file`, `web_fetch`). Fails if a new name is invalid.
    pub fn with_prefix(&self, prefix: &str) -> Result<ToolRegistry, RegistryError> {
        let entries = self
            .table()
            .entries
            .iter()
            .map(|entry| prefixed(entry, prefix))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.derive(entries))
    }

    fn derive(&self, entries: Vec<Entry>) -> ToolRegistry {
        let mut derived = ToolRegistry::with_config(
            self.config().clone(),
            ToolTable::from_entries(entries, self.config()),
        );
        derived.session_id = self.session_id.clone();
        derived
    }
}

fn prefixed(entry: &Entry, prefix: &str) -> Result<Entry, RegistryError> {
    let name = format!("{prefix}{}", entry.name);
    if let Err(source) = validate_tool_name(&name) {
        return Err(RegistryError::InvalidName { name, source });
    }
    let mut spec = entry.tool.spec().clone();
    spec.meta.name = name;
    let renamed = Arc::new(Renamed {
        inner: entry.tool.clone(),
        spec,
    });
    Ok(Entry::from_parts(renamed, entry.validator.clone()))
}

/// A tool under another name; everything else is the inner tool's.
struct Renamed {
    inner: Arc<dyn Tool>,
    spec: ToolSpec,
}

impl Tool for Renamed {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, arguments: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        self.inner.call(arguments, ctx)
    }

    // What the call would do does not depend on the tool's name: a person asked about
    // `ops_deploy` sees the same preview as about `deploy`.
    fn preview(&self, arguments: Value) -> BoxFuture<'_, Option<String>> {
        self.inner.preview(arguments)
    }

    // A new name leaves the arguments as they were.
    fn __takes_direct_arguments(&self) -> bool {
        self.inner.__takes_direct_arguments()
    }

    fn __direct_call(&self, text: &str) -> Option<crate::direct::DirectCall<'_>> {
        self.inner.__direct_call(text)
    }
}
