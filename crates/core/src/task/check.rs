//! [`check_store`]: the contract of a [`TaskStore`], as a test any store can run.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Answered, TaskCall, TaskOptions, TaskRecord, TaskStatus, TaskStore, TaskStoreError, Tasks};

/// Runs a store through a task's whole life — created, claimed by one of many servers at
/// once, waiting for answers given in parts, resumed, finished, cancelled, its server's
/// lease running out, its time to live ending — and says what it got wrong. For
/// implementors of [`TaskStore`], in their tests:
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::sync::Arc;
/// use agent_tools_core::task::{MemoryTaskStore, check_store};
///
/// check_store(Arc::new(MemoryTaskStore::new())).await.unwrap();
/// # }
/// ```
///
/// It takes about half a second (it waits for a short lease and time to live to end),
/// and leaves the tasks it made in the store (expired).
pub async fn check_store(store: Arc<dyn TaskStore>) -> Result<(), String> {
    records(store.as_ref())
        .await
        .map_err(|problem| format!("the records: {problem}"))?;
    let tasks = Tasks::shared(store).with_options(TaskOptions::default().lease(Duration::from_millis(150)));
    one_claim_wins(&tasks)
        .await
        .map_err(|problem| format!("claims: {problem}"))?;
    life(&tasks)
        .await
        .map_err(|problem| format!("a task's life: {problem}"))?;
    lease_ends(&tasks)
        .await
        .map_err(|problem| format!("a lease: {problem}"))?;
    ttl_ends(&tasks)
        .await
        .map_err(|problem| format!("the time to live: {problem}"))
}

/// What the trait itself promises: create, get, modify, list, remove.
async fn records(store: &dyn TaskStore) -> Result<(), String> {
    let first = record("check-a", 1_000);
    store.create(first.clone()).await.map_err(text)?;
    if store.get("check-a").await.map_err(text)? != Some(first.clone()) {
        return Err("a created task does not read back as it was".into());
    }
    if !matches!(store.create(first.clone()).await, Err(TaskStoreError::Exists(_))) {
        return Err("a second task with the same id is not refused".into());
    }
    if store.get("check-missing").await.map_err(text)?.is_some() {
        return Err("an unknown task reads as one".into());
    }
    let changed = store
        .modify("check-a", &mut |task| {
            task.status_message = Some("changed".into())
        })
        .await
        .map_err(text)?;
    if changed.as_ref().and_then(|task| task.status_message.as_deref()) != Some("changed") {
        return Err("modify does not return the changed task".into());
    }
    if store.get("check-a").await.map_err(text)? != changed {
        return Err("a change is not kept".into());
    }
    if store
        .modify("check-missing", &mut |_| {})
        .await
        .map_err(text)?
        .is_some()
    {
        return Err("modifying an unknown task returns one".into());
    }
    let second = record("check-b", 2_000);
    store.create(second).await.map_err(text)?;
    let mut done = record("check-c", 1_500);
    done.status = TaskStatus::Completed;
    store.create(done).await.map_err(text)?;
    let working: Vec<String> = store
        .list(TaskStatus::Working, 10)
        .await
        .map_err(text)?
        .into_iter()
        .map(|task| task.id)
        .filter(|id| id.starts_with("check-"))
        .collect();
    if working != ["check-a", "check-b"] {
        return Err(format!(
            "listing working tasks gives {working:?}, not the two, oldest first"
        ));
    }
    let removed = store.remove_expired(1_750).await.map_err(text)?;
    let left = store.get("check-b").await.map_err(text)?.is_some();
    if removed < 2 || store.get("check-a").await.map_err(text)?.is_some() || !left {
        return Err(format!(
            "remove_expired removed {removed} tasks, and not exactly those past their time"
        ));
    }
    Ok(())
}

/// A task record for `records`, expiring at `expires_ms`.
fn record(id: &str, expires_ms: u64) -> TaskRecord {
    TaskRecord {
        id: id.to_owned(),
        status: TaskStatus::Working,
        status_message: None,
        created_ms: expires_ms - 500,
        updated_ms: expires_ms - 500,
        expires_ms: Some(expires_ms),
        poll_interval_ms: 100,
        call: TaskCall::new("tool", json!({"n": 1})).with_client(json!({"elicitation": {}})),
        pending: BTreeMap::from([("q".to_owned(), json!({"method": "elicitation/create"}))]),
        answers: BTreeMap::new(),
        answered_by: BTreeMap::new(),
        state: json!({"kept": {"x": 1}}),
        result: None,
        error: None,
        lease: None,
    }
}

/// Of many servers claiming a task at once, exactly one gets it.
async fn one_claim_wins(tasks: &Tasks) -> Result<(), String> {
    let task = tasks
        .create(TaskCall::new("tool", json!({})), Value::Null, "creator")
        .await
        .map_err(text)?;
    tasks
        .park(&task.id, "creator", questions(&["q"]), Value::Null)
        .await
        .map_err(text)?;
    tasks
        .answer(&task.id, answers(&["q"]), None)
        .await
        .map_err(text)?;
    let claims = (0..16).map(|n| {
        let tasks = tasks.clone();
        let id = task.id.clone();
        tokio::spawn(async move { tasks.claim(&id, &format!("server-{n}")).await })
    });
    let mut won = 0;
    for claim in futures_util::future::join_all(claims).await {
        if claim.map_err(text)?.map_err(text)?.is_some() {
            won += 1;
        }
    }
    match won {
        1 => Ok(()),
        won => Err(format!("{won} of 16 concurrent claims won")),
    }
}

/// Created, waiting for two answers given one at a time, resumed by another server,
/// finished; finishing or cancelling again changes nothing.
async fn life(tasks: &Tasks) -> Result<(), String> {
    let task = tasks
        .create(TaskCall::new("tool", json!({})), json!({"round": 1}), "a")
        .await
        .map_err(text)?;
    expect(tasks, &task.id, TaskStatus::Working).await?;
    if tasks.claim(&task.id, "b").await.map_err(text)?.is_some() {
        return Err("a task its creator runs is claimed by another server".into());
    }
    if !tasks.renew(&task.id, "a").await.map_err(text)? {
        return Err("the creator cannot renew its lease".into());
    }
    tasks
        .park(
            &task.id,
            "a",
            questions(&["first", "second"]),
            json!({"round": 2}),
        )
        .await
        .map_err(text)?;
    let waiting = expect(tasks, &task.id, TaskStatus::InputRequired).await?;
    if waiting.pending.len() != 2 || waiting.lease.is_some() {
        return Err("a parked task does not wait for its two questions, held by nobody".into());
    }
    let first = tasks
        .answer(&task.id, answers(&["first", "unasked"]), Some("ann"))
        .await;
    if first.map_err(text)? != Some(Answered::Waiting(1)) {
        return Err("one answer of two does not leave one question".into());
    }
    let still = expect(tasks, &task.id, TaskStatus::InputRequired).await?;
    if still.pending.keys().collect::<Vec<_>>() != ["second"] || still.answers.contains_key("unasked") {
        return Err("the answered question is still pending, or an unasked one was kept".into());
    }
    if tasks
        .answer(&task.id, answers(&["second"]), None)
        .await
        .map_err(text)?
        != Some(Answered::Resumed)
    {
        return Err("the last answer does not resume the task".into());
    }
    let resumed = tasks
        .claim(&task.id, "b")
        .await
        .map_err(text)?
        .ok_or("a resumed task cannot be claimed")?;
    if resumed.answers.len() != 2
        || resumed.state != json!({"round": 2})
        || resumed.answered_by["first"] != "ann"
    {
        return Err("the claimed task lacks its answers, its state or who answered".into());
    }
    if tasks
        .finish(&task.id, "a", Ok(json!({"content": []})))
        .await
        .map_err(text)?
    {
        return Err("a server that no longer holds a task finished it".into());
    }
    if !tasks
        .finish(&task.id, "b", Ok(json!({"content": []})))
        .await
        .map_err(text)?
    {
        return Err("the holder cannot finish the task".into());
    }
    let done = expect(tasks, &task.id, TaskStatus::Completed).await?;
    if done.result != Some(json!({"content": []})) {
        return Err("a completed task lacks its result".into());
    }
    tasks.cancel(&task.id).await.map_err(text)?;
    expect(tasks, &task.id, TaskStatus::Completed).await?;

    let running = tasks
        .create(TaskCall::new("tool", json!({})), Value::Null, "a")
        .await
        .map_err(text)?;
    tasks.cancel(&running.id).await.map_err(text)?;
    expect(tasks, &running.id, TaskStatus::Cancelled).await?;
    if tasks.renew(&running.id, "a").await.map_err(text)? {
        return Err("the server of a cancelled task can still renew it".into());
    }
    if tasks.cancel("unknown-task").await.map_err(text)?.is_some() {
        return Err("cancelling an unknown task returns one".into());
    }
    Ok(())
}

/// A task whose server stops renewing is failed, with why, once its lease ends.
async fn lease_ends(tasks: &Tasks) -> Result<(), String> {
    let task = tasks
        .create(TaskCall::new("tool", json!({})), Value::Null, "dies")
        .await
        .map_err(text)?;
    let failed = poll(|| async {
        let task = tasks.read(&task.id).await.map_err(text)?;
        Ok(task.filter(|task| task.status == TaskStatus::Failed))
    })
    .await?;
    let message = failed
        .error
        .as_ref()
        .and_then(|error| error["message"].as_str())
        .unwrap_or_default();
    if !message.contains("stopped") {
        return Err(format!("a failed task does not say why: {:?}", failed.error));
    }
    Ok(())
}

/// A task past its time to live reads as none, and is removed.
async fn ttl_ends(tasks: &Tasks) -> Result<(), String> {
    let short = tasks
        .clone()
        .with_options(tasks.options().ttl(Duration::from_millis(50)));
    let task = short
        .create(TaskCall::new("tool", json!({})), Value::Null, "a")
        .await
        .map_err(text)?;
    poll(|| async {
        let gone = short.read(&task.id).await.map_err(text)?.is_none();
        Ok(gone.then_some(()))
    })
    .await?;
    if short.remove_expired().await.map_err(text)? == 0
        || short.store().get(&task.id).await.map_err(text)?.is_some()
    {
        return Err("an expired task is not removed".into());
    }
    Ok(())
}

/// Reads task `id`, which must be in `status`.
async fn expect(tasks: &Tasks, id: &str, status: TaskStatus) -> Result<TaskRecord, String> {
    let task = tasks.read(id).await.map_err(text)?.ok_or("a task is gone")?;
    match task.status == status {
        true => Ok(task),
        false => Err(format!("the task is {:?}, not {status:?}", task.status)),
    }
}

/// Polls `check` until it gives a value, for up to five seconds.
async fn poll<T, F, Fut>(mut check: F) -> Result<T, String>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Option<T>, String>>,
{
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Some(value) = check().await? {
            return Ok(value);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Err("what should happen did not within five seconds".into())
}

fn questions(keys: &[&str]) -> BTreeMap<String, Value> {
    keys.iter()
        .map(|key| ((*key).to_owned(), json!({"method": "elicitation/create"})))
        .collect()
}

fn answers(keys: &[&str]) -> BTreeMap<String, Value> {
    keys.iter()
        .map(|key| ((*key).to_owned(), json!({"action": "accept"})))
        .collect()
}

fn text(error: impl std::fmt::Display) -> String {
    error.to_string()
}
