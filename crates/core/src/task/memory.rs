//! [`MemoryTaskStore`]: tasks kept in this process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{TaskChange, TaskRecord, TaskStatus, TaskStore, TaskStoreError};
use crate::tool::BoxFuture;

/// Tasks kept in this process's memory: they survive a client's reconnection, not the
/// server's restart, and one replica does not see another's. Cheap to clone; clones share
/// the tasks. For replicas, use a store they share (PostgreSQL's, in
/// `agent-tools-postgres`).
#[derive(Debug, Clone, Default)]
pub struct MemoryTaskStore {
    tasks: Arc<Mutex<HashMap<String, TaskRecord>>>,
}

impl MemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn tasks(&self) -> MutexGuard<'_, HashMap<String, TaskRecord>> {
        // A change is a plain field update that cannot leave a record half-written.
        self.tasks.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, task: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let mut tasks = self.tasks();
        let result = match tasks.contains_key(&task.id) {
            true => Err(TaskStoreError::Exists(task.id)),
            false => {
                tasks.insert(task.id.clone(), task);
                Ok(())
            }
        };
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let task = self.tasks().get(id).cloned();
        Box::pin(std::future::ready(Ok(task)))
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let task = self.tasks().get_mut(id).map(|task| {
            change(task);
            task.clone()
        });
        Box::pin(std::future::ready(Ok(task)))
    }

    fn list(
        &self,
        status: TaskStatus,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<TaskRecord>, TaskStoreError>> {
        let mut tasks: Vec<TaskRecord> = self
            .tasks()
            .values()
            .filter(|task| task.status == status)
            .cloned()
            .collect();
        tasks.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
        tasks.truncate(limit);
        Box::pin(std::future::ready(Ok(tasks)))
    }

    fn remove_expired(&self, now_ms: u64) -> BoxFuture<'_, Result<u64, TaskStoreError>> {
        let mut tasks = self.tasks();
        let before = tasks.len();
        tasks.retain(|_, task| task.expires_ms.is_none_or(|expires| expires > now_ms));
        let removed = u64::try_from(before - tasks.len()).unwrap_or(u64::MAX);
        Box::pin(std::future::ready(Ok(removed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_memory_store_keeps_the_contract() {
        super::super::check_store(Arc::new(MemoryTaskStore::new()))
            .await
            .unwrap_or_else(|problem| panic!("{problem}"));
    }
}
