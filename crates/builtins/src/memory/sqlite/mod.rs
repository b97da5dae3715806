//! The SQLite backend: one file, one writer connection and a few readers, every
//! operation on tokio's blocking thread pool. See the [module docs](super) for why.

mod fts_query;
pub(super) mod no_links;
pub(super) mod ops;
pub(super) mod schema;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

use rusqlite::{Connection, OpenFlags};

use super::entry::{Memory, NewMemory, SearchResults, Written};
use super::error::MemoryError;
use super::query::QueryWords;

/// Reader connections: enough for concurrent searches on a small machine; each holds
/// its own page cache.
const READERS: usize = 4;

/// A SQLite memory database and its connections.
pub(super) struct SqliteMemory {
    connections: std::sync::Arc<Connections>,
}

struct Connections {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
}

impl SqliteMemory {
    /// Opens (or creates) the database at `path` and migrates it; see
    /// [`MemoryStore::open`](super::MemoryStore::open).
    pub(super) fn open(path: &Path) -> Result<Self, MemoryError> {
        let path = std::path::absolute(path).map_err(|source| MemoryError::CreateDir {
            path: path.to_owned(),
            source,
        })?;
        no_links::prepare(&path)?;
        let mut writer = open_connection(&path)?;
        schema::configure(&writer)?;
        schema::migrate(&mut writer)?;
        let readers = (0..READERS)
            .map(|_| open_reader(&path).map(Mutex::new))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            connections: std::sync::Arc::new(Connections {
                path,
                writer: Mutex::new(writer),
                readers,
                next_reader: AtomicUsize::new(0),
            }),
        })
    }

    /// The database file.
    pub(super) fn path(&self) -> &Path {
        &self.connections.path
    }

    pub(super) async fn write(&self, memory: NewMemory) -> Result<Written, MemoryError> {
        self.run(move |connections| ops::write(&mut connections.writer(), &memory))
            .await
    }

    pub(super) async fn get(&self, id: i64) -> Result<Memory, MemoryError> {
        self.read(move |conn| ops::by_id(conn, id)).await
    }

    pub(super) async fn get_by_key(&self, key: &str) -> Result<Memory, MemoryError> {
        let key = key.to_owned();
        self.read(move |conn| ops::by_key(conn, &key)).await
    }

    pub(super) async fn recent(&self, count: u32) -> Result<Vec<Memory>, MemoryError> {
        self.read(move |conn| ops::recent(conn, count)).await
    }

    pub(super) async fn count(&self) -> Result<u64, MemoryError> {
        self.read(ops::count).await
    }

    /// `tags` are normalized.
    pub(super) async fn search(
        &self,
        query: QueryWords,
        tags: Vec<String>,
        limit: u32,
    ) -> Result<SearchResults, MemoryError> {
        self.read(move |conn| ops::search(conn, &query, &tags, limit))
            .await
    }

    /// Runs `job` on a reader connection.
    async fn read<T, F>(&self, job: F) -> Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, MemoryError> + Send + 'static,
    {
        self.run(move |connections| job(&connections.reader())).await
    }

    /// Runs `job` on the blocking thread pool.
    async fn run<T, F>(&self, job: F) -> Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&Connections) -> Result<T, MemoryError> + Send + 'static,
    {
        let connections = std::sync::Arc::clone(&self.connections);
        tokio::task::spawn_blocking(move || job(&connections))
            .await
            .map_err(|error| MemoryError::Task(error.to_string()))?
    }
}

impl fmt::Debug for SqliteMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteMemory")
            .field("path", &self.connections.path)
            .finish_non_exhaustive()
    }
}

impl Connections {
    /// The writer. A panic while it was held left no transaction open (dropping a
    /// transaction rolls it back), so a poisoned lock is still usable.
    fn writer(&self) -> MutexGuard<'_, Connection> {
        self.writer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A free reader, or, when all are busy, the next one in turn to wait for.
    fn reader(&self) -> MutexGuard<'_, Connection> {
        for reader in &self.readers {
            match reader.try_lock() {
                Ok(guard) => return guard,
                Err(TryLockError::Poisoned(poisoned)) => return poisoned.into_inner(),
                Err(TryLockError::WouldBlock) => {}
            }
        }
        let turn = self.next_reader.fetch_add(1, Ordering::Relaxed) % self.readers.len();
        self.readers[turn].lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A connection to the database that SQLite refuses to open through a symbolic link
/// (`SQLITE_OPEN_NOFOLLOW` checks every component of the path); `URI` is left out, so a
/// path is never read as a `file:` URI with options.
pub(super) fn open_connection(path: &Path) -> Result<Connection, MemoryError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    Ok(Connection::open_with_flags(path, flags)?)
}

/// A connection that can only read (`query_only`), opened after the writer migrated.
fn open_reader(path: &Path) -> Result<Connection, MemoryError> {
    let conn = open_connection(path)?;
    schema::configure(&conn)?;
    conn.pragma_update(None, "query_only", true)?;
    Ok(conn)
}
