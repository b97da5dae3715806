//! `memory_write`: store a memory, or replace the one with the same key.

use agent_tools_core::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;

use super::entry::NewMemory;
use super::format::heading;
use super::store::MemoryStore;

/// Arguments of `memory_write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct MemoryWriteArgs {
    /// The text to remember: a fact, decision, preference or lesson, written so that it
    /// makes sense later without this conversation. At most 64 KiB.
    pub content: String,
    /// A stable name for this memory, e.g. `deploy-procedure`. Writing again with the
    /// same key replaces its content and tags (the id stays), so give a key to facts
    /// that will be updated. Leave it out for one-off notes.
    pub key: Option<String>,
    /// Labels to filter searches by, e.g. `["project-x", "preference"]`. Lowercased;
    /// spaces become `-`.
    pub tags: Option<Vec<String>>,
}

/// Stores a memory and says under which id.
pub(crate) async fn memory_write(store: &MemoryStore, args: MemoryWriteArgs) -> Result<String, ToolError> {
    let tags = args.tags.unwrap_or_default();
    let memory = NewMemory::new(args.content, args.key.as_deref(), &tags)?;
    let (key, tags) = (memory.key.clone(), memory.tags.clone());
    let written = store.write(memory).await?;
    let described = heading(written.id, key.as_deref(), &tags);
    Ok(if written.replaced {
        format!("Replaced memory {described}: the key existed, its content and tags are now the new ones.")
    } else {
        format!("Saved memory {described}.")
    })
}
