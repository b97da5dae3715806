//! The store's operations, as SQL on one connection. They block; [`SqliteMemory`]
//! runs them on the blocking thread pool.
//!
//! [`SqliteMemory`]: super::SqliteMemory

use std::fmt::Write as _;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior};

use super::super::entry::{Memory, NewMemory, SearchHit, SearchResults, Written};
use super::super::error::MemoryError;
use super::super::query::{QueryWords, RANK_WINDOW, unsegment};
use super::super::tags;
use super::{fts_query, schema};

/// The columns [`memory_from_row`] reads.
const MEMORY_COLUMNS: &str = "id, key, content, tags, created_at, updated_at";

/// Inserts a memory, or replaces the content and tags of the one with the same key.
pub(super) fn write(conn: &mut Connection, memory: &NewMemory) -> Result<Written, MemoryError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let existing: Option<i64> = match &memory.key {
        Some(key) => tx
            .prepare_cached("SELECT id FROM memories WHERE key = ?1")?
            .query_row([key], |row| row.get(0))
            .optional()?,
        None => None,
    };
    let tags = tags::to_column(&memory.tags);
    let id = if let Some(id) = existing {
        tx.prepare_cached(
            "UPDATE memories SET content = ?2, tags = ?3,
                 updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
                 write_seq = (SELECT max(write_seq) + 1 FROM memories)
             WHERE id = ?1",
        )?
        .execute((id, &memory.content, &tags))?;
        tx.prepare_cached("DELETE FROM memories_fts WHERE rowid = ?1")?
            .execute([id])?;
        id
    } else {
        tx.prepare_cached(
            "INSERT INTO memories (key, content, tags, created_at, updated_at, write_seq)
             VALUES (?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
                     strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
                     (SELECT coalesce(max(write_seq), 0) + 1 FROM memories))",
        )?
        .execute((&memory.key, &memory.content, &tags))?;
        tx.last_insert_rowid()
    };
    schema::index(&tx, id, &memory.content, memory.key.as_deref(), &memory.tags)?;
    tx.commit()?;
    Ok(Written {
        id,
        replaced: existing.is_some(),
    })
}

/// The memory with this id.
pub(super) fn by_id(conn: &Connection, id: i64) -> Result<Memory, MemoryError> {
    let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ?1");
    let found = conn
        .prepare_cached(&sql)?
        .query_row([id], memory_from_row)
        .optional()?;
    found.ok_or(MemoryError::IdNotFound(id))
}

/// The memory with this key.
pub(super) fn by_key(conn: &Connection, key: &str) -> Result<Memory, MemoryError> {
    let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories WHERE key = ?1");
    let found = conn
        .prepare_cached(&sql)?
        .query_row([key], memory_from_row)
        .optional()?;
    found.ok_or_else(|| MemoryError::KeyNotFound(key.to_owned()))
}

/// The `count` most recently written memories, newest first.
pub(super) fn recent(conn: &Connection, count: u32) -> Result<Vec<Memory>, MemoryError> {
    let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories ORDER BY write_seq DESC LIMIT ?1");
    let mut statement = conn.prepare_cached(&sql)?;
    let memories = statement.query_map([count], memory_from_row)?;
    Ok(memories.collect::<rusqlite::Result<_>>()?)
}

/// How many memories there are.
pub(super) fn count(conn: &Connection) -> Result<u64, MemoryError> {
    let count: i64 = conn.query_row("SELECT count(*) FROM memories", [], |row| row.get(0))?;
    Ok(count.unsigned_abs())
}

/// The best `limit` matches of every word of `query` (or, when none has them all, of
/// any word) among the memories having all of `tags` (normalized).
pub(super) fn search(
    conn: &Connection,
    query: &QueryWords,
    tags: &[String],
    limit: u32,
) -> Result<SearchResults, MemoryError> {
    let results = ranked(conn, fts_query::all(query, tags), tags, limit, true)?;
    if results.hits.is_empty() && query.has_several_words() {
        return Ok(ranked(conn, fts_query::any(query, tags), tags, limit, false)?);
    }
    Ok(results)
}

/// Runs an FTS5 expression, best BM25 rank first, over at most [`RANK_WINDOW`] matches.
fn ranked(
    conn: &Connection,
    expression: String,
    tags: &[String],
    limit: u32,
    matched_all_words: bool,
) -> rusqlite::Result<SearchResults> {
    let floor: Option<i64> = conn
        .prepare_cached(WINDOW_SQL)?
        .query_row((&expression, RANK_WINDOW), |row| row.get(0))
        .optional()?;
    let mut params = vec![
        Value::Text(expression),
        Value::Integer(limit.into()),
        Value::Integer(floor.unwrap_or(0)),
    ];
    params.extend(tags.iter().map(|tag| Value::Text(tags::needle(tag))));
    let mut statement = conn.prepare_cached(&ranked_sql(tags.len()))?;
    let hits = statement.query_map(rusqlite::params_from_iter(params), |row| {
        Ok(SearchHit {
            id: row.get(0)?,
            key: row.get(1)?,
            tags: tags::from_column(&row.get::<_, String>(2)?),
            updated_at: row.get(3)?,
            snippet: unsegment(&row.get::<_, String>(4)?),
        })
    })?;
    Ok(SearchResults {
        hits: hits.collect::<rusqlite::Result<_>>()?,
        matched_all_words,
        ranked_newest: floor.map(|_| RANK_WINDOW),
    })
}

/// The id of the match just older than the [`RANK_WINDOW`] newest (`?2`), if there are
/// more matches of `?1`. The expression holds the tags, so this counts a close superset
/// of the memories with them.
pub(in crate::memory) const WINDOW_SQL: &str =
    "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?1 ORDER BY rowid DESC LIMIT 1 OFFSET ?2";

/// The ranked search: `?1` the FTS5 expression, `?2` the limit, `?3` the id matches must
/// be above (see [`WINDOW_SQL`]), `?4`… the tags, tested exactly.
///
/// FTS5 orders by `rank` itself (no temporary B-tree), so `snippet` is only computed for
/// the rows returned.
pub(in crate::memory) fn ranked_sql(tag_count: usize) -> String {
    let mut sql = String::from(
        "SELECT m.id, m.key, m.tags, m.updated_at, snippet(memories_fts, 0, '«', '»', '…', 24)
         FROM memories_fts JOIN memories AS m ON m.id = memories_fts.rowid
         WHERE memories_fts MATCH ?1 AND memories_fts.rowid > ?3",
    );
    for param in 4..4 + tag_count {
        let _ = write!(sql, " AND instr(m.tags, ?{param}) > 0");
    }
    sql.push_str(" ORDER BY memories_fts.rank LIMIT ?2");
    sql
}

fn memory_from_row(row: &Row<'_>) -> rusqlite::Result<Memory> {
    Ok(Memory {
        id: row.get(0)?,
        key: row.get(1)?,
        content: row.get(2)?,
        tags: tags::from_column(&row.get::<_, String>(3)?),
        created_at: row.get(4)?,
        updated_at: row.get(5)?,
    })
}
