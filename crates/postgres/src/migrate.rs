//! Schemas created and migrated when a process connects, safely from many at once.
//!
//! Each component (`memory`, `audit`, `tasks`) keeps its version in `agent_tools_schema`.
//! Migrating is one transaction that first takes an advisory lock: replicas starting
//! together queue on it, the first does the work, and the others find nothing left to
//! do. DDL is transactional in PostgreSQL, so a failed migration leaves the old version
//! whole.

use crate::{Connection, Error};

/// One migration: SQL that takes a component's schema from version `n` to `n + 1`.
pub type Migration = &'static str;

/// The advisory lock migrations hold: any fixed number; this one spells "agentmig".
const MIGRATION_LOCK: i64 = 0x6167_656e_746d_6967;

/// Brings `component`'s schema to version `migrations.len()`, applying the migrations
/// it does not have yet, on `connection` (which no other task may use meanwhile).
/// Refuses a schema newer than `migrations` know ([`Error::NewerSchema`]).
pub async fn migrate(
    connection: &mut Connection,
    component: &str,
    migrations: &[Migration],
) -> Result<(), Error> {
    let supported = i32::try_from(migrations.len()).unwrap_or(i32::MAX);
    let tx = connection.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    tx.batch_execute(
        "SET LOCAL statement_timeout = 0;
         CREATE TABLE IF NOT EXISTS agent_tools_schema (
             component text PRIMARY KEY,
             version integer NOT NULL
         )",
    )
    .await?;
    let found: i32 = tx
        .query_opt(
            "SELECT version FROM agent_tools_schema WHERE component = $1",
            &[&component],
        )
        .await?
        .map(|row| row.try_get(0))
        .transpose()?
        .unwrap_or(0);
    if found > supported {
        return Err(Error::NewerSchema {
            component: component.to_owned(),
            found,
            supported,
        });
    }
    let done = usize::try_from(found).unwrap_or(0);
    for step in migrations.get(done..).unwrap_or_default() {
        tx.batch_execute(step).await?;
    }
    tx.execute(
        "INSERT INTO agent_tools_schema (component, version) VALUES ($1, $2)
         ON CONFLICT (component) DO UPDATE SET version = excluded.version",
        &[&component, &supported],
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
