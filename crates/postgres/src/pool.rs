//! [`Pool`]: a fixed set of PostgreSQL connections, shared by every task.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio_postgres::{Client, Config, Statement, Transaction};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::Error;

/// Prepared statements kept per connection; the search's text varies with the number of
/// words, so the cache is bounded (and emptied when full: rare, and cheap to refill).
const MAX_STATEMENTS: usize = 256;

/// What every connection runs first: a bound on what one statement can cost the server
/// if something goes wrong, before the pool's own settings.
const SESSION_SETTINGS: &str = "SET statement_timeout = '30s'";

/// How a [`Pool`] connects.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PoolOptions {
    /// Connections kept open. Default 4.
    pub size: usize,
    /// How long one connection attempt may take (the URL's `connect_timeout` wins when
    /// it gives one). Default 10 seconds.
    pub connect_timeout: Duration,
    /// SQL every new connection runs (`SET …`), after the pool's own settings.
    pub session_settings: Option<&'static str>,
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self {
            size: 4,
            connect_timeout: Duration::from_secs(10),
            session_settings: None,
        }
    }
}

impl PoolOptions {
    /// Sets [`size`](Self::size) (at least 1).
    pub fn size(mut self, size: usize) -> Self {
        self.size = size.max(1);
        self
    }

    /// Sets [`connect_timeout`](Self::connect_timeout).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets [`session_settings`](Self::session_settings).
    pub fn session_settings(mut self, sql: &'static str) -> Self {
        self.session_settings = Some(sql);
        self
    }
}

/// A fixed set of PostgreSQL connections, shared by every task.
///
/// A `tokio_postgres::Client` pipelines the queries of the tasks that use it at once, so
/// a connection is not checked out to one task the way a blocking driver's is: each use
/// takes the next connection in turn and runs its statements on it alongside others.
/// That suits single statements (an upsert, a search, a batch insert); a transaction
/// needs a connection of its own ([`Pool::connect`]). A connection the server closed (a
/// restart, a failover, an idle timeout) is replaced on its next turn; the statement
/// that found it closed fails with the server's error rather than running twice.
///
/// Each connection keeps its prepared statements, so a statement is parsed once per
/// connection, not once per use.
pub struct Pool {
    config: Config,
    tls: MakeRustlsConnect,
    session_settings: Option<&'static str>,
    slots: Vec<tokio::sync::Mutex<Option<Arc<Connection>>>>,
    next: AtomicUsize,
}

/// One connection and its prepared statements.
pub struct Connection {
    client: Client,
    statements: Mutex<HashMap<String, Statement>>,
}

impl Pool {
    /// A pool for `url` (`postgres://user:password@host:port/database`, with libpq's URL
    /// options such as `sslmode`); connects only when a connection is first needed.
    pub fn new(url: &str, options: PoolOptions) -> Result<Self, Error> {
        let mut config = Config::from_str(url)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(options.connect_timeout);
        }
        Ok(Self {
            config,
            tls: crate::tls::connector()?,
            session_settings: options.session_settings,
            slots: (0..options.size.max(1))
                .map(|_| tokio::sync::Mutex::new(None))
                .collect(),
            next: AtomicUsize::new(0),
        })
    }

    /// The next connection in turn, connecting (again) if it is not open.
    pub async fn get(&self) -> Result<Arc<Connection>, Error> {
        let turn = self.next.fetch_add(1, Ordering::Relaxed) % self.slots.len();
        let mut slot = self.slots[turn].lock().await;
        if let Some(connection) = slot.as_ref().filter(|connection| !connection.client.is_closed()) {
            return Ok(Arc::clone(connection));
        }
        let connection = Arc::new(self.connect().await?);
        *slot = Some(Arc::clone(&connection));
        Ok(connection)
    }

    /// Drops `connection` from the pool if it is still there, so that the next use of its
    /// turn connects anew: for a connection a statement just found broken, which the
    /// pool may not have noticed yet.
    pub async fn forget(&self, connection: &Arc<Connection>) {
        for slot in &self.slots {
            let mut slot = slot.lock().await;
            if slot.as_ref().is_some_and(|held| Arc::ptr_eq(held, connection)) {
                *slot = None;
            }
        }
    }

    /// A new connection of the caller's own (not one of the pool's), its I/O driven by a
    /// task of its own: for transactions.
    pub async fn connect(&self) -> Result<Connection, Error> {
        let (client, connection) = self.config.connect(self.tls.clone()).await?;
        // When the connection ends (with an error or not), the client reports itself
        // closed and the next call on this slot connects again; the error itself reaches
        // the queries that were waiting on it.
        tokio::spawn(connection);
        client.batch_execute(SESSION_SETTINGS).await?;
        if let Some(settings) = self.session_settings {
            client.batch_execute(settings).await?;
        }
        Ok(Connection {
            client,
            statements: Mutex::new(HashMap::new()),
        })
    }
}

impl Connection {
    /// The client, to run statements on.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Begins a transaction, on a connection no other task has ([`Pool::connect`]'s).
    pub async fn transaction(&mut self) -> Result<Transaction<'_>, Error> {
        Ok(self.client.transaction().await?)
    }

    /// `sql` prepared on this connection, from the cache when it was prepared before.
    pub async fn prepare(&self, sql: &str) -> Result<Statement, Error> {
        if let Some(statement) = self.cached().get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql).await?;
        let mut cache = self.cached();
        if cache.len() >= MAX_STATEMENTS {
            cache.clear();
        }
        cache.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    fn cached(&self) -> std::sync::MutexGuard<'_, HashMap<String, Statement>> {
        self.statements.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("hosts", &self.config.get_hosts())
            .field("ports", &self.config.get_ports())
            .field("dbname", &self.config.get_dbname())
            .field("user", &self.config.get_user())
            .field("size", &self.slots.len())
            .finish_non_exhaustive()
    }
}
