//! Schema migrations, concurrent writers, and a writer killed mid-write.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use rusqlite::Connection;

use super::*;

/// Set (to a database path) only in the child process of
/// [`a_killed_writer_leaves_a_readable_database`].
const WRITER_ENV: &str = "AGENT_TOOLS_MEMORY_TEST_WRITER_DB";

fn user_version(path: &Path) -> i64 {
    Connection::open(path)
        .unwrap()
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap()
}

/// `PRAGMA integrity_check` and FTS5's own check of the index against its content.
fn assert_intact(path: &Path) {
    let conn = Connection::open(path).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    conn.execute(
        "INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')",
        [],
    )
    .unwrap();
    let counts: (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM memories_fts)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!(counts.0, counts.1, "every memory is indexed once");
}

#[tokio::test]
async fn a_version_0_file_is_migrated_to_the_current_schema() {
    let temp = tempfile::tempdir().unwrap();
    let path = temp.path().join("old.db");
    Connection::open(&path).unwrap().execute_batch("VACUUM").unwrap();
    assert_eq!(user_version(&path), 0);
    let store = MemoryStore::open(&path).unwrap();
    assert_eq!(user_version(&path), sqlite::schema::CURRENT_VERSION);
    assert_eq!(sqlite::schema::CURRENT_VERSION, 2);
    write(&store, "Migrated and usable.", None, &[]).await;
    assert_eq!(listed_ids(&search(&store, "usable").await.unwrap()), [1]);
    drop(store);
    let reopened = MemoryStore::open(&path).unwrap();
    assert_eq!(reopened.count().await.unwrap(), 1);
    assert_intact(&path);
}

#[tokio::test]
async fn a_version_1_file_gets_its_memories_indexed() {
    let temp = tempfile::tempdir().unwrap();
    let path = temp.path().join("v1.db");
    // The schema as version 1 created it, with memories written before search existed.
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE memories (
                 id INTEGER PRIMARY KEY, key TEXT UNIQUE, content TEXT NOT NULL,
                 tags TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
                 write_seq INTEGER NOT NULL
             );
             CREATE UNIQUE INDEX memories_by_write ON memories (write_seq);
             INSERT INTO memories VALUES
                 (7, 'deploy', 'Deploy with make release.', ',ops,', '2025-01-02T03:04:05.000Z',
                  '2025-01-02T03:04:05.000Z', 1),
                 (9, NULL, '文档使用中文编写。', '', '2025-02-03T04:05:06.000Z', '2025-02-03T04:05:06.000Z', 2);
             PRAGMA user_version = 1;",
        )
        .unwrap();
    let store = MemoryStore::open(&path).unwrap();
    assert_eq!(user_version(&path), 2);
    let out = search_with(&store, "release", &["ops"], None).await.unwrap();
    assert!(
        out.contains("#7 · key `deploy` · tags: ops · updated 2025-01-02 03:04 UTC\n"),
        "{out}"
    );
    assert_eq!(listed_ids(&search(&store, "中文").await.unwrap()), [9]);
    assert_eq!(
        listed_ids(&search(&store, "deploy").await.unwrap()),
        [7],
        "keys are indexed"
    );
    write(&store, "New after migration.", None, &[]).await;
    assert_eq!(store.get(10).await.unwrap().content, "New after migration.");
    assert_intact(&path);
}

#[test]
fn a_newer_schema_is_refused() {
    let temp = tempfile::tempdir().unwrap();
    let path = temp.path().join("new.db");
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let error = MemoryStore::open(&path).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the database has schema version 99, newer than this build knows (2); upgrade agent-tools"
    );
    assert_eq!(user_version(&path), 99, "left untouched");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_lose_nothing() {
    let Setup { store, temp: _temp } = setup();
    let mut tasks = tokio::task::JoinSet::new();
    for task in 0..8 {
        let store = store.clone();
        tasks.spawn(async move {
            for i in 0..1000 {
                let key = (i % 2 == 0).then(|| format!("task-{task}-{i}"));
                let memory =
                    NewMemory::new(format!("Task {task} wrote entry {i}."), key.as_deref(), &[]).unwrap();
                store.write(memory).await.unwrap();
            }
        });
    }
    while let Some(joined) = tasks.join_next().await {
        joined.unwrap();
    }
    assert_eq!(store.count().await.unwrap(), 8000);
    let last = store.get_by_key("task-7-998").await.unwrap();
    assert_eq!(last.content, "Task 7 wrote entry 998.");
    assert_intact(store.path().expect("a SQLite store"));
}

/// Not a test on its own: the child process of the next test, writing until killed.
#[tokio::test]
async fn helper_writer_for_the_kill_test() {
    let Some(path) = std::env::var_os(WRITER_ENV) else {
        return;
    };
    let store = MemoryStore::open(path).unwrap();
    // Bounded, in case the parent dies without killing this process.
    for i in 0..200_000 {
        let content = format!("Entry {i}: {}", "steady payload text ".repeat(40));
        let tags = strings(&["kill-test"]);
        store
            .write(NewMemory::new(content, None, &tags).unwrap())
            .await
            .unwrap();
        println!("written {i}");
    }
}

#[test]
fn a_killed_writer_leaves_a_readable_database() {
    let temp = tempfile::tempdir().unwrap();
    let path = temp.path().join("killed.db");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "memory::tests::durability::helper_writer_for_the_kill_test",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WRITER_ENV, &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut committed = 0;
    for line in lines {
        if let Some(index) = line.unwrap().strip_prefix("written ") {
            committed = index.parse::<u64>().unwrap() + 1;
            if committed >= 300 {
                break;
            }
        }
    }
    child.kill().unwrap(); // SIGKILL: no destructor, no checkpoint
    child.wait().unwrap();
    assert!(committed >= 300, "the writer stopped after {committed} writes");
    assert_intact(&path);
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let store = MemoryStore::open(&path).unwrap();
    let stored = runtime.block_on(store.count()).unwrap();
    assert!(
        stored >= committed,
        "{stored} stored, {committed} reported written"
    );
    let found = runtime.block_on(store.search("steady payload", &strings(&["kill-test"]), 50));
    assert_eq!(found.unwrap().hits.len(), 50);
}

#[test]
fn sqlite_itself_refuses_a_path_through_a_link() {
    // The second line behind the checks of `no_links`, for a link swapped in between the
    // check and the open: SQLite resolves the path and refuses any link in it.
    let temp = tempfile::tempdir().unwrap();
    let base = temp.path().canonicalize().unwrap();
    std::fs::create_dir(base.join("real")).unwrap();
    std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
    let error = match super::super::sqlite::open_connection(&base.join("link/memory.db")) {
        Ok(_) => panic!("SQLite opened a database through a symbolic link"),
        Err(error) => error.to_string(),
    };
    assert!(error.contains("goes through a symbolic link"), "{error}");
    assert_eq!(std::fs::read_dir(base.join("real")).unwrap().count(), 0);
}
