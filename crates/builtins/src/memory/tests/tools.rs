//! `memory_write` and `memory_read`: upserts, selectors, refusals.

use agent_tools_core::{ToolError, error::ToolErrorKind};

use super::*;

#[tokio::test]
async fn writing_a_key_again_replaces_the_memory_and_keeps_its_id() {
    let Setup { store, temp: _temp } = setup();
    let out = write(&store, "Deploy with `make release`.", Some("deploy"), &["Ops"]).await;
    assert_eq!(out, "Saved memory #1 · key `deploy` · tags: ops.");
    assert_eq!(
        write(&store, "Unrelated note.", None, &[]).await,
        "Saved memory #2."
    );
    let out = write(&store, "Deploy with `just ship`.", Some("deploy"), &["ci"]).await;
    assert_eq!(
        out,
        "Replaced memory #1 · key `deploy` · tags: ci: the key existed, its content and tags are now the new ones."
    );
    assert_eq!(store.count().await.unwrap(), 2);
    let memory = store.get_by_key("deploy").await.unwrap();
    assert_eq!(
        (memory.id, memory.content.as_str()),
        (1, "Deploy with `just ship`.")
    );
    assert_eq!(memory.tags, ["ci"]);
    assert!(memory.updated_at >= memory.created_at);
    // The index follows the replacement: the old words are gone, the new ones found.
    assert!(
        search(&store, "release")
            .await
            .unwrap()
            .starts_with("No memory matches")
    );
    assert_eq!(listed_ids(&search(&store, "just ship").await.unwrap()), [1]);
}

#[tokio::test]
async fn empty_oversized_and_badly_keyed_writes_are_refused() {
    let Setup { store, temp: _temp } = setup();
    let refused = |content: String, key: Option<&str>| {
        let args = MemoryWriteArgs {
            content,
            key: key.map(Into::into),
            tags: None,
        };
        let store = store.clone();
        async move { memory_write(&store, args).await.unwrap_err() }
    };
    let error = refused(" \n\t".into(), None).await;
    assert_eq!(error.to_string(), "`content` is empty; give the text to remember");
    assert_eq!(error.kind(), ToolErrorKind::InvalidArguments);
    let error = refused("x".repeat(64 * 1024 + 1), None).await;
    assert_eq!(
        error.to_string(),
        "`content` is 65537 bytes, over the limit of 65536 bytes (64 KiB); store a summary, \
         or split it into several memories"
    );
    let error = refused("text".into(), Some("  ")).await;
    assert!(
        error.to_string().starts_with("`key` must be 1 to 200 characters"),
        "{error}"
    );
    let long_tag = "t".repeat(51);
    let args = MemoryWriteArgs {
        content: "text".into(),
        key: None,
        tags: Some(vec![long_tag]),
    };
    let error = memory_write(&store, args).await.unwrap_err();
    assert!(error.to_string().contains("is over 50 characters"), "{error}");
    assert_eq!(store.count().await.unwrap(), 0);
    write(&store, &"y".repeat(64 * 1024), Some(" padded key "), &[]).await;
    assert_eq!(
        store.get_by_key("padded key").await.unwrap().content.len(),
        64 * 1024
    );
}

#[tokio::test]
async fn read_by_id_by_key_and_most_recent() {
    let Setup { store, temp: _temp } = setup();
    write(&store, "First.\nWith a second line.", Some("first"), &["a"]).await;
    write(&store, "Second.", None, &[]).await;
    write(&store, "Third.", None, &[]).await;
    let out = read(&store, Some(1), None, None).await.unwrap();
    assert!(
        out.starts_with("#1 · key `first` · tags: a · written 20"),
        "{out}"
    );
    assert!(out.ends_with(" UTC\nFirst.\nWith a second line."), "{out}");
    assert_eq!(read(&store, None, Some("first"), None).await.unwrap(), out);
    write(&store, "First, revised.", Some("first"), &[]).await;
    let out = read(&store, None, None, Some(2)).await.unwrap();
    assert!(
        out.starts_with("The 2 memories most recently written, newest first:\n\n#1 · key `first` · "),
        "{out}"
    );
    assert_eq!(listed_ids(&out), [1, 3]);
    assert!(out.contains(" UTC\nFirst, revised.\n\n#3 · "), "{out}");
    let all = read(&store, None, None, Some(50)).await.unwrap();
    assert_eq!(listed_ids(&all), [1, 3, 2]);
}

#[tokio::test]
async fn read_needs_exactly_one_selector_and_names_what_is_missing() {
    let Setup { store, temp: _temp } = setup();
    assert_eq!(
        read(&store, None, None, Some(5)).await.unwrap(),
        "No memories are stored yet."
    );
    let none = read(&store, None, None, None).await.unwrap_err();
    assert_eq!(
        none,
        "give one of `id`, `key` or `recent` (e.g. `{\"recent\": 10}`)"
    );
    let two = read(&store, Some(1), Some("k"), None).await.unwrap_err();
    assert_eq!(two, "give only one of `id`, `key` or `recent`, not several");
    let missing = read(&store, Some(42), None, None).await.unwrap_err();
    assert_eq!(
        missing,
        "no memory has the id 42; search with `memory_search` or list `recent` memories"
    );
    let missing = read(&store, None, Some("nope"), None).await.unwrap_err();
    assert!(missing.starts_with("no memory has the key `nope`;"), "{missing}");
    for count in [0, 51] {
        let error = read(&store, None, None, Some(count)).await.unwrap_err();
        assert_eq!(error, format!("`recent` must be between 1 and 50, not {count}"));
    }
}

#[tokio::test]
async fn store_failures_are_reported_as_store_errors() {
    let temp = tempfile::tempdir().unwrap();
    std::fs::write(temp.path().join("file"), "not a directory").unwrap();
    let error = MemoryStore::open(temp.path().join("file/memory.db")).unwrap_err();
    assert!(!error.is_refusal());
    let message = ToolError::from(error).to_string();
    assert!(
        message.starts_with("memory store error: cannot create the directory `"),
        "{message}"
    );
    let refusal = ToolError::from(MemoryError::EmptyQuery);
    assert_eq!(refusal.kind(), ToolErrorKind::InvalidArguments);
    assert_eq!(
        ToolError::from(MemoryError::IdNotFound(1)).kind(),
        ToolErrorKind::Execution
    );
}

#[tokio::test]
async fn the_store_is_one_wal_file_and_clones_share_it() {
    let Setup { temp, store } = setup();
    let path = temp.path().join("memory.db");
    assert_eq!(store.path(), Some(path.as_path()));
    assert!(path.is_file());
    assert_eq!(
        format!("{store:?}"),
        format!("MemoryStore {{ path: {path:?}, .. }}")
    );
    let clone = store.clone();
    write(&clone, "Shared.", None, &[]).await;
    assert_eq!(store.count().await.unwrap(), 1);
    let mode: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}
