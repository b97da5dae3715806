//! The PostgreSQL backend: memories several processes and machines share, in
//! namespaces, with the SQLite store's contract (ranked by relevance, tags, keys that
//! upsert, CJK search, queries that cannot fail).
//!
//! Full-text search is PostgreSQL's own: a `tsvector` per memory, a GIN index, and
//! `ts_rank` (see `ops.rs`). For CJK and identifiers, text is reduced to plain words
//! before PostgreSQL parses it (`searchable.rs`), each CJK character a word of its own —
//! the SQLite store's segmentation. A trigram index (`pg_trgm`) was the alternative: it
//! finds any substring, but not words shorter than three characters (most Chinese words
//! are two), it needs an extension installed, and its index over 1,000,000 memories is
//! several times the size of the GIN index over words.
//!
//! What the namespaces stop and what they do not: see [`MemoryStore::with_namespace`].
//!
//! [`MemoryStore::with_namespace`]: super::MemoryStore::with_namespace

mod ops;
mod schema;
mod searchable;

use std::fmt;

use agent_tools_postgres::{Pool, PoolOptions};

use super::entry::{Memory, NewMemory, SearchResults, Written};
use super::error::MemoryError;
use super::query::QueryWords;

/// What the store's connections set first: a search's plan depends on its words (a rare
/// word is best found through the full-text index, a common one by walking the newest
/// memories), so every execution is planned with its own values instead of PostgreSQL
/// settling on one generic plan after five runs.
const SESSION_SETTINGS: &str = "SET plan_cache_mode = force_custom_plan";

/// A PostgreSQL memory database: its pool of connections.
pub(super) struct PostgresMemory {
    pool: Pool,
}

impl PostgresMemory {
    /// Connects to `url` with `options` (their session settings replaced by the
    /// store's) and migrates the schema.
    pub(super) async fn connect(url: &str, options: PoolOptions) -> Result<Self, MemoryError> {
        let pool = Pool::new(url, options.session_settings(SESSION_SETTINGS))?;
        agent_tools_postgres::migrate(&mut pool.connect().await?, "memory", schema::MIGRATIONS).await?;
        Ok(Self { pool })
    }

    pub(super) async fn write(&self, namespace: &str, memory: &NewMemory) -> Result<Written, MemoryError> {
        ops::write(&*self.pool.get().await?, namespace, memory).await
    }

    pub(super) async fn get(&self, namespace: &str, id: i64) -> Result<Memory, MemoryError> {
        ops::by_id(&*self.pool.get().await?, namespace, id).await
    }

    pub(super) async fn get_by_key(&self, namespace: &str, key: &str) -> Result<Memory, MemoryError> {
        ops::by_key(&*self.pool.get().await?, namespace, key).await
    }

    pub(super) async fn recent(&self, namespace: &str, count: u32) -> Result<Vec<Memory>, MemoryError> {
        ops::recent(&*self.pool.get().await?, namespace, count).await
    }

    pub(super) async fn count(&self, namespace: &str) -> Result<u64, MemoryError> {
        ops::count(&*self.pool.get().await?, namespace).await
    }

    /// `tags` are normalized.
    pub(super) async fn search(
        &self,
        namespace: &str,
        query: &QueryWords,
        tags: &[String],
        limit: u32,
    ) -> Result<SearchResults, MemoryError> {
        ops::search(&*self.pool.get().await?, namespace, query, tags, limit).await
    }
}

impl fmt::Debug for PostgresMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.pool, f)
    }
}
