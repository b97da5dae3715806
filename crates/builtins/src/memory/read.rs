//! `memory_read`: whole memories, by id, by key, or the most recent.

use agent_tools_core::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;

use super::entry::Memory;
use super::format::{check_count, date, heading};
use super::store::MemoryStore;
use crate::text_format::plural;

/// Arguments of `memory_read`: give exactly one of `id`, `key` or `recent`.
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct MemoryReadArgs {
    /// The id of one memory (the number after `#` in search results). Give exactly one
    /// of `id`, `key` or `recent`.
    pub id: Option<i64>,
    /// The key of one memory, exactly as it was written.
    pub key: Option<String>,
    /// Instead of one memory: the N most recently written (1–50), newest first.
    #[schemars(range(min = 1, max = 50))]
    pub recent: Option<u32>,
}

/// Returns whole memories: the one with an id or key, or the most recent ones.
pub(crate) async fn memory_read(store: &MemoryStore, args: MemoryReadArgs) -> Result<String, ToolError> {
    match (args.id, args.key, args.recent) {
        (Some(id), None, None) => Ok(render(&store.get(id).await?)),
        (None, Some(key), None) => Ok(render(&store.get_by_key(&key).await?)),
        (None, None, Some(count)) => {
            let memories = store.recent(check_count("recent", count)?).await?;
            Ok(render_recent(&memories))
        }
        (None, None, None) => Err(ToolError::invalid_arguments(
            "give one of `id`, `key` or `recent` (e.g. `{\"recent\": 10}`)",
        )),
        _ => Err(ToolError::invalid_arguments(
            "give only one of `id`, `key` or `recent`, not several",
        )),
    }
}

/// A memory with its heading and dates, then its full text.
fn render(memory: &Memory) -> String {
    let written = if memory.created_at == memory.updated_at {
        format!("written {}", date(&memory.created_at))
    } else {
        format!(
            "created {}, updated {}",
            date(&memory.created_at),
            date(&memory.updated_at)
        )
    };
    let heading = heading(memory.id, memory.key.as_deref(), &memory.tags);
    format!("{heading} · {written}\n{}", memory.content)
}

fn render_recent(memories: &[Memory]) -> String {
    if memories.is_empty() {
        return "No memories are stored yet.".to_owned();
    }
    let entries: Vec<String> = memories.iter().map(render).collect();
    format!(
        "The {} most recently written, newest first:\n\n{}",
        plural(memories.len(), "memory", "memories"),
        entries.join("\n\n")
    )
}
