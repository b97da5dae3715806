//! [`PostgresTaskStore`]: MCP tasks in a table every replica of a server shares.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use agent_tools_core::task::{TaskChange, TaskRecord, TaskStatus, TaskStore, TaskStoreError};
use agent_tools_core::tool::BoxFuture;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use crate::exclusive::Exclusive;
use crate::{Error, Migration, Pool, PoolOptions, migrate};

/// The schema of the task table, version by version.
///
/// The record is kept whole, as serde writes it, in `record`; `status`, `created_ms` and
/// `expires_ms` are copies of its fields for the indexes `list` and `remove_expired`
/// use, written from the same record by the same statement. `json`, not `jsonb`: the
/// record must read back exactly as it was written (a tool's arguments may hold U+0000,
/// which `jsonb` refuses, and keep their keys' order), and no statement looks inside it.
/// Ids compare bytewise (`COLLATE "C"`), as the memory store orders them.
const MIGRATIONS: &[Migration] = &["
    CREATE TABLE agent_tools_tasks (
        id text COLLATE \"C\" PRIMARY KEY,
        status text NOT NULL,
        created_ms bigint NOT NULL,
        expires_ms bigint,
        record json NOT NULL
    );
    CREATE INDEX agent_tools_tasks_status ON agent_tools_tasks (status, created_ms, id);
    CREATE INDEX agent_tools_tasks_expires ON agent_tools_tasks (expires_ms)
        WHERE expires_ms IS NOT NULL;
"];

const INSERT_SQL: &str = "
    INSERT INTO agent_tools_tasks (id, status, created_ms, expires_ms, record)
    VALUES ($1, $2, $3, $4, $5::text::json)
    ON CONFLICT (id) DO NOTHING
    RETURNING 1";

const UPDATE_SQL: &str = "
    UPDATE agent_tools_tasks
    SET status = $2, created_ms = $3, expires_ms = $4, record = $5::text::json
    WHERE id = $1";

const GET_SQL: &str = "SELECT id, record::text FROM agent_tools_tasks WHERE id = $1";

const LOCK_SQL: &str = "SELECT id, record::text FROM agent_tools_tasks WHERE id = $1 FOR UPDATE";

const LIST_SQL: &str = "
    SELECT id, record::text FROM agent_tools_tasks
    WHERE status = $1 ORDER BY created_ms, id LIMIT $2";

const REMOVE_SQL: &str = "
    WITH removed AS (DELETE FROM agent_tools_tasks WHERE expires_ms <= $1 RETURNING 1)
    SELECT count(*) FROM removed";

/// What every connection of the store runs first. A change holds its task's row locked
/// from its read to its commit, a moment apart; a process frozen in between (stopped, or
/// swapping) would hold up every other change to that task, so the server ends such a
/// session after ten seconds, and the lock with it.
const SESSION_SETTINGS: &str = "SET idle_in_transaction_session_timeout = '10s'";

/// How [`PostgresTaskStore`] connects: a replica opens up to `connections +
/// transactions` connections (each a server process), the second kind only as changes
/// need them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TaskStoreOptions {
    /// Connections for single statements (reading, listing, creating and removing
    /// tasks), each shared by every task at once. Default 2.
    pub connections: usize,
    /// Connections for changes, each running one change's transaction at a time: at
    /// most this many changes run at once, and others wait their turn. Default 4.
    pub transactions: usize,
    /// How long one connection attempt may take (the URL's `connect_timeout` wins when
    /// it gives one). Default 10 seconds.
    pub connect_timeout: Duration,
}

impl Default for TaskStoreOptions {
    fn default() -> Self {
        Self {
            connections: 2,
            transactions: 4,
            connect_timeout: Duration::from_secs(10),
        }
    }
}

impl TaskStoreOptions {
    /// Sets [`connections`](Self::connections) (at least 1).
    pub fn connections(mut self, connections: usize) -> Self {
        self.connections = connections.max(1);
        self
    }

    /// Sets [`transactions`](Self::transactions) (at least 1).
    pub fn transactions(mut self, transactions: usize) -> Self {
        self.transactions = transactions.max(1);
        self
    }

    /// Sets [`connect_timeout`](Self::connect_timeout).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }
}

/// MCP tasks in a PostgreSQL table, `agent_tools_tasks`, that every replica of a server
/// shares: a task created through one replica is read, answered, claimed and cancelled
/// through any other, and outlives them all. Cheap to clone; clones share the
/// connections. Use it through
/// [`Tasks`](agent_tools_core::task::Tasks), which applies a task's rules on top of any
/// store:
///
/// ```no_run
/// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
/// use agent_tools_core::task::Tasks;
/// use agent_tools_postgres::{PostgresTaskStore, TaskStoreOptions};
///
/// let store = PostgresTaskStore::connect("postgres://agent@db/agent", TaskStoreOptions::default()).await?;
/// let tasks = Tasks::new(store);
/// # Ok(()) }
/// ```
///
/// # What it guarantees
///
/// - **A change is atomic.** [`modify`](TaskStore::modify) is one transaction: it reads
///   the task with `SELECT … FOR UPDATE`, applies the change in Rust, writes it, and
///   commits, holding the task's row locked from the read to the commit. Changes to one
///   task from any number of replicas therefore run one after another, each on the
///   record the last one left (of sixteen servers claiming a task at once, one gets
///   it); changes to different tasks do not wait for each other. A change that changes
///   nothing writes nothing.
/// - **Once it returns, it is stored.** Every call returns after its statement or
///   transaction committed (as durably as the server's `synchronous_commit` makes a
///   commit), and what is committed is what every replica reads next.
/// - **A change is applied once, or tried again only when nothing was written.** When the
///   connection is lost before the commit is sent (the server restarted, or ended the
///   session), the change is applied again, on a new connection, to the record as stored
///   — as [`TaskChange`] allows. When it is lost during the commit, the outcome is
///   unknown and the change is not tried again: the call fails, and a read tells.
/// - **Ids are unique.** [`create`](TaskStore::create) refuses a taken id with
///   [`TaskStoreError::Exists`], even that of an expired task not yet removed.
/// - **A record reads back exactly as written**, kept whole as `json` (not `jsonb`,
///   which refuses U+0000 in a string and reorders keys); the table's other columns
///   are copies of the fields that are queried (`status`, `created_ms`, `expires_ms`),
///   for their indexes. A new field of [`TaskRecord`] needs no migration.
/// - Every failure of the database, or a stored record that does not read as a task, is
///   [`TaskStoreError::Backend`], with the error as its source.
///
/// # What it does not
///
/// - **Time is the servers', not the database's.** Leases and times to live are written
///   and compared by [`Tasks`](agent_tools_core::task::Tasks) with the clock of the
///   server that reads the task, so replicas' clocks must agree (NTP) to well within a
///   lease ([`TaskOptions::lease`](agent_tools_core::task::TaskOptions::lease)).
/// - **Nothing is pushed.** A change is seen by the next read; no replica is told of it
///   (clients poll a task, at its `poll_interval_ms`).
/// - **Expired tasks stay until removed.** Through `Tasks` they read as gone at once
///   (the store itself still returns them), but their rows go
///   only when some replica calls
///   [`Tasks::remove_expired`](agent_tools_core::task::Tasks::remove_expired) (now and
///   then: it is one indexed `DELETE`).
/// - **A change waits for the one before it.** A process frozen while it holds a task's
///   row would hold up that task's other changes: each connection ends a transaction
///   left idle for ten seconds (`idle_in_transaction_session_timeout`), and a statement
///   waits for at most the pool's thirty seconds.
/// - **One table per database schema.** The table's name is fixed, as every table of
///   this crate is (`agent_tools_` and the component); two deployments in one database
///   keep apart by a schema each, named in the URL
///   (`?options=-csearch_path%3Dstaging`), where the schema versions are kept too.
#[derive(Clone)]
pub struct PostgresTaskStore {
    shared: Arc<Shared>,
}

struct Shared {
    /// Single statements, pipelined on shared connections.
    pool: Pool,
    /// Transactions, on connections of the pool's making lent to one change at a time.
    exclusive: Exclusive,
}

impl PostgresTaskStore {
    /// Connects to `url` (`postgres://user:password@host:port/database`, with libpq's
    /// URL options such as `sslmode`) and creates or migrates the table (component
    /// `tasks` of [`migrate()`]).
    pub async fn connect(url: &str, options: TaskStoreOptions) -> Result<Self, Error> {
        let pool = Pool::new(
            url,
            PoolOptions::default()
                .size(options.connections)
                .connect_timeout(options.connect_timeout)
                .session_settings(SESSION_SETTINGS),
        )?;
        migrate(&mut pool.connect().await?, "tasks", MIGRATIONS).await?;
        Ok(Self {
            shared: Arc::new(Shared {
                pool,
                exclusive: Exclusive::new(options.transactions),
            }),
        })
    }

    async fn insert(&self, task: TaskRecord) -> Result<(), TaskStoreError> {
        let columns = Columns::of(&task.id, &task)?;
        let inserted = self
            .query(INSERT_SQL, &columns.params())
            .await
            .map_err(TaskStoreError::backend)?;
        match inserted.is_empty() {
            true => Err(TaskStoreError::Exists(task.id)),
            false => Ok(()),
        }
    }

    async fn fetch(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let rows = self
            .read(GET_SQL, &[&id])
            .await
            .map_err(TaskStoreError::backend)?;
        rows.first().map(decode).transpose()
    }

    async fn in_status(&self, status: TaskStatus, limit: usize) -> Result<Vec<TaskRecord>, TaskStoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self
            .read(LIST_SQL, &[&status.as_str(), &limit])
            .await
            .map_err(TaskStoreError::backend)?;
        rows.iter().map(decode).collect()
    }

    async fn remove_before(&self, now_ms: u64) -> Result<u64, TaskStoreError> {
        let rows = self
            .query(REMOVE_SQL, &[&column_ms(now_ms)])
            .await
            .map_err(TaskStoreError::backend)?;
        let count: i64 = match rows.first() {
            Some(row) => row
                .try_get(0)
                .map_err(|error| TaskStoreError::backend(Error::from(error)))?,
            None => 0,
        };
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// Applies `change` to task `id` in one transaction, a second time on a new
    /// connection when the first was lost before anything was committed.
    async fn change(&self, id: &str, change: TaskChange<'_>) -> Result<Option<TaskRecord>, TaskStoreError> {
        match self.try_change(id, &mut *change).await {
            Err(Failed::Uncommitted(error)) if connection_lost(&error) => {}
            outcome => return outcome.map_err(Failed::into_store_error),
        }
        self.try_change(id, change)
            .await
            .map_err(Failed::into_store_error)
    }

    /// One attempt at [`change`](Self::change), on a lent connection, which is closed
    /// rather than lent again when the attempt found it broken.
    async fn try_change(&self, id: &str, change: TaskChange<'_>) -> Result<Option<TaskRecord>, Failed> {
        let mut connection = self
            .shared
            .exclusive
            .lend(&self.shared.pool)
            .await
            .map_err(|error| Failed::Other(TaskStoreError::backend(error)))?;
        let outcome = transact(&mut connection, id, change).await;
        if outcome
            .as_ref()
            .err()
            .and_then(Failed::error)
            .is_some_and(connection_lost)
        {
            connection.discard();
        }
        outcome
    }

    /// Rows of a statement that only reads, tried a second time on another connection
    /// when the first was lost: unlike a write, which may have committed, a read may
    /// run twice.
    async fn read(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, Error> {
        match self.query(sql, params).await {
            Err(error) if connection_lost(&error) => self.query(sql, params).await,
            rows => rows,
        }
    }

    /// Rows of one statement on a pool connection, which the pool forgets when the
    /// statement found it lost, so that the next statement on its turn connects anew.
    async fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, Error> {
        let connection = self.shared.pool.get().await?;
        let rows = async {
            let statement = connection.prepare(sql).await?;
            Ok(connection.client().query(&statement, params).await?)
        };
        let rows = rows.await;
        if rows.as_ref().is_err_and(connection_lost) {
            self.shared.pool.forget(&connection).await;
        }
        rows
    }
}

/// Reads task `id` locked, applies `change`, writes it if it changed, and commits.
async fn transact(
    connection: &mut crate::Connection,
    id: &str,
    change: TaskChange<'_>,
) -> Result<Option<TaskRecord>, Failed> {
    let lock = connection.prepare(LOCK_SQL).await.map_err(Failed::Uncommitted)?;
    let update = connection
        .prepare(UPDATE_SQL)
        .await
        .map_err(Failed::Uncommitted)?;
    let uncommitted = |error: tokio_postgres::Error| Failed::Uncommitted(error.into());
    let tx = connection.transaction().await.map_err(Failed::Uncommitted)?;
    // With no such task, `tx` is dropped unfinished, which rolls it back.
    let Some(row) = tx.query_opt(&lock, &[&id]).await.map_err(uncommitted)? else {
        return Ok(None);
    };
    let stored = decode(&row).map_err(Failed::Other)?;
    let mut task = stored.clone();
    change(&mut task);
    if task != stored {
        let columns = Columns::of(id, &task).map_err(Failed::Other)?;
        tx.execute(&update, &columns.params())
            .await
            .map_err(uncommitted)?;
    }
    tx.commit().await.map_err(|error| Failed::Commit(error.into()))?;
    Ok(Some(task))
}

/// Why one attempt at a change failed.
enum Failed {
    /// Before the commit was sent: nothing was written, so the change may be tried again.
    Uncommitted(Error),
    /// At the commit, whose outcome is then unknown: the change is not tried again.
    Commit(Error),
    /// Nothing a second attempt would mend: no connection could be made, the stored
    /// record does not read as a task, or the changed one cannot be written.
    Other(TaskStoreError),
}

impl Failed {
    /// The database's error, when the attempt failed on a statement.
    fn error(&self) -> Option<&Error> {
        match self {
            Failed::Uncommitted(error) | Failed::Commit(error) => Some(error),
            Failed::Other(_) => None,
        }
    }

    fn into_store_error(self) -> TaskStoreError {
        match self {
            Failed::Uncommitted(error) | Failed::Commit(error) => TaskStoreError::backend(error),
            Failed::Other(error) => error,
        }
    }
}

/// Whether `error` ended the connection rather than one statement: a failure on the
/// client's side (the connection closed, an I/O error) or the server ending the session
/// (SQLSTATE class 08, or 57P: the session terminated, the server shutting down or
/// crashed, the database dropped).
fn connection_lost(error: &Error) -> bool {
    match error.code() {
        Some(code) => code.starts_with("08") || code.starts_with("57P"),
        None => matches!(error, Error::Postgres(_)),
    }
}

/// The columns of task `id`'s row, from its record.
struct Columns<'a> {
    id: &'a str,
    status: &'static str,
    created_ms: i64,
    expires_ms: Option<i64>,
    record: String,
}

impl<'a> Columns<'a> {
    fn of(id: &'a str, task: &TaskRecord) -> Result<Self, TaskStoreError> {
        Ok(Self {
            id,
            status: task.status.as_str(),
            created_ms: column_ms(task.created_ms),
            expires_ms: task.expires_ms.map(column_ms),
            record: serde_json::to_string(task).map_err(TaskStoreError::backend)?,
        })
    }

    /// The parameters of [`INSERT_SQL`] and [`UPDATE_SQL`].
    fn params(&self) -> [&(dyn ToSql + Sync); 5] {
        [
            &self.id,
            &self.status,
            &self.created_ms,
            &self.expires_ms,
            &self.record,
        ]
    }
}

/// A time in milliseconds as a `bigint`; beyond its range (some 292 million years), its
/// largest value, which orders and compares the same for every time a clock gives.
fn column_ms(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// The task in `row` (its id, its record as text).
fn decode(row: &Row) -> Result<TaskRecord, TaskStoreError> {
    let column = |index| {
        row.try_get::<_, String>(index)
            .map_err(|error| TaskStoreError::backend(Error::from(error)))
    };
    let text = column(1)?;
    serde_json::from_str(&text).map_err(|source| {
        TaskStoreError::backend(UnreadableTask {
            id: column(0).unwrap_or_default(),
            source,
        })
    })
}

/// A stored record that does not read as a task: written by hand, or by a newer version.
#[derive(Debug, thiserror::Error)]
#[error("the stored task `{id}` does not read as a task: {source}")]
struct UnreadableTask {
    id: String,
    #[source]
    source: serde_json::Error,
}

impl TaskStore for PostgresTaskStore {
    fn create(&self, task: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(self.insert(task))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(self.fetch(id))
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(self.change(id, change))
    }

    fn list(
        &self,
        status: TaskStatus,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<TaskRecord>, TaskStoreError>> {
        Box::pin(self.in_status(status, limit))
    }

    fn remove_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<u64, TaskStoreError>> {
        Box::pin(self.remove_before(now_ms))
    }
}

impl fmt::Debug for PostgresTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresTaskStore")
            .field("pool", &self.shared.pool)
            .finish_non_exhaustive()
    }
}
