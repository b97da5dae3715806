//! The store's statements on PostgreSQL, each naming its namespace.
//!
//! # Search
//!
//! Each query word becomes `phraseto_tsquery('english', $n)` of its
//! [`searchable`](super::searchable) form, the words joined with `&&` (all) or `||`
//! (any): the words are bound parameters, so nothing in them is query syntax. The
//! matches with the tags are the newest [`RANK_WINDOW`] (plus one, to know whether there
//! were more), ranked by `ts_rank` (normalized by the log of the length, as BM25 damps
//! long documents); `ts_headline` marks the words in the few returned.
//!
//! Which way PostgreSQL finds the newest matches is its planner's choice, and the reason
//! every execution is planned with its own words (`plan_cache_mode`, see `pool.rs`): a
//! rare word through the GIN index, a common one by walking `(namespace, write_seq)`
//! newest first until the window is full, which stops after a few thousand rows where
//! the index would have visited every match.

use std::fmt::Write as _;

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::super::entry::{Memory, NewMemory, SearchHit, SearchResults, Written};
use super::super::error::MemoryError;
use super::super::query::{QueryWords, RANK_WINDOW, unsegment};
use super::super::tags;
use super::searchable::searchable;
use agent_tools_postgres::Connection;

/// A timestamp as the SQLite store writes it: UTC, `YYYY-MM-DDTHH:MM:SS.sssZ`.
macro_rules! utc {
    ($column:literal) => {
        concat!(
            "to_char(",
            $column,
            " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
        )
    };
}

/// The columns [`memory_from_row`] reads.
const MEMORY_COLUMNS: &str = concat!(
    "id, key, content, tags, ",
    utc!("created_at"),
    ", ",
    utc!("updated_at")
);

/// Inserts a memory, or replaces the content and tags of the one with the same key in
/// the namespace; one statement, so two writers of one key cannot both insert.
const WRITE_SQL: &str = "
    INSERT INTO agent_tools_memories (namespace, key, content, tags, search)
    VALUES ($1, $2, $3, $4,
            setweight(to_tsvector('english', $5), 'D') || setweight(to_tsvector('english', $6), 'C'))
    ON CONFLICT (namespace, key) DO UPDATE SET
        content = excluded.content, tags = excluded.tags, search = excluded.search,
        updated_at = now(), write_seq = nextval('agent_tools_memory_writes')
    RETURNING id, xmax <> '0'::xid";

/// What `ts_headline` shows: about two dozen words around the best match, marked as the
/// SQLite store's snippets are.
const HEADLINE_OPTIONS: &str =
    "StartSel=«, StopSel=», MaxWords=24, MinWords=12, ShortWord=2, MaxFragments=1, FragmentDelimiter=\" … \"";

pub(super) async fn write(
    conn: &Connection,
    namespace: &str,
    memory: &NewMemory,
) -> Result<Written, MemoryError> {
    let labels = tags::labels(memory.key.as_deref(), &memory.tags);
    let (body, labels) = (searchable(&memory.content), searchable(&labels));
    let statement = conn.prepare(WRITE_SQL).await?;
    let row = conn
        .client()
        .query_one(
            &statement,
            &[
                &namespace,
                &memory.key,
                &memory.content,
                &memory.tags,
                &body,
                &labels,
            ],
        )
        .await?;
    Ok(Written {
        id: row.try_get(0)?,
        replaced: row.try_get(1)?,
    })
}

pub(super) async fn by_id(conn: &Connection, namespace: &str, id: i64) -> Result<Memory, MemoryError> {
    let sql = format!("SELECT {MEMORY_COLUMNS} FROM agent_tools_memories WHERE namespace = $1 AND id = $2");
    let found = query_opt(conn, &sql, &[&namespace, &id]).await?;
    found
        .map(|row| memory_from_row(&row))
        .transpose()?
        .ok_or(MemoryError::IdNotFound(id))
}

pub(super) async fn by_key(conn: &Connection, namespace: &str, key: &str) -> Result<Memory, MemoryError> {
    if key.contains('\0') {
        // No key can hold one (see `NewMemory::new`), and PostgreSQL would refuse the text.
        return Err(MemoryError::KeyNotFound(key.to_owned()));
    }
    let sql = format!("SELECT {MEMORY_COLUMNS} FROM agent_tools_memories WHERE namespace = $1 AND key = $2");
    let found = query_opt(conn, &sql, &[&namespace, &key]).await?;
    found
        .map(|row| memory_from_row(&row))
        .transpose()?
        .ok_or_else(|| MemoryError::KeyNotFound(key.to_owned()))
}

pub(super) async fn recent(
    conn: &Connection,
    namespace: &str,
    count: u32,
) -> Result<Vec<Memory>, MemoryError> {
    let sql = format!(
        "SELECT {MEMORY_COLUMNS} FROM agent_tools_memories WHERE namespace = $1
         ORDER BY write_seq DESC LIMIT $2"
    );
    let statement = conn.prepare(&sql).await?;
    let rows = conn
        .client()
        .query(&statement, &[&namespace, &i64::from(count)])
        .await?;
    rows.iter().map(memory_from_row).collect()
}

pub(super) async fn count(conn: &Connection, namespace: &str) -> Result<u64, MemoryError> {
    let sql = "SELECT count(*) FROM agent_tools_memories WHERE namespace = $1";
    let statement = conn.prepare(sql).await?;
    let count: i64 = conn
        .client()
        .query_one(&statement, &[&namespace])
        .await?
        .try_get(0)?;
    Ok(count.unsigned_abs())
}

/// The best `limit` matches of every word of `query` (or, when none has them all, of any
/// word) among the namespace's memories having all of `tags` (normalized).
pub(super) async fn search(
    conn: &Connection,
    namespace: &str,
    query: &QueryWords,
    tags: &[String],
    limit: u32,
) -> Result<SearchResults, MemoryError> {
    let results = ranked(conn, namespace, query, tags, limit, Join::All).await?;
    if results.hits.is_empty() && query.has_several_words() {
        return ranked(conn, namespace, query, tags, limit, Join::Any).await;
    }
    Ok(results)
}

/// How a query's words combine.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Join {
    All,
    Any,
}

async fn ranked(
    conn: &Connection,
    namespace: &str,
    query: &QueryWords,
    tags: &[String],
    limit: u32,
    join: Join,
) -> Result<SearchResults, MemoryError> {
    let words: Vec<String> = query.words().iter().map(|word| searchable(word)).collect();
    let window = i64::from(RANK_WINDOW) + 1;
    let limit = i64::from(limit);
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&namespace, &tags, &window, &limit];
    params.extend(words.iter().map(|word| word as &(dyn ToSql + Sync)));
    let statement = conn.prepare(&search_sql(words.len(), join)).await?;
    let rows = conn.client().query(&statement, &params).await?;
    let matches: i64 = match rows.first() {
        Some(row) => row.try_get(5)?,
        None => 0,
    };
    let hits = rows
        .iter()
        .map(|row| {
            Ok(SearchHit {
                id: row.try_get(0)?,
                key: row.try_get(1)?,
                tags: row.try_get(2)?,
                updated_at: row.try_get(3)?,
                snippet: unsegment(row.try_get(4)?),
            })
        })
        .collect::<Result<_, MemoryError>>()?;
    Ok(SearchResults {
        hits,
        matched_all_words: join == Join::All,
        ranked_newest: (matches > i64::from(RANK_WINDOW)).then_some(RANK_WINDOW),
    })
}

/// The search for `words` query words: `$1` the namespace, `$2` the tags, `$3` the
/// window, `$4` the limit, `$5`… the words.
pub(super) fn search_sql(words: usize, join: Join) -> String {
    let operator = match join {
        Join::All => " && ",
        Join::Any => " || ",
    };
    let mut tsquery = String::from("(");
    for param in 5..5 + words {
        if param > 5 {
            tsquery.push_str(operator);
        }
        let _ = write!(tsquery, "phraseto_tsquery('english', ${param})");
    }
    tsquery.push(')');
    format!(
        "SELECT m.id, m.key, m.tags, {updated}, ts_headline('english', m.content, {tsquery}, '{HEADLINE_OPTIONS}'),
                best.matches
         FROM (
             SELECT w.id, ts_rank(w.search, {tsquery}, 1) AS rank, count(*) OVER () AS matches
             FROM (
                 SELECT id, search FROM agent_tools_memories
                 WHERE namespace = $1 AND tags @> $2 AND search @@ {tsquery}
                 ORDER BY write_seq DESC LIMIT $3
             ) AS w
             ORDER BY rank DESC, w.id DESC
             LIMIT $4
         ) AS best
         JOIN agent_tools_memories AS m ON m.id = best.id
         ORDER BY best.rank DESC, best.id DESC",
        updated = utc!("m.updated_at"),
    )
}

async fn query_opt(
    conn: &Connection,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Option<Row>, MemoryError> {
    let statement = conn.prepare(sql).await?;
    Ok(conn.client().query_opt(&statement, params).await?)
}

fn memory_from_row(row: &Row) -> Result<Memory, MemoryError> {
    Ok(Memory {
        id: row.try_get(0)?,
        key: row.try_get(1)?,
        content: row.try_get(2)?,
        tags: row.try_get(3)?,
        created_at: row.try_get(4)?,
        updated_at: row.try_get(5)?,
    })
}
