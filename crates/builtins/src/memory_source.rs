//! Where the memory tools get their store: one already open, a SQLite path opened at the
//! first memory call, or a PostgreSQL database connected at the first memory call — so
//! that merely registering the tools (to list or describe them) creates no database file
//! and needs no database server. And, for a shared database, which namespace a call
//! sees: the store's own, or one per principal.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use agent_tools_core::{ToolError, context::Principal};

use crate::memory::{MemoryError, MemoryStore};
#[cfg(feature = "postgres")]
use agent_tools_postgres::PoolOptions;

/// A memory store, open or to be opened, and how calls are scoped in it.
#[derive(Debug, Clone)]
pub(crate) struct MemorySource {
    origin: Origin,
    /// Whether each principal's calls see a namespace of their own.
    per_principal: bool,
}

#[derive(Debug, Clone)]
enum Origin {
    /// Opened by the caller.
    Open(MemoryStore),
    /// A SQLite file opened on first use.
    Path(PathBuf, Arc<Mutex<Option<MemoryStore>>>),
    /// A PostgreSQL database connected on first use.
    #[cfg(feature = "postgres")]
    Postgres(Arc<LazyPostgres>),
}

/// What connecting to PostgreSQL needs, and the store once connected.
#[cfg(feature = "postgres")]
pub(crate) struct LazyPostgres {
    url: String,
    options: PoolOptions,
    namespace: String,
    store: tokio::sync::OnceCell<MemoryStore>,
}

#[cfg(feature = "postgres")]
impl std::fmt::Debug for LazyPostgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may hold a password.
        f.debug_struct("LazyPostgres")
            .field("namespace", &self.namespace)
            .field("connected", &self.store.initialized())
            .finish_non_exhaustive()
    }
}

impl MemorySource {
    /// A store the caller opened.
    pub(crate) fn open(store: MemoryStore) -> Self {
        Self::from(Origin::Open(store))
    }

    /// A SQLite store opened at `path` when first needed.
    pub(crate) fn lazy(path: PathBuf) -> Self {
        Self::from(Origin::Path(path, Arc::new(Mutex::new(None))))
    }

    /// A PostgreSQL store connected when first needed, seeing `namespace`.
    #[cfg(feature = "postgres")]
    pub(crate) fn postgres(url: String, options: PoolOptions, namespace: String) -> Self {
        Self::from(Origin::Postgres(Arc::new(LazyPostgres {
            url,
            options,
            namespace,
            store: tokio::sync::OnceCell::new(),
        })))
    }

    fn from(origin: Origin) -> Self {
        Self {
            origin,
            per_principal: false,
        }
    }

    /// Gives each principal a namespace of its own.
    pub(crate) fn per_principal(mut self, yes: bool) -> Self {
        self.per_principal = yes;
        self
    }

    /// Refuses settings that cannot work, before any call: namespaces of a SQLite store,
    /// an invalid namespace name.
    pub(crate) fn check(&self) -> Result<(), MemoryError> {
        match &self.origin {
            Origin::Open(store) if store.namespace().is_none() && self.per_principal => {
                Err(MemoryError::NamespacesNeedPostgres)
            }
            Origin::Path(..) if self.per_principal => Err(MemoryError::NamespacesNeedPostgres),
            #[cfg(feature = "postgres")]
            Origin::Postgres(lazy) => crate::memory::check_namespace(&lazy.namespace),
            _ => Ok(()),
        }
    }

    /// The store a call by `principal` uses, opening it if this is the first use.
    pub(crate) async fn store(&self, principal: Option<&Principal>) -> Result<MemoryStore, ToolError> {
        let store = self.base().await?;
        match principal {
            Some(principal) if self.per_principal => {
                let base = store.namespace().unwrap_or_default();
                Ok(store.with_namespace(&format!("{base}/principal:{}", principal.subject))?)
            }
            _ => Ok(store),
        }
    }

    /// The store, before any per-principal namespace.
    async fn base(&self) -> Result<MemoryStore, ToolError> {
        let cannot_open =
            |error: MemoryError| ToolError::new(format!("cannot open the memory database: {error}"));
        match &self.origin {
            Origin::Open(store) => Ok(store.clone()),
            Origin::Path(path, cell) => {
                let mut opened = cell.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(store) = opened.as_ref() {
                    return Ok(store.clone());
                }
                let store = MemoryStore::open(path).map_err(cannot_open)?;
                *opened = Some(store.clone());
                Ok(store)
            }
            #[cfg(feature = "postgres")]
            Origin::Postgres(lazy) => {
                let connect = || async {
                    let store = MemoryStore::postgres_with(&lazy.url, lazy.options.clone()).await?;
                    store.with_namespace(&lazy.namespace)
                };
                // A failed connection is not kept: the next call tries again.
                let store = lazy.store.get_or_try_init(connect).await.map_err(cannot_open)?;
                Ok(store.clone())
            }
        }
    }
}
