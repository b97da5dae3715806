//! [`JsonlAudit`]: one JSON object per line in an append-only file.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use super::{AuditEvent, AuditSink};

/// Appends each event as one line of JSON to a file.
///
/// Each line is serialized first and written in one piece under a lock, on a
/// file opened in append mode, so lines from concurrent calls never interleave; the file
/// is unbuffered, so every event is in the OS when `record` returns (it is not fsynced).
/// A failed write is logged with `tracing` and counted, never raised; the part of its line
/// that was written (on a full disk) is cut off again.
#[derive(Debug)]
pub struct JsonlAudit {
    path: PathBuf,
    file: Mutex<File>,
    failed_writes: AtomicU64,
}

impl JsonlAudit {
    /// Opens (or creates) the log file for appending.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(Self {
            path,
            file: Mutex::new(file),
            failed_writes: AtomicU64::new(0),
        })
    }

    /// The log file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many events could not be written.
    pub fn failed_writes(&self) -> u64 {
        self.failed_writes.load(Ordering::Relaxed)
    }

    fn write_line(&self, event: &AuditEvent) -> io::Result<()> {
        let mut line = serde_json::to_vec(event)?;
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        crate::append::append_all(&mut file, &line, false)
    }
}

impl AuditSink for JsonlAudit {
    fn record(&self, event: &AuditEvent) {
        if let Err(error) = self.write_line(event) {
            self.failed_writes.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                path = %self.path.display(),
                %error,
                call_id = %event.call_id,
                "could not write audit event"
            );
        }
    }
}
