//! Where the memory tools get their store: one already open, or a path opened at the
//! first memory call — so that merely registering the tools (to list or describe them)
//! creates no database file.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use tool_core::ToolError;

use crate::memory::MemoryStore;

/// A memory store, open or to be opened.
#[derive(Debug, Clone)]
pub(crate) enum MemorySource {
    /// Opened by the caller.
    Open(MemoryStore),
    /// Opened on first use.
    Path(PathBuf, Arc<Mutex<Option<MemoryStore>>>),
}

impl MemorySource {
    /// A store opened at `path` when first needed.
    pub(crate) fn lazy(path: PathBuf) -> Self {
        MemorySource::Path(path, Arc::new(Mutex::new(None)))
    }

    /// The store, opening it if this is the first use.
    pub(crate) fn store(&self) -> Result<MemoryStore, ToolError> {
        match self {
            MemorySource::Open(store) => Ok(store.clone()),
            MemorySource::Path(path, cell) => {
                let mut opened = cell.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(store) = opened.as_ref() {
                    return Ok(store.clone());
                }
                let store = MemoryStore::open(path)
                    .map_err(|error| ToolError::new(format!("cannot open the memory database: {error}")))?;
                *opened = Some(store.clone());
                Ok(store)
            }
        }
    }
}
