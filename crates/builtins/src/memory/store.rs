//! [`MemoryStore`]: one interface over the two backends, SQLite (embedded, the default)
//! and PostgreSQL (feature `postgres`, for memories shared by several processes or
//! machines, in namespaces).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::entry::{Memory, NewMemory, SearchResults, Written};
use super::error::MemoryError;
#[cfg(feature = "postgres")]
use super::postgres::PostgresMemory;
use super::query::QueryWords;
use super::sqlite::SqliteMemory;
use super::{location, namespace, tags};
#[cfg(feature = "postgres")]
use agent_tools_postgres::PoolOptions;

/// The persistent memory: a SQLite file ([`MemoryStore::open`]) or a PostgreSQL database
/// ([`MemoryStore::postgres`], feature `postgres`).
///
/// Cheap to clone (the clones share the connections). Every operation must be awaited
/// inside a tokio runtime.
#[derive(Clone)]
pub struct MemoryStore {
    backend: Backend,
}

#[derive(Clone)]
enum Backend {
    Sqlite(Arc<SqliteMemory>),
    #[cfg(feature = "postgres")]
    Postgres {
        database: Arc<PostgresMemory>,
        /// The namespace this store reads and writes; see [`MemoryStore::with_namespace`].
        namespace: Arc<str>,
    },
}

impl MemoryStore {
    /// Opens (or creates) the SQLite database at `path`, creating its parent directories,
    /// and migrates it to the current schema.
    ///
    /// No component of the path (made absolute) may be a symbolic link, nor the database
    /// or its `-wal`, `-shm` and `-journal` files, and the database may have only one
    /// name ([`MemoryError::Symlink`], [`MemoryError::HardLinked`]): a planted link would
    /// make the store write wherever it points. Give the real path (`realpath`) if yours
    /// goes through a link. Directories it creates are private (`0700`).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, MemoryError> {
        let sqlite = SqliteMemory::open(path.as_ref())?;
        Ok(Self {
            backend: Backend::Sqlite(Arc::new(sqlite)),
        })
    }

    /// Opens the default SQLite database of a workspace, [`MemoryStore::default_path`].
    pub fn open_in(workspace_root: impl AsRef<Path>) -> Result<Self, MemoryError> {
        Self::open(Self::default_path(workspace_root.as_ref())?)
    }

    /// Connects to PostgreSQL at `url` (`postgres://user:password@host:port/database`,
    /// with libpq's URL options such as `sslmode`), creating or migrating the schema, with
    /// the default [`PoolOptions`]; the store reads and writes the namespace `default`
    /// (see [`with_namespace`](Self::with_namespace)).
    #[cfg(feature = "postgres")]
    pub async fn postgres(url: &str) -> Result<Self, MemoryError> {
        Self::postgres_with(url, PoolOptions::default()).await
    }

    /// [`postgres`](Self::postgres) with the pool's options (`agent_tools_postgres`'s, which the
    /// audit log's pool shares): its size and connect timeout; the store sets the
    /// session settings itself.
    #[cfg(feature = "postgres")]
    pub async fn postgres_with(url: &str, options: PoolOptions) -> Result<Self, MemoryError> {
        let database = PostgresMemory::connect(url, options).await?;
        Ok(Self {
            backend: Backend::Postgres {
                database: Arc::new(database),
                namespace: Arc::from(namespace::DEFAULT),
            },
        })
    }

    /// The same database, seeing only the memories of the namespace `name`: writes go
    /// there, and searches, reads and ids find nothing outside it. Namespaces keep tenants
    /// (users, agents, workspaces) apart in one PostgreSQL database; a name is 1 to 512
    /// characters, none of them control characters.
    ///
    /// A SQLite store has no namespaces (its file is the unit: one per workspace), and
    /// refuses with [`MemoryError::NamespacesNeedPostgres`].
    pub fn with_namespace(&self, name: &str) -> Result<Self, MemoryError> {
        namespace::check(name)?;
        match &self.backend {
            Backend::Sqlite(_) => Err(MemoryError::NamespacesNeedPostgres),
            #[cfg(feature = "postgres")]
            Backend::Postgres { database, .. } => Ok(Self {
                backend: Backend::Postgres {
                    database: Arc::clone(database),
                    namespace: Arc::from(name),
                },
            }),
        }
    }

    /// The namespace this store sees: `None` for SQLite.
    pub fn namespace(&self) -> Option<&str> {
        match &self.backend {
            Backend::Sqlite(_) => None,
            #[cfg(feature = "postgres")]
            Backend::Postgres { namespace, .. } => Some(namespace),
        }
    }

    /// The default SQLite database of a workspace (its canonical root), outside it:
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

    /// The name a workspace's memories have by default in a shared database: its
    /// directory's name and a hash of its canonical path, as in
    /// [`default_path`](Self::default_path) (`<name>-<16 hex digits>`).
    pub fn default_namespace(workspace_root: &Path) -> String {
        crate::state_dir::directory_name(workspace_root)
    }

    /// The SQLite database file; `None` for PostgreSQL.
    pub fn path(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Sqlite(sqlite) => Some(sqlite.path()),
            #[cfg(feature = "postgres")]
            Backend::Postgres { .. } => None,
        }
    }

    /// Stores a memory, replacing the content and tags of the one with the same key.
    pub async fn write(&self, memory: NewMemory) -> Result<Written, MemoryError> {
        match &self.backend {
            Backend::Sqlite(sqlite) => sqlite.write(memory).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres { database, namespace } => database.write(namespace, &memory).await,
        }
    }

    /// The memory with this id.
    pub async fn get(&self, id: i64) -> Result<Memory, MemoryError> {
        match &self.backend {
            Backend::Sqlite(sqlite) => sqlite.get(id).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres { database, namespace } => database.get(namespace, id).await,
        }
    }

    /// The memory with this key.
    pub async fn get_by_key(&self, key: &str) -> Result<Memory, MemoryError> {
        match &self.backend {
            Backend::Sqlite(sqlite) => sqlite.get_by_key(key).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres { database, namespace } => database.get_by_key(namespace, key).await,
        }
    }

    /// The `count` most recently written memories, newest first.
    pub async fn recent(&self, count: u32) -> Result<Vec<Memory>, MemoryError> {
        match &self.backend {
            Backend::Sqlite(sqlite) => sqlite.recent(count).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres { database, namespace } => database.recent(namespace, count).await,
        }
    }

    /// How many memories are stored (in this namespace).
    pub async fn count(&self) -> Result<u64, MemoryError> {
        match &self.backend {
            Backend::Sqlite(sqlite) => sqlite.count().await,
            #[cfg(feature = "postgres")]
            Backend::Postgres { database, namespace } => database.count(namespace).await,
        }
    }

    /// The best `limit` memories for `query` (any text: it is never read as query
    /// syntax) among those having every tag of `tags`.
    pub async fn search(
        &self,
        query: &str,
        tags: &[String],
        limit: u32,
    ) -> Result<SearchResults, MemoryError> {
        let query = QueryWords::parse(query)?;
        let tags = tags::normalize(tags)?;
        match &self.backend {
            Backend::Sqlite(sqlite) => sqlite.search(query, tags, limit).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres { database, namespace } => {
                database.search(namespace, &query, &tags, limit).await
            }
        }
    }
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("MemoryStore");
        match &self.backend {
            Backend::Sqlite(sqlite) => debug.field("path", &sqlite.path()),
            #[cfg(feature = "postgres")]
            Backend::Postgres { database, namespace } => {
                debug.field("postgres", database).field("namespace", namespace)
            }
        };
        debug.finish_non_exhaustive()
    }
}
