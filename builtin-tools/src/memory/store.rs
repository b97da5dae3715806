//! [`MemoryStore`]: the database file, its connections, and async access to them.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};

use rusqlite::{Connection, OpenFlags};

use super::entry::{Memory, NewMemory, SearchResults, Written};
use super::error::MemoryError;
use super::query::FtsQuery;
use super::{location, no_links, ops, schema, tags};

/// Reader connections: enough for concurrent searches on a small machine; each holds
/// its own page cache.
const READERS: usize = 4;

/// The persistent memory: one SQLite file, one writer connection and a few readers.
///
/// Cheap to clone (the clones share the connections). Every operation runs on tokio's
/// blocking thread pool, so it must be awaited inside a tokio runtime.
#[derive(Clone)]
pub struct MemoryStore {
    connections: Arc<Connections>,
}

struct Connections {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
}

impl MemoryStore {
    /// Opens (or creates) the database at `path`, creating its parent directories, and
    /// migrates it to the current schema.
    ///
    /// No component of the path (made absolute) may be a symbolic link, nor the database
    /// or its `-wal`, `-shm` and `-journal` files, and the database may have only one
    /// name ([`MemoryError::Symlink`], [`MemoryError::HardLinked`]): a planted link would
    /// make the store write wherever it points. Give the real path (`realpath`) if yours
    /// goes through a link. Directories it creates are private (`0700`).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, MemoryError> {
        let path = std::path::absolute(path.as_ref()).map_err(|source| MemoryError::CreateDir {
            path: path.as_ref().to_owned(),
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
            connections: Arc::new(Connections {
                path,
                writer: Mutex::new(writer),
                readers,
                next_reader: AtomicUsize::new(0),
            }),
        })
    }

    /// Opens the default database of a workspace, [`MemoryStore::default_path`].
    pub fn open_in(workspace_root: impl AsRef<Path>) -> Result<Self, MemoryError> {
        Self::open(Self::default_path(workspace_root.as_ref())?)
    }

    /// The default database of a workspace (its canonical root), outside it:
    /// `$XDG_DATA_HOME/agent-tools/workspaces/<name>-<hash>/memory.db`, or under
    /// `~/.local/share` without `XDG_DATA_HOME`. See [`default_path_with_env`](Self::default_path_with_env).
    pub fn default_path(workspace_root: &Path) -> Result<PathBuf, MemoryError> {
        Self::default_path_with_env(workspace_root, &|name| std::env::var(name).ok())
    }

    /// [`default_path`](Self::default_path) with the environment (`XDG_DATA_HOME`,
    /// `HOME`) given as a function. Fails when neither is set to an absolute path, and
    /// when the data directory lies inside the workspace (where commands could change the
    /// store); creates nothing.
    pub fn default_path_with_env(
        workspace_root: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<PathBuf, MemoryError> {
        location::default_path(workspace_root, env)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.connections.path
    }

    /// Stores a memory, replacing the content and tags of the one with the same key.
    pub async fn write(&self, memory: NewMemory) -> Result<Written, MemoryError> {
        self.run(move |connections| ops::write(&mut connections.writer(), &memory))
            .await
    }

    /// The memory with this id.
    pub async fn get(&self, id: i64) -> Result<Memory, MemoryError> {
        self.read(move |conn| ops::by_id(conn, id)).await
    }

    /// The memory with this key.
    pub async fn get_by_key(&self, key: &str) -> Result<Memory, MemoryError> {
        let key = key.to_owned();
        self.read(move |conn| ops::by_key(conn, &key)).await
    }

    /// The `count` most recently written memories, newest first.
    pub async fn recent(&self, count: u32) -> Result<Vec<Memory>, MemoryError> {
        self.read(move |conn| ops::recent(conn, count)).await
    }

    /// How many memories are stored.
    pub async fn count(&self) -> Result<u64, MemoryError> {
        self.read(ops::count).await
    }

    /// The best `limit` memories for `query` (any text: it is never read as FTS5
    /// syntax) among those having every tag of `tags`.
    pub async fn search(
        &self,
        query: &str,
        tags: &[String],
        limit: u32,
    ) -> Result<SearchResults, MemoryError> {
        let query = FtsQuery::parse(query)?;
        let tags = tags::normalize(tags)?;
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
        let connections = Arc::clone(&self.connections);
        tokio::task::spawn_blocking(move || job(&connections))
            .await
            .map_err(|error| MemoryError::Task(error.to_string()))?
    }
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryStore")
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
