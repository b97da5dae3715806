//! `memory_search`: full-text search over the memories, best match first.

use agent_tools_core::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;

use super::entry::{SearchHit, SearchResults};
use super::format::{MAX_LISTED, check_count, date, heading};
use super::store::MemoryStore;
use super::tags;
use crate::text_format::plural;

/// Results when `limit` is not given.
const DEFAULT_LIMIT: u32 = 10;

/// Arguments of `memory_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct MemorySearchArgs {
    /// Words to look for, e.g. `staging database password`. Memories containing every
    /// word come first, ranked by relevance; word endings are ignored (`configured`
    /// finds `configure`). If no memory has every word, those with some are returned.
    /// Plain words: quotes, operators and punctuation are read as text. Chinese,
    /// Japanese and Korean words are found inside sentences.
    pub query: String,
    /// Only memories that have all of these tags.
    pub tags: Option<Vec<String>>,
    /// Most results to return, best first. Default 10, at most 50.
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
}

/// Searches the memories and lists the best matches with excerpts.
pub(crate) async fn memory_search(store: &MemoryStore, args: MemorySearchArgs) -> Result<String, ToolError> {
    let limit = check_count("limit", args.limit.unwrap_or(DEFAULT_LIMIT))?;
    let tags = tags::normalize(&args.tags.unwrap_or_default())?;
    let results = store.search(&args.query, &tags, limit).await?;
    Ok(render(&args.query, &tags, limit, &results))
}

fn render(query: &str, tags: &[String], limit: u32, results: &SearchResults) -> String {
    let tagged = if tags.is_empty() {
        String::new()
    } else {
        format!(" tagged {}", tags.join(", "))
    };
    let count = plural(results.hits.len(), "memory", "memories");
    let verb = |one: &'static str, many: &'static str| if results.hits.len() == 1 { one } else { many };
    let mut out = match (results.hits.is_empty(), results.matched_all_words) {
        (true, _) => return format!("No memory{tagged} matches `{query}`."),
        (false, true) => format!(
            "{count}{tagged} {} `{query}`, best first:\n",
            verb("matches", "match")
        ),
        (false, false) => format!(
            "No memory{tagged} contains every word of `{query}`; {count} {} some of them, best first:\n",
            verb("contains", "contain")
        ),
    };
    for hit in &results.hits {
        out.push_str(&render_hit(hit));
    }
    if let Some(window) = results.ranked_newest {
        out.push_str(&format!(
            "\nOver {window} memories match, so only the {window} newest were ranked; add words or tags to \
             find older ones."
        ));
    }
    if results.hits.len() == limit as usize {
        out.push_str(&format!(
            "\nShowing the best {limit}; more may match (raise `limit`, up to {MAX_LISTED}, or add words or tags)."
        ));
    }
    out.push_str("\nRead a whole memory with `memory_read` and its id.");
    out
}

fn render_hit(hit: &SearchHit) -> String {
    let heading = heading(hit.id, hit.key.as_deref(), &hit.tags);
    format!(
        "\n{heading} · updated {}\n  {}\n",
        date(&hit.updated_at),
        hit.snippet
    )
}
