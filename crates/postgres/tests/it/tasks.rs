//! `PostgresTaskStore` against a real PostgreSQL server (a fresh cluster on a loopback
//! port, started by this test binary): the contract every task store keeps
//! (`check_store`), two replicas — two stores with pools of their own — sharing their
//! tasks and their claims, records that read back exactly, changes that stay atomic
//! under contention, and connections the server ends.

use std::collections::BTreeMap;
use std::sync::Arc;

use agent_tools_core::task::{
    Answered, TaskCall, TaskRecord, TaskStatus, TaskStore, TaskStoreError, Tasks, check_store,
};
use agent_tools_postgres::{PostgresTaskStore, TaskStoreOptions};
use serde_json::{Value, json};

use test_support::postgres;

async fn store(url: &str) -> PostgresTaskStore {
    PostgresTaskStore::connect(url, TaskStoreOptions::default())
        .await
        .unwrap()
}

/// A fresh database's URL, or `None` (the test is skipped) without PostgreSQL.
fn database() -> Option<String> {
    postgres::server().map(|server| server.database())
}

fn one(key: &str, value: Value) -> BTreeMap<String, Value> {
    BTreeMap::from([(key.to_owned(), value)])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_keeps_the_contract() {
    let Some(url) = database() else {
        return;
    };
    check_store(Arc::new(store(&url).await))
        .await
        .unwrap_or_else(|problem| panic!("{problem}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_answer_claim_and_cancel_each_others_tasks() {
    let Some(url) = database() else {
        return;
    };
    let (a, b) = (Tasks::new(store(&url).await), Tasks::new(store(&url).await));
    let call = TaskCall::new("deploy", json!({"to": "prod"}));
    let task = a.create(call, json!({"round": 1}), "replica-a").await.unwrap();
    let seen = b.read(&task.id).await.unwrap().expect("B sees A's task");
    assert_eq!(seen.lease.map(|lease| lease.holder).as_deref(), Some("replica-a"));

    let question = json!({"method": "elicitation/create"});
    assert!(
        a.park(
            &task.id,
            "replica-a",
            one("approve", question),
            json!({"round": 2})
        )
        .await
        .unwrap()
    );
    let waiting = b.read(&task.id).await.unwrap().unwrap();
    assert_eq!(waiting.status, TaskStatus::InputRequired);
    let answer = one("approve", json!({"action": "accept"}));
    assert_eq!(
        b.answer(&task.id, answer, Some("ann")).await.unwrap(),
        Some(Answered::Resumed)
    );

    let claimed = b
        .claim(&task.id, "replica-b")
        .await
        .unwrap()
        .expect("B claims it");
    assert_eq!(claimed.answered_by["approve"], "ann");
    assert_eq!(claimed.state, json!({"round": 2}));
    assert!(
        a.claim(&task.id, "replica-a").await.unwrap().is_none(),
        "B holds it"
    );

    let cancelled = a.cancel(&task.id).await.unwrap().unwrap();
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    assert!(
        !b.renew(&task.id, "replica-b").await.unwrap(),
        "B learns of it and stops"
    );
    assert_eq!(
        b.read(&task.id).await.unwrap().unwrap().status,
        TaskStatus::Cancelled
    );
    let listed = b.list(TaskStatus::Cancelled, 10).await.unwrap();
    assert_eq!(listed.iter().map(|task| &task.id).collect::<Vec<_>>(), [&task.id]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_sixteen_claims_through_two_replicas_one_wins() {
    let Some(url) = database() else {
        return;
    };
    let replicas = [Tasks::new(store(&url).await), Tasks::new(store(&url).await)];
    let task = replicas[0]
        .create(TaskCall::new("build", json!({})), Value::Null, "creator")
        .await
        .unwrap();
    let question = one("go", json!({"method": "elicitation/create"}));
    replicas[0]
        .park(&task.id, "creator", question, Value::Null)
        .await
        .unwrap();
    let answer = one("go", json!({"action": "accept"}));
    replicas[1].answer(&task.id, answer, None).await.unwrap();

    let claims: Vec<_> = (0..16)
        .map(|n| {
            let tasks = replicas[n % 2].clone();
            let id = task.id.clone();
            tokio::spawn(async move { tasks.claim(&id, &format!("server-{n}")).await })
        })
        .collect();
    let mut winners = Vec::new();
    for claim in claims {
        if let Some(task) = claim.await.unwrap().unwrap() {
            winners.push(task.lease.unwrap().holder);
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    let stored = replicas[1].read(&task.id).await.unwrap().unwrap();
    assert_eq!(
        stored.lease.unwrap().holder,
        winners[0],
        "the winner's lease is kept"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_through_two_replicas_at_once_are_none_lost() {
    let Some(url) = database() else {
        return;
    };
    let stores = [store(&url).await, store(&url).await];
    let task = Tasks::new(stores[0].clone())
        .create(TaskCall::new("count", json!({})), json!(0), "a")
        .await
        .unwrap();
    let changes: Vec<_> = (0..40)
        .map(|n| {
            let store = stores[n % 2].clone();
            let id = task.id.clone();
            tokio::spawn(async move {
                let mut add_one =
                    |task: &mut TaskRecord| task.state = json!(task.state.as_u64().unwrap() + 1);
                store.modify(&id, &mut add_one).await
            })
        })
        .collect();
    for change in changes {
        change.await.unwrap().unwrap().expect("the task is there");
    }
    let counted = stores[1].get(&task.id).await.unwrap().unwrap();
    assert_eq!(
        counted.state,
        json!(40),
        "each change was applied to the last one's record"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_reads_back_exactly_as_written() {
    let Some(url) = database() else {
        return;
    };
    let store = store(&url).await;
    // U+0000 (which jsonb refuses), keys out of order, numbers at the edges of their types.
    let arguments =
        json!({"z": "a\u{0}b", "a": [u64::MAX, i64::MIN, 0.1, 1e300], "m": {"y": null, "b": true}});
    let tasks = Tasks::new(store.clone());
    let task = tasks
        .create(
            TaskCall::new("odd", arguments.clone()),
            json!({"kept": "\u{0}"}),
            "a",
        )
        .await
        .unwrap();
    let read = store.get(&task.id).await.unwrap().unwrap();
    assert_eq!(read, task);
    assert_eq!(
        read.call.arguments.to_string(),
        arguments.to_string(),
        "in the same order"
    );
    assert!(matches!(
        store.create(task.clone()).await,
        Err(TaskStoreError::Exists(id)) if id == task.id
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_row_that_is_not_a_task_is_a_backend_error() {
    let Some(url) = database() else {
        return;
    };
    let tasks = Tasks::new(store(&url).await);
    let task = tasks
        .create(TaskCall::new("t", json!({})), Value::Null, "a")
        .await
        .unwrap();
    postgres::client(&url)
        .await
        .execute(
            "UPDATE agent_tools_tasks SET record = '{\"id\": 1}' WHERE id = $1",
            &[&task.id],
        )
        .await
        .unwrap();
    for error in [
        tasks.read(&task.id).await.unwrap_err(),
        tasks.cancel(&task.id).await.unwrap_err(),
    ] {
        assert!(matches!(error, TaskStoreError::Backend(_)), "{error:?}");
        let source = std::error::Error::source(&error).unwrap().to_string();
        assert!(source.contains(&task.id), "the task is named: {source}");
    }
}

/// Ends every connection to `url`'s database but this one, as a restart or a failover
/// would, and waits until they are gone; how many there were.
async fn end_connections(url: &str) -> usize {
    postgres::client(url)
        .await
        .query(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .await
        .unwrap()
        .len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_the_server_ends_are_replaced() {
    let Some(url) = database() else {
        return;
    };
    // One connection of each kind, so the next read and change each meet a dead one.
    let options = TaskStoreOptions::default().connections(1).transactions(1);
    let tasks = Tasks::new(PostgresTaskStore::connect(&url, options).await.unwrap());
    let task = tasks
        .create(TaskCall::new("t", json!({})), Value::Null, "a")
        .await
        .unwrap();
    tasks.renew(&task.id, "a").await.unwrap();
    // The store's two, and perhaps the one that migrated, on its way out.
    assert!(end_connections(&url).await >= 2);

    assert_eq!(
        tasks.read(&task.id).await.unwrap().unwrap().status,
        TaskStatus::Working
    );
    assert!(tasks.renew(&task.id, "a").await.unwrap());
    assert_eq!(
        tasks.cancel(&task.id).await.unwrap().unwrap().status,
        TaskStatus::Cancelled
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_whose_connection_is_lost_before_its_commit_is_made_again() {
    let Some(url) = database() else {
        return;
    };
    let store = store(&url).await;
    let task = Tasks::new(store.clone())
        .create(TaskCall::new("t", json!({})), json!(0), "a")
        .await
        .unwrap();
    let runtime = tokio::runtime::Handle::current();
    let mut applied = 0;
    let mut change = |task: &mut TaskRecord| {
        applied += 1;
        if applied == 1 {
            // The row is locked and nothing is written yet: the connection dies now.
            tokio::task::block_in_place(|| runtime.block_on(end_connections(&url)));
        }
        task.state = json!(task.state.as_u64().unwrap() + 1);
    };
    let changed = store.modify(&task.id, &mut change).await.unwrap().unwrap();
    assert_eq!(applied, 2, "applied again, on a new connection");
    assert_eq!(
        changed.state,
        json!(1),
        "to the record as stored: the first was not written"
    );
    assert_eq!(store.get(&task.id).await.unwrap().unwrap().state, json!(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deployments_in_schemas_of_their_own_do_not_see_each_other() {
    let Some(url) = database() else {
        return;
    };
    postgres::client(&url)
        .await
        .batch_execute("CREATE SCHEMA staging")
        .await
        .unwrap();
    let production = store(&url).await;
    let staging = store(&format!("{url}?options=-csearch_path%3Dstaging")).await;
    let task = Tasks::new(production.clone())
        .create(TaskCall::new("t", json!({})), Value::Null, "a")
        .await
        .unwrap();
    assert!(staging.get(&task.id).await.unwrap().is_none());
    staging
        .create(task.clone())
        .await
        .expect("the id is free in staging");
    let tables = postgres::strings(
        &url,
        "SELECT table_schema FROM information_schema.tables
         WHERE table_name = 'agent_tools_tasks' ORDER BY 1",
    )
    .await;
    assert_eq!(tables, ["public", "staging"]);
}
