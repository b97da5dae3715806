//! Connection settings and the schema, versioned with `PRAGMA user_version`.
//!
//! Each migration takes the file from version `n` to `n + 1` in one transaction that
//! also sets the new version, so a crash mid-migration leaves the old version intact,
//! and a second process opening the file at the same moment waits for the first
//! (`BEGIN IMMEDIATE`) and then finds nothing left to do. Migrations are Rust functions
//! rather than SQL scripts because building the search index needs [`segment`].

use std::time::Duration;

use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::super::error::MemoryError;
use super::super::query::segment;
use super::super::tags;

/// How long a connection waits for another process's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The migrations, in order: the one at index `n` takes version `n` to `n + 1`.
const MIGRATIONS: &[fn(&Transaction<'_>) -> rusqlite::Result<()>] = &[create_memories, create_search_index];

/// The schema version this build creates.
pub(in crate::memory) const CURRENT_VERSION: i64 = MIGRATIONS.len() as i64;

/// Sets up a new connection: WAL, `synchronous = NORMAL`, the busy timeout.
///
/// WAL is a property of the file (set once, kept), the rest is per connection.
pub(super) fn configure(conn: &Connection) -> Result<(), MemoryError> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // A file system without shared memory refuses WAL and keeps a rollback journal: the
    // store still works, only readers then wait for the writer.
    let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    // See the module docs of `memory`: in WAL mode, NORMAL loses nothing to a killed
    // process, and at worst the last commits (never consistency) to a power cut.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(())
}

/// Brings the file to [`CURRENT_VERSION`], one migration at a time.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), MemoryError> {
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
        if version > CURRENT_VERSION {
            return Err(MemoryError::NewerSchema {
                found: version,
                supported: CURRENT_VERSION,
            });
        }
        let Some(step) = usize::try_from(version)
            .ok()
            .and_then(|index| MIGRATIONS.get(index))
        else {
            return Ok(());
        };
        step(&tx)?;
        tx.pragma_update(None, "user_version", version + 1)?;
        tx.commit()?;
    }
}

/// Version 1: the memories themselves. `write_seq` grows with every write, so `recent`
/// has an exact order even for writes within one millisecond.
fn create_memories(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE memories (
             id INTEGER PRIMARY KEY,
             key TEXT UNIQUE,
             content TEXT NOT NULL,
             tags TEXT NOT NULL DEFAULT '',
             created_at TEXT NOT NULL,
             updated_at TEXT NOT NULL,
             write_seq INTEGER NOT NULL
         );
         CREATE UNIQUE INDEX memories_by_write ON memories (write_seq);",
    )
}

/// Version 2: the full-text index over content (column 0) and key and tags (column 1,
/// weighted double in BM25), filled from the existing memories.
fn create_search_index(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE VIRTUAL TABLE memories_fts USING fts5(
             body, labels, tokenize = 'porter unicode61 remove_diacritics 2'
         );
         INSERT INTO memories_fts (memories_fts, rank) VALUES ('rank', 'bm25(1.0, 2.0)');",
    )?;
    let mut select = tx.prepare("SELECT id, key, content, tags FROM memories")?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        let key: Option<String> = row.get(1)?;
        let tags = tags::from_column(&row.get::<_, String>(3)?);
        index(tx, row.get(0)?, &row.get::<_, String>(2)?, key.as_deref(), &tags)?;
    }
    Ok(())
}

/// Adds a memory's row to the full-text index (delete the old row first when
/// replacing).
pub(super) fn index(
    conn: &Connection,
    id: i64,
    content: &str,
    key: Option<&str>,
    tags: &[String],
) -> rusqlite::Result<()> {
    let labels = tags::labels(key, tags);
    conn.prepare_cached("DELETE FROM memories_fts WHERE rowid = ?1")?
        .execute([id])?;
    conn.prepare_cached("INSERT INTO memories_fts (rowid, body, labels) VALUES (?1, ?2, ?3)")?
        .execute((id, segment(content), segment(&labels)))?;
    Ok(())
}
