//! [`PostgresAudit`]: the audit log as a table several processes write.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_tools_core::{
    audit::{AuditEvent, AuditSink},
    tool::BoxFuture,
};
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use crate::{Connection, Error, Migration, Pool, PoolOptions, migrate};

/// The schema of the audit table, version by version.
const MIGRATIONS: &[Migration] = &["
    CREATE TABLE agent_tools_audit (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at timestamptz NOT NULL,
        tool text NOT NULL,
        outcome text NOT NULL,
        call_id text NOT NULL,
        session_id text,
        subject text,
        client_id text,
        trace_id text,
        span_id text,
        duration_ms double precision NOT NULL,
        output_bytes bigint NOT NULL,
        error text,
        event jsonb NOT NULL
    );
    CREATE INDEX agent_tools_audit_at ON agent_tools_audit (at);
    CREATE INDEX agent_tools_audit_tool ON agent_tools_audit (tool, at);
    CREATE INDEX agent_tools_audit_subject ON agent_tools_audit (subject, at) WHERE subject IS NOT NULL;
"];

/// One batch of events (a JSON array) into rows.
const INSERT_SQL: &str = "
    INSERT INTO agent_tools_audit
        (at, tool, outcome, call_id, session_id, subject, client_id, trace_id, span_id,
         duration_ms, output_bytes, error, event)
    SELECT (e->>'timestamp')::timestamptz, e->>'tool', e->>'outcome', e->>'call_id',
           e->>'session_id', e->>'subject', e->>'client_id', e->>'trace_id', e->>'span_id',
           (e->>'duration_ms')::double precision, (e->>'output_bytes')::bigint, e->>'error', e
    FROM jsonb_array_elements($1::text::jsonb) AS e";

/// How [`PostgresAudit`] writes.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AuditOptions {
    /// Events queued for the writer at most; beyond, events are dropped (and counted).
    /// Default 100,000.
    pub queue: usize,
    /// Most events in one insert. Default 500.
    pub batch: usize,
    /// How long one connection attempt may take. Default 10 seconds.
    pub connect_timeout: Duration,
}

impl Default for AuditOptions {
    fn default() -> Self {
        Self {
            queue: 100_000,
            batch: 500,
            connect_timeout: Duration::from_secs(10),
        }
    }
}

/// The audit log as a table several processes write.
///
/// Each call's [`AuditEvent`] becomes one row of `agent_tools_audit`: the columns one
/// filters by (time, tool, outcome, subject, session, trace), and the whole event as
/// `jsonb`, as the JSONL log has it. Replicas behind a load balancer write one table,
/// so "every call, wherever it ran" is one query.
///
/// `record` only queues the event (a registry calls it on the call's task, which must
/// not wait for a database); a writer task inserts what has queued in one statement per
/// batch, so a thousand calls a second cost a few inserts. The registry then waits for
/// [`stored`](agent_tools_core::audit::AuditSink::stored) before it returns the call's result: an
/// answered call's row is committed even if the process is killed the next moment, at
/// the cost of one batch's round trip per call (shared by every call in the batch).
///
/// What it does not stop: a database that is down, or a queue that is full
/// ([`AuditOptions::queue`]), loses events rather than stopping calls — an audit write
/// never fails a tool call. They are counted ([`PostgresAudit::failed_events`]) and
/// logged with `tracing`; a caller that must not run calls unaudited checks the count.
#[derive(Clone)]
pub struct PostgresAudit {
    shared: Arc<Shared>,
}

struct Shared {
    /// The queue of events as JSON text. Events are numbered and queued under its lock,
    /// so the writer sees them in the order of their numbers.
    queue: Mutex<mpsc::Sender<(u64, String)>>,
    /// The number of the last event queued (written under the queue's lock), for
    /// `stored` to wait for.
    recorded: AtomicU64,
    /// The sequence number up to which events are committed (or given up on).
    committed: watch::Receiver<u64>,
    failed: Arc<AtomicU64>,
}

impl PostgresAudit {
    /// Connects to `url`, creates or migrates the table, and starts the writer task (on
    /// the current tokio runtime).
    pub async fn connect(url: &str, options: AuditOptions) -> Result<Self, Error> {
        let pool = Pool::new(
            url,
            PoolOptions::default()
                .size(1)
                .connect_timeout(options.connect_timeout),
        )?;
        migrate(&mut pool.connect().await?, "audit", MIGRATIONS).await?;
        let (queue, events) = mpsc::channel(options.queue.max(1));
        let (done, committed) = watch::channel(0);
        let failed = Arc::new(AtomicU64::new(0));
        let writer = Writer {
            pool,
            events,
            done,
            failed: Arc::clone(&failed),
            batch: options.batch.max(1),
        };
        tokio::spawn(writer.run());
        Ok(Self {
            shared: Arc::new(Shared {
                queue: Mutex::new(queue),
                recorded: AtomicU64::new(0),
                committed,
                failed,
            }),
        })
    }

    /// Events that could not be stored: dropped from a full queue, or in a batch the
    /// database refused twice.
    pub fn failed_events(&self) -> u64 {
        self.shared.failed.load(Ordering::Relaxed)
    }
}

impl AuditSink for PostgresAudit {
    fn record(&self, event: &AuditEvent) {
        let Some(text) = storable_json(event) else {
            self.shared.failed.fetch_add(1, Ordering::Relaxed);
            return;
        };
        let queue = self.shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
        let number = self.shared.recorded.load(Ordering::SeqCst) + 1;
        if queue.try_send((number, text)).is_err() {
            drop(queue);
            self.shared.failed.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(target: "agent_tools::audit", "the PostgreSQL audit queue is full; an event was dropped");
            return;
        }
        self.shared.recorded.store(number, Ordering::SeqCst);
    }

    fn stored(&self) -> Option<BoxFuture<'static, ()>> {
        let target = self.shared.recorded.load(Ordering::SeqCst);
        let mut committed = self.shared.committed.clone();
        Some(Box::pin(async move {
            // An error means the writer is gone (the runtime is shutting down): nothing
            // more will be stored, so there is nothing to wait for.
            let _ = committed.wait_for(|done| *done >= target).await;
        }))
    }
}

impl fmt::Debug for PostgresAudit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresAudit")
            .field("recorded", &self.shared.recorded.load(Ordering::Relaxed))
            .field("committed", &*self.shared.committed.borrow())
            .field("failed", &self.failed_events())
            .finish()
    }
}

/// The task that inserts queued events.
struct Writer {
    pool: Pool,
    events: mpsc::Receiver<(u64, String)>,
    done: watch::Sender<u64>,
    failed: Arc<AtomicU64>,
    batch: usize,
}

impl Writer {
    async fn run(mut self) {
        let mut batch = Vec::with_capacity(self.batch);
        // Ends when every `PostgresAudit` handle is gone and the queue is drained.
        while self.events.recv_many(&mut batch, self.batch).await > 0 {
            // Events arrive in the order of their numbers, so the batch's last is its
            // highest, and every waiter whose event was in it (or before) may go on.
            let last = batch.last().map_or(0, |(number, _)| *number);
            let count = batch.len() as u64;
            let events: Vec<String> = batch.drain(..).map(|(_, event)| event).collect();
            self.insert(&format!("[{}]", events.join(",")), count).await;
            self.done.send_replace(last);
        }
    }

    /// Inserts one batch, trying a second time (on a new connection, if the first was
    /// lost) before giving it up.
    async fn insert(&self, events: &str, count: u64) {
        let mut last_error = None;
        for _ in 0..2 {
            match self.try_insert(events).await {
                Ok(()) => return,
                Err(error) => last_error = Some(error),
            }
        }
        self.failed.fetch_add(count, Ordering::Relaxed);
        if let Some(error) = last_error {
            tracing::warn!(target: "agent_tools::audit", %error, count, "audit events could not be stored in PostgreSQL");
        }
    }

    /// Inserts one batch; a connection that fails is not used again.
    async fn try_insert(&self, events: &str) -> Result<(), Error> {
        let connection: Arc<Connection> = self.pool.get().await?;
        let inserted = async {
            let statement = connection.prepare(INSERT_SQL).await?;
            connection.client().execute(&statement, &[&events]).await?;
            Ok::<_, Error>(())
        };
        if let Err(error) = inserted.await {
            self.pool.forget(&connection).await;
            return Err(error);
        }
        Ok(())
    }
}

/// The event as JSON text `jsonb` takes: with every U+0000 in its strings replaced by
/// U+FFFD, since `jsonb` cannot hold it and one such character would lose the whole
/// batch. Serialized straight to text; only an event whose text shows an escaped NUL
/// (rare: it may also be a literal backslash before `u0000`) goes through a `Value`.
fn storable_json(event: &AuditEvent) -> Option<String> {
    let text = serde_json::to_string(event).ok()?;
    if !text.contains("\\u0000") {
        return Some(text);
    }
    let mut value = serde_json::to_value(event).ok()?;
    without_nul(&mut value);
    Some(value.to_string())
}

/// `value` with every U+0000 in its strings replaced by U+FFFD.
fn without_nul(value: &mut Value) {
    match value {
        Value::String(text) if text.contains('\0') => *text = text.replace('\0', "\u{FFFD}"),
        Value::Array(items) => items.iter_mut().for_each(without_nul),
        Value::Object(fields) => {
            let keys: Vec<String> = fields.keys().filter(|key| key.contains('\0')).cloned().collect();
            for key in keys {
                if let Some(inner) = fields.remove(&key) {
                    fields.insert(key.replace('\0', "\u{FFFD}"), inner);
                }
            }
            fields.values_mut().for_each(without_nul);
        }
        _ => {}
    }
}
