//! What goes into the store and what comes out of it.

use super::error::MemoryError;
use super::tags;

/// The largest content of one memory, in bytes (64 KiB).
pub const MAX_CONTENT_BYTES: usize = 64 * 1024;
/// The longest key, in characters.
pub const MAX_KEY_CHARS: usize = 200;

/// A memory to write, checked: non-empty content within [`MAX_CONTENT_BYTES`], a
/// trimmed key, normalized tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMemory {
    pub(super) content: String,
    pub(super) key: Option<String>,
    pub(super) tags: Vec<String>,
}

impl NewMemory {
    /// Checks a memory to write.
    pub fn new(content: String, key: Option<&str>, tags: &[String]) -> Result<Self, MemoryError> {
        if content.trim().is_empty() {
            return Err(MemoryError::EmptyContent);
        }
        if content.len() > MAX_CONTENT_BYTES {
            return Err(MemoryError::ContentTooLarge { size: content.len() });
        }
        // PostgreSQL cannot store U+0000 in text; refused for both stores, so that a memory
        // SQLite keeps is one PostgreSQL could keep too.
        if content.contains('\0') {
            return Err(MemoryError::NulCharacter { field: "content" });
        }
        if key.is_some_and(|key| key.contains('\0')) {
            return Err(MemoryError::NulCharacter { field: "key" });
        }
        let key = key.map(str::trim).map(str::to_owned);
        if key
            .as_ref()
            .is_some_and(|key| key.is_empty() || key.chars().count() > MAX_KEY_CHARS)
        {
            return Err(MemoryError::InvalidKey);
        }
        let tags = tags::normalize(tags)?;
        Ok(Self { content, key, tags })
    }
}

/// The outcome of a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// The memory's id.
    pub id: i64,
    /// Whether a memory with the same key was replaced (it keeps its id).
    pub replaced: bool,
}

/// A stored memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memory {
    /// Its id, assigned when first written.
    pub id: i64,
    /// Its key, if it was written with one.
    pub key: Option<String>,
    /// The text.
    pub content: String,
    /// Normalized tags, sorted.
    pub tags: Vec<String>,
    /// When it was first written: UTC, `YYYY-MM-DDTHH:MM:SS.sssZ`.
    pub created_at: String,
    /// When it was last written, in the same form.
    pub updated_at: String,
}

/// A memory found by a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// Its id.
    pub id: i64,
    /// Its key, if any.
    pub key: Option<String>,
    /// Its tags.
    pub tags: Vec<String>,
    /// When it was last written.
    pub updated_at: String,
    /// An excerpt of the content around the matches, matched words in `«»`.
    pub snippet: String,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResults {
    /// Best match first.
    pub hits: Vec<SearchHit>,
    /// Whether the hits contain every word of the query; false when no memory did and
    /// the search fell back to memories with any of them.
    pub matched_all_words: bool,
    /// Set when more memories matched than one search ranks: how many of the newest
    /// matches were ranked (the rest were not considered).
    pub ranked_newest: Option<u32>,
}
