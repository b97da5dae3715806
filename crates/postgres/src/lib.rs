//! agent-tools on PostgreSQL: what the memory store, the audit log and the task store share
//! to reach a server, the audit log in a table, and MCP tasks that replicas share.
//!
//! - [`Pool`]: a few connections every task shares (each pipelines the statements of
//!   whoever uses it at once), with TLS through rustls and the platform's trusted roots,
//!   replaced when the server drops them. The memory store of `agent-tools-builtins` (feature
//!   `postgres`) runs on it.
//! - [`PostgresAudit`]: an [`AuditSink`](agent_tools_core::audit::AuditSink) writing one row per call
//!   into `agent_tools_audit`, in batches, from any number of processes, and telling
//!   the registry when a call's row is committed, so that a call whose result was
//!   returned is in the table even if the process dies the next moment.
//! - [`PostgresTaskStore`]: a [`TaskStore`](agent_tools_core::task::TaskStore) keeping MCP
//!   tasks in `agent_tools_tasks`, so that any replica of a server answers for a task
//!   another created; each change is one transaction holding the task's row locked.
//!
//! Tables carry an `agent_tools_` prefix, and the schema version of each component is
//! kept in `agent_tools_schema` and migrated under an advisory lock when a process
//! connects ([`migrate()`]).

#![warn(missing_docs)]
// On docs.rs, each item says which features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod audit;
mod error;
mod exclusive;
mod migrate;
mod pool;
mod tasks;
mod tls;

pub use audit::{AuditOptions, PostgresAudit};
pub use error::Error;
pub use migrate::{Migration, migrate};
pub use pool::{Connection, Pool, PoolOptions};
pub use tasks::{PostgresTaskStore, TaskStoreOptions};

/// The client this crate is built on, for statements of one's own on a [`Connection`].
pub use tokio_postgres;
