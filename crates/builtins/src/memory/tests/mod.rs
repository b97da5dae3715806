//! The memory tools against real SQLite files in temporary directories.

mod durability;
mod search;
mod tools;

use tempfile::TempDir;

use super::*;

/// A store in a fresh temporary directory (removed on drop).
struct Setup {
    temp: TempDir,
    store: MemoryStore,
}

fn setup() -> Setup {
    let temp = tempfile::tempdir().unwrap();
    let store = MemoryStore::open(temp.path().join("memory.db")).unwrap();
    Setup { temp, store }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(ToString::to_string).collect()
}

/// `memory_write`, expected to succeed.
async fn write(store: &MemoryStore, content: &str, key: Option<&str>, tags: &[&str]) -> String {
    let args = MemoryWriteArgs {
        content: content.into(),
        key: key.map(Into::into),
        tags: Some(strings(tags)),
    };
    memory_write(store, args).await.unwrap()
}

/// `memory_search` with default tags and limit; the error as text.
async fn search(store: &MemoryStore, query: &str) -> Result<String, String> {
    search_with(store, query, &[], None).await
}

async fn search_with(
    store: &MemoryStore,
    query: &str,
    tags: &[&str],
    limit: Option<u32>,
) -> Result<String, String> {
    let args = MemorySearchArgs {
        query: query.into(),
        tags: Some(strings(tags)),
        limit,
    };
    memory_search(store, args)
        .await
        .map_err(|error| error.to_string())
}

/// `memory_read`; the error as text.
async fn read(
    store: &MemoryStore,
    id: Option<i64>,
    key: Option<&str>,
    recent: Option<u32>,
) -> Result<String, String> {
    let args = MemoryReadArgs {
        id,
        key: key.map(Into::into),
        recent,
    };
    memory_read(store, args).await.map_err(|error| error.to_string())
}

/// The ids listed in a search or read output, in order.
fn listed_ids(output: &str) -> Vec<i64> {
    output
        .lines()
        .filter_map(|line| line.strip_prefix('#'))
        .filter_map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
        .collect()
}
