//! The memory store on a real PostgreSQL server (Debian's package, a fresh cluster in a
//! temporary directory on a loopback port, started by this test binary): the SQLite
//! store's contract, namespaces that keep tenants apart, writers in several pools at
//! once, migrations racing, connections the server drops, and the tools configured with
//! `[memory] url`.

use agent_tools_builtins::memory::{MemoryError, MemoryStore, NewMemory};
use agent_tools_builtins::{BuiltinConfig, Builtins, Workspace};
use agent_tools_core::{ToolCall, ToolRegistry, context::Principal};
use agent_tools_postgres::PoolOptions;
use serde_json::{Value, json};

use test_support::postgres;

fn memory(content: &str, key: Option<&str>, tags: &[&str]) -> NewMemory {
    let tags: Vec<String> = tags.iter().map(ToString::to_string).collect();
    NewMemory::new(content.to_owned(), key, &tags).expect("a valid memory")
}

/// A store on a fresh database; `None` when PostgreSQL is not installed (the test is
/// skipped, see `test_support::require`).
async fn store() -> Option<(MemoryStore, String)> {
    let url = postgres::server()?.database();
    let store = MemoryStore::postgres(&url).await.expect("the store connects");
    Some((store, url))
}

/// The ids `query` finds, best first.
async fn found(store: &MemoryStore, query: &str, tags: &[&str]) -> Vec<i64> {
    let tags: Vec<String> = tags.iter().map(ToString::to_string).collect();
    let results = store.search(query, &tags, 10).await.expect("the search runs");
    results.hits.iter().map(|hit| hit.id).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_ranks_words_tags_and_keys_as_on_sqlite() {
    let Some((store, _)) = store().await else {
        return;
    };
    let deploy = store
        .write(memory(
            "Deploys go through the staging cluster first.",
            Some("deploy"),
            &["Ops"],
        ))
        .await
        .unwrap();
    let configured = store
        .write(memory(
            "The cache was configured with a 10 minute TTL.",
            None,
            &["ops", "cache"],
        ))
        .await
        .unwrap();
    let other = store
        .write(memory("Alice prefers tabs over spaces.", None, &[]))
        .await
        .unwrap();
    assert!(!deploy.replaced);

    // Stemming, tags (normalized), any-word fallback.
    assert_eq!(found(&store, "configure", &[]).await, [configured.id]);
    assert_eq!(found(&store, "staging", &["OPS"]).await, [deploy.id]);
    assert!(found(&store, "staging", &["cache"]).await.is_empty());
    let fallback = store.search("tabs nonexistentword", &[], 10).await.unwrap();
    assert!(!fallback.matched_all_words);
    assert_eq!(fallback.hits[0].id, other.id);
    assert!(
        fallback.hits[0].snippet.contains("«tabs»"),
        "{}",
        fallback.hits[0].snippet
    );

    // A word in the key or tags ranks above the same word in the text.
    let in_text = store
        .write(memory("We talked about the deploy window.", None, &[]))
        .await
        .unwrap();
    assert_eq!(found(&store, "deploy", &[]).await, [deploy.id, in_text.id]);

    // Keys upsert: same id, new content and tags, the old words gone.
    let replaced = store
        .write(memory(
            "Deploys go straight to production now.",
            Some("deploy"),
            &["release"],
        ))
        .await
        .unwrap();
    assert_eq!((replaced.id, replaced.replaced), (deploy.id, true));
    assert!(found(&store, "staging", &[]).await.is_empty());
    let read = store.get_by_key("deploy").await.unwrap();
    assert_eq!(read.tags, ["release"]);
    assert!(read.updated_at > read.created_at, "{read:?}");
    assert_eq!(store.get(deploy.id).await.unwrap().content, read.content);
    let recent: Vec<i64> = store.recent(2).await.unwrap().iter().map(|m| m.id).collect();
    assert_eq!(
        recent,
        [deploy.id, in_text.id],
        "a replaced memory is the most recent"
    );
    assert_eq!(store.count().await.unwrap(), 4);
    assert!(matches!(
        store.get(999_999).await,
        Err(MemoryError::IdNotFound(999_999))
    ));
    assert!(matches!(
        store.get_by_key("none").await,
        Err(MemoryError::KeyNotFound(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cjk_identifiers_and_accents_are_found_inside_text() {
    let Some((store, _)) = store().await else {
        return;
    };
    let chinese = store
        .write(memory("数据库迁移需要在周五晚上进行，先备份再执行。", None, &[]))
        .await
        .unwrap();
    let japanese = store
        .write(memory("本番環境のデプロイは金曜日に行わないこと。", None, &[]))
        .await
        .unwrap();
    let korean = store
        .write(memory(
            "결제 서비스의 타임아웃을 삼십 초로 늘렸습니다.",
            None,
            &[],
        ))
        .await
        .unwrap();
    let ticket = store
        .write(memory(
            "Ticket OPS-4821: run deploy_prod.sh after services/audit-log/build.toml.",
            None,
            &[],
        ))
        .await
        .unwrap();
    let cafe = store
        .write(memory("Meet at the café near the office.", None, &[]))
        .await
        .unwrap();

    assert_eq!(
        found(&store, "迁移", &[]).await,
        [chinese.id],
        "a two-character word mid-sentence"
    );
    assert_eq!(found(&store, "备份", &[]).await, [chinese.id]);
    assert!(
        found(&store, "迁备", &[]).await.is_empty(),
        "characters not adjacent"
    );
    assert_eq!(found(&store, "デプロイ", &[]).await, [japanese.id]);
    assert_eq!(found(&store, "서비스", &[]).await, [korean.id]);
    for query in ["OPS-4821", "4821", "deploy_prod.sh", "prod", "audit-log", "toml"] {
        assert_eq!(found(&store, query, &[]).await, [ticket.id], "{query}");
    }
    assert_eq!(found(&store, "cafe", &[]).await, [cafe.id]);
    assert_eq!(found(&store, "CAFÉ", &[]).await, [cafe.id]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_syntax_is_only_ever_text() {
    let Some((store, url)) = store().await else {
        return;
    };
    let text = format!(
        "Rust's borrow checker & lifetimes: a | b !c <-> d:* (e) {}",
        "ꙮ".repeat(999)
    );
    let kept = store.write(memory(&text, None, &[])).await.unwrap();
    let hostile = [
        "'",
        "\"",
        "& | ! <-> :* ( ) \\",
        "a & b | !c",
        "borrow:* & !nothing",
        "'; DROP TABLE agent_tools_memories; --",
        "$1 $2 %s {0}",
        "NEAR(a b) AND OR NOT",
        "x\u{0}y",
        // One word over PostgreSQL's 2,047-byte limit for a lexeme.
        &"ꙮ".repeat(999),
        &"word ".repeat(199),
    ];
    for query in hostile {
        // Punctuation alone is no words: the one refusal, with a message for the model.
        let result = store.search(query, &[], 10).await;
        assert!(
            matches!(result, Ok(_) | Err(MemoryError::EmptyQuery)),
            "{query:?}: {result:?}"
        );
    }
    assert_eq!(
        found(&store, "borrow:*", &[]).await,
        [kept.id],
        "`:*` is not a prefix operator"
    );
    assert_eq!(found(&store, "lifetimes", &[]).await, [kept.id]);
    assert!(matches!(
        store.search("- ( 🎉", &[], 10).await,
        Err(MemoryError::EmptyQuery)
    ));
    // Stop words only: nothing to look for, and no error.
    assert!(found(&store, "the of and", &[]).await.is_empty());
    // Memories can hold nothing PostgreSQL would refuse; U+0000 is refused before it.
    let nul = NewMemory::new("a\0b".into(), None, &[]);
    assert!(matches!(nul, Err(MemoryError::NulCharacter { field: "content" })));
    assert!(matches!(
        store.get_by_key("a\0b").await,
        Err(MemoryError::KeyNotFound(_))
    ));

    let count: i64 = postgres::client(&url)
        .await
        .query_one("SELECT count(*) FROM agent_tools_memories", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(count, 1, "the table is still there, with its one memory");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn namespaces_keep_tenants_apart() {
    let Some((store, _)) = store().await else {
        return;
    };
    let alice = store.with_namespace("tenant/alice").unwrap();
    let bob = store.with_namespace("tenant/bob").unwrap();
    let alices = alice
        .write(memory(
            "Alice's staging password is hunter2.",
            Some("password"),
            &["secret"],
        ))
        .await
        .unwrap();
    let bobs = bob
        .write(memory(
            "Bob's staging password is swordfish.",
            Some("password"),
            &["secret"],
        ))
        .await
        .unwrap();
    assert!(
        !bobs.replaced,
        "the same key in another namespace is another memory"
    );
    assert_ne!(alices.id, bobs.id);

    assert_eq!(found(&alice, "staging password", &["secret"]).await, [alices.id]);
    assert_eq!(found(&bob, "hunter2", &[]).await, Vec::<i64>::new());
    assert!(
        found(&store, "password", &[]).await.is_empty(),
        "the default namespace is a third"
    );
    assert!(matches!(
        bob.get(alices.id).await,
        Err(MemoryError::IdNotFound(_))
    ));
    assert!(
        bob.get_by_key("password")
            .await
            .unwrap()
            .content
            .contains("swordfish")
    );
    assert_eq!(bob.recent(10).await.unwrap().len(), 1);
    assert_eq!(bob.count().await.unwrap(), 1);
    assert_eq!(alice.namespace(), Some("tenant/alice"));
    assert!(matches!(
        store.with_namespace(""),
        Err(MemoryError::InvalidNamespace(_))
    ));
    assert!(matches!(
        store.with_namespace("a\nb"),
        Err(MemoryError::InvalidNamespace(_))
    ));

    let temp = tempfile::tempdir().unwrap();
    let sqlite = MemoryStore::open(temp.path().join("m.db")).unwrap();
    assert!(matches!(
        sqlite.with_namespace("x"),
        Err(MemoryError::NamespacesNeedPostgres)
    ));
}

/// Two stores with pools of their own, as two replicas have, write and search one
/// database at once; writers racing on one key leave one memory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_pools_write_and_search_one_database_at_once() {
    let Some((first, url)) = store().await else {
        return;
    };
    let second = MemoryStore::postgres_with(&url, PoolOptions::default().size(2))
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for (replica, store) in [(0, first.clone()), (1, second.clone())] {
        for worker in 0..4 {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                for n in 0..25 {
                    let text = format!("replica{replica} worker{worker} note{n} shared-word");
                    store.write(memory(&text, None, &[])).await.unwrap();
                    let same_key = format!("written by replica{replica} worker{worker} at {n}");
                    store
                        .write(memory(&same_key, Some("contended"), &[]))
                        .await
                        .unwrap();
                    let hits = store.search("shared-word", &[], 5).await.unwrap();
                    assert!(!hits.hits.is_empty());
                }
            }));
        }
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(
        first.count().await.unwrap(),
        201,
        "200 notes and one contended key"
    );
    assert_eq!(second.count().await.unwrap(), 201);
    let by_key = second.get_by_key("contended").await.unwrap();
    assert_eq!(first.get_by_key("contended").await.unwrap(), by_key);
    assert_eq!(found(&second, "replica0 worker3 note24", &[]).await.len(), 1);
    assert_eq!(found(&first, "replica1 worker0 note0", &[]).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_starting_together_migrate_once_and_newer_schemas_are_refused() {
    let Some(server) = postgres::server() else {
        return;
    };
    let url = server.database();
    let connects = (0..6).map(|_| {
        let url = url.clone();
        tokio::spawn(async move { MemoryStore::postgres(&url).await.map(|_| ()) })
    });
    for connect in connects.collect::<Vec<_>>() {
        connect.await.unwrap().expect("every replica connects");
    }
    let admin = postgres::client(&url).await;
    let version: i32 = admin
        .query_one(
            "SELECT version FROM agent_tools_schema WHERE component = 'memory'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(version, 1);

    admin
        .execute(
            "UPDATE agent_tools_schema SET version = 99 WHERE component = 'memory'",
            &[],
        )
        .await
        .unwrap();
    let error = MemoryStore::postgres(&url).await.unwrap_err();
    assert!(
        matches!(
            error,
            MemoryError::NewerSchema {
                found: 99,
                supported: 1
            }
        ),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_the_server_drops_are_replaced() {
    let Some((store, url)) = store().await else {
        return;
    };
    let id = store
        .write(memory("survives a restart", None, &[]))
        .await
        .unwrap()
        .id;
    let killed = postgres::terminate_other_connections(&url).await;
    assert!(killed > 0, "the store's connections were open");
    // A call may meet its connection just as it closes, and fails with the server's
    // error (it is not retried: it might have run); a later call reconnects.
    let mut failures = Vec::new();
    let mut read = None;
    for _ in 0..20 {
        match store.get(id).await {
            Ok(memory) => {
                read = Some(memory);
                break;
            }
            Err(error) => failures.push(error.to_string()),
        }
    }
    let read = read.unwrap_or_else(|| panic!("no call succeeded: {failures:?}"));
    assert_eq!(read.content, "survives a restart");
    assert!(
        failures.len() <= 4,
        "at most one failure per pooled connection: {failures:?}"
    );
    assert!(
        failures.iter().all(|failure| failure.starts_with("PostgreSQL:")),
        "{failures:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_is_a_clear_error() {
    let port = postgres::free_port();
    let url = format!("postgres://agent@127.0.0.1:{port}/none");
    let error = MemoryStore::postgres(&url).await.unwrap_err();
    assert!(error.to_string().starts_with("PostgreSQL: "), "{error}");
    let error = MemoryStore::postgres("mysql://nope").await.unwrap_err();
    assert!(error.to_string().contains("PostgreSQL"), "{error}");
}

async fn call(registry: &ToolRegistry, principal: Option<&str>, tool: &str, arguments: Value) -> String {
    let mut call = ToolCall::new("c", tool, arguments);
    if let Some(subject) = principal {
        call = call.with_principal(Principal::new(subject));
    }
    let result = registry.call(call).await;
    assert!(!result.is_error(), "{tool}: {}", result.text());
    result.text()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_principal_memories_through_the_tools() {
    let Some(server) = postgres::server() else {
        return;
    };
    let url = server.database();
    let temp = tempfile::tempdir().unwrap();
    let config: BuiltinConfig = toml::from_str(
        "[memory]\nurl_env = \"TEST_MEMORY_URL\"\nnamespace = \"team\"\nper_principal = true\n",
    )
    .unwrap();
    let registry = ToolRegistry::new();
    let env = |name: &str| (name == "TEST_MEMORY_URL").then(|| url.clone());
    agent_tools_builtins::register_all_with_env(&registry, Some(temp.path().to_owned()), &config, &env)
        .expect("the tools register without connecting");

    call(
        &registry,
        Some("alice"),
        "memory_write",
        json!({"content": "alice's plan: ship on friday", "key": "plan"}),
    )
    .await;
    call(
        &registry,
        Some("bob"),
        "memory_write",
        json!({"content": "bob's plan: ship on monday", "key": "plan"}),
    )
    .await;
    call(
        &registry,
        None,
        "memory_write",
        json!({"content": "the team's plan: ship together", "key": "plan"}),
    )
    .await;

    let alice = call(
        &registry,
        Some("alice"),
        "memory_search",
        json!({"query": "ship plan"}),
    )
    .await;
    assert!(
        alice.contains("friday") && !alice.contains("monday") && !alice.contains("together"),
        "{alice}"
    );
    let bob = call(&registry, Some("bob"), "memory_read", json!({"key": "plan"})).await;
    assert!(bob.contains("monday"), "{bob}");
    let anonymous = call(&registry, None, "memory_read", json!({"recent": 10})).await;
    assert!(
        anonymous.contains("together") && !anonymous.contains("friday"),
        "{anonymous}"
    );

    let namespaces = postgres::strings(
        &url,
        "SELECT namespace FROM agent_tools_memories ORDER BY namespace",
    )
    .await;
    assert_eq!(namespaces, ["team", "team/principal:alice", "team/principal:bob"]);
}

#[test]
fn memory_settings_that_cannot_work_are_refused() {
    let temp = tempfile::tempdir().unwrap();
    let refused = |toml: &str| {
        let config: BuiltinConfig = toml::from_str(toml).unwrap();
        let env = |name: &str| (name == "HOME").then(|| "/nonexistent-home".to_owned());
        agent_tools_builtins::register_all_with_env(
            &ToolRegistry::new(),
            Some(temp.path().to_owned()),
            &config,
            &env,
        )
        .unwrap_err()
        .to_string()
    };
    assert!(refused("[memory]\nper_principal = true\n").contains("namespaces need the PostgreSQL store"));
    assert!(refused("[memory]\nnamespace = \"x\"\n").contains("namespaces need the PostgreSQL store"));
    assert!(refused("[memory]\nurl_env = \"UNSET_URL\"\n").contains("$UNSET_URL, which is not set"));
    let invalid = refused("[memory]\nurl = \"postgres://h/db\"\nnamespace = \"\"\n");
    assert!(invalid.contains("namespace"), "{invalid}");

    let ws = Workspace::open(temp.path()).unwrap();
    let sqlite = MemoryStore::open(temp.path().join("m.db")).unwrap();
    let error = Builtins::builder(ws)
        .memory(sqlite)
        .memory_per_principal(true)
        .build()
        .unwrap_err();
    assert!(
        error.to_string().contains("namespaces need the PostgreSQL store"),
        "{error}"
    );
}
