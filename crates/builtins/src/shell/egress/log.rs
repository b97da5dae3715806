//! The connections one command's proxy was asked for: for the call's audit record, and for
//! a line in its result naming the refused ones, so that the model learns why a download
//! failed.

use std::sync::{Mutex, PoisonError};

use serde_json::{Value, json};

use crate::web::proxy::{Connection, Verdict};

/// The most connections kept per command; the rest are counted.
const MAX_KEPT: usize = 256;

/// The most refused connections the result names.
const MAX_NAMED: usize = 5;

/// What a command's proxy decided, in order.
#[derive(Debug, Default)]
pub(crate) struct ConnectionLog {
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    records: Vec<Record>,
    dropped: usize,
}

#[derive(Debug, Clone)]
struct Record {
    method: String,
    host: String,
    port: u16,
    outcome: &'static str,
    reason: Option<String>,
}

impl ConnectionLog {
    /// Keeps one connection's record.
    pub(crate) fn push(&self, connection: Connection<'_>) {
        let (outcome, reason) = match connection.verdict {
            Verdict::Allowed => ("allowed", None),
            Verdict::Refused(reason) => ("refused", Some(reason.to_owned())),
            Verdict::Failed(reason) => ("failed", Some(reason.to_owned())),
        };
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.records.len() >= MAX_KEPT {
            kept.dropped += 1;
            return;
        }
        kept.records.push(Record {
            method: connection.method.to_owned(),
            host: connection.host.to_owned(),
            port: connection.port,
            outcome,
            reason,
        });
    }

    /// The records as the audit keeps them (`details.network`): `{method, host, port,
    /// outcome, reason}` each, and how many were left out; `None` when there were none.
    pub(crate) fn audit(&self) -> Option<Value> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.records.is_empty() {
            return None;
        }
        let connections: Vec<Value> = kept
            .records
            .iter()
            .map(|record| {
                json!({
                    "method": record.method,
                    "host": record.host,
                    "port": record.port,
                    "outcome": record.outcome,
                    "reason": record.reason,
                })
            })
            .collect();
        Some(json!({"connections": connections, "left_out": kept.dropped}))
    }

    /// A line for the result naming what the proxy refused, if it refused anything.
    pub(crate) fn refused_note(&self) -> Option<String> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let refused: Vec<&Record> = kept
            .records
            .iter()
            .filter(|record| record.outcome == "refused")
            .collect();
        if refused.is_empty() {
            return None;
        }
        let named: Vec<String> = refused
            .iter()
            .take(MAX_NAMED)
            .map(|record| {
                format!(
                    "{} {}:{} ({})",
                    record.method,
                    record.host,
                    record.port,
                    record.reason.as_deref().unwrap_or("refused")
                )
            })
            .collect();
        let more = refused.len().saturating_sub(MAX_NAMED);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        Some(format!(
            "network: the proxy refused {}{more}; only the hosts of `[exec] network` are reachable",
            named.join(", ")
        ))
    }
}
