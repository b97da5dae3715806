//! The memory tools: `memory_write`, `memory_search` and `memory_read`, a persistent
//! store of notes a model keeps across sessions, in one SQLite file outside the workspace
//! by default (`$XDG_DATA_HOME/agent-tools/workspaces/<name>-<hash>/memory.db`).
//!
//! # Who can change it
//!
//! Only the memory tools. The default location is outside the workspace, where neither
//! the file tools nor the sandboxed `exec` can write (`location.rs`), and the path is
//! opened without following a symbolic link at any component (`no_links.rs`). What that
//! relies on: `exec`'s sandbox (with `sandbox = "none"`, a command can change anything
//! the user can), and, for a `[memory] path` chosen inside the workspace, nothing — such
//! a file is kept from the file tools, not from commands.
//!
//! # Storage
//!
//! SQLite (compiled in through `rusqlite`'s `bundled` feature, so FTS5 is always there)
//! in WAL mode: readers never wait for the writer, and a commit appends to the log
//! instead of rewriting pages. With `synchronous = NORMAL` a commit is not fsynced (the
//! log is synced at checkpoints): a killed process loses nothing it committed, and a
//! power cut or kernel crash can lose the last commits but never corrupts the file.
//! That is the right trade for notes, and makes a write several times faster. The schema
//! is versioned with `PRAGMA user_version` and migrated step by step (`schema.rs`).
//!
//! SQLite calls block, so every operation runs on `tokio::task::spawn_blocking`. The
//! store keeps one writer connection and a few reader connections: SQLite admits one
//! writer at a time anyway, so a single writer behind a mutex queues writes in-process
//! instead of letting connections fight over the lock with busy retries, while WAL lets
//! the readers search in parallel with it and with each other.
//!
//! # Search
//!
//! An FTS5 table indexes each memory's content, key and tags with the `porter unicode61
//! remove_diacritics 2` tokenizer: words, case- and accent-insensitive, English
//! suffixes stemmed (`configured` finds `configure`), ranked by BM25. `unicode61` keeps a
//! run of CJK characters as one token, since those scripts do not separate words with
//! spaces; so the indexed text (and the query) puts a zero-width space between CJK
//! characters, each becomes a token, and a CJK word of any length — two characters
//! included — is found as a phrase of adjacent characters. The `trigram` tokenizer was
//! the alternative: it finds substrings, but not terms shorter than three characters
//! (most Chinese words are two), its index is two to three times larger, and ranking
//! over it was about twice as slow.
//!
//! A model's query is never handed to FTS5 as syntax: it is split into words, each word
//! becomes a double-quoted phrase (with `"` doubled), so `AND`, `NEAR(…)`, `*`, `col:x`,
//! parentheses and quotes are just text (`query.rs`). Words without a letter or digit
//! (punctuation, emoji) are not indexed by `unicode61`, so they are dropped, and a query
//! of nothing else is refused with a message. All words must match; when no memory has
//! them all, the search falls back to any of them, still best match first.
//!
//! BM25 costs about a microsecond per matching memory, and FTS5 must rank every match
//! before it knows the best ten, so a very common word in a large store would make a
//! search slow (50 ms for half of 100,000 memories). Past [`RANK_WINDOW`] matches only
//! the newest that many are ranked, and the output tells the model to add words or tags.
//! Tags are also put in the FTS5 expression (as phrases of the indexed `labels` column),
//! so that a tag filter narrows what is ranked, not only what is shown.

mod entry;
mod error;
mod format;
mod location;
mod namespace;
#[cfg(feature = "postgres")]
mod postgres;
mod query;
mod read;
mod search;
mod sqlite;
mod store;
mod tags;
mod write;

pub use entry::{MAX_CONTENT_BYTES, MAX_KEY_CHARS, Memory, NewMemory, SearchHit, SearchResults, Written};
pub use error::MemoryError;
pub use location::LEGACY_PATH;
pub use namespace::MAX_NAMESPACE_CHARS;
#[cfg(feature = "postgres")]
pub(crate) use namespace::check as check_namespace;
pub use query::{MAX_QUERY_CHARS, RANK_WINDOW};
pub use read::MemoryReadArgs;
pub(crate) use read::memory_read;
pub use search::MemorySearchArgs;
pub(crate) use search::memory_search;
pub use store::MemoryStore;
pub use tags::{MAX_TAG_CHARS, MAX_TAGS};
pub use write::MemoryWriteArgs;
pub(crate) use write::memory_write;

#[cfg(test)]
mod tests;
