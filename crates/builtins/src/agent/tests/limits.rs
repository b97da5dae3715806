//! The bounds of `spawn`, through the real tool with a runner the tests hold: how many
//! sub-agents of a session may wait and may start in all, and a time limit that counts
//! from the `spawn` call.

use crate::Workspace;
use agent_tools_core::{ToolCall, ToolResult};
use serde_json::json;

use super::*;

/// The built-in tools, with `manager` behind `spawn`.
fn tools(manager: &LocalSubagents) -> (tempfile::TempDir, ToolRegistry) {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let builtins = crate::Builtins::builder(ws)
        .subagents(Arc::new(manager.clone()))
        .build()
        .unwrap();
    let registry = ToolRegistry::new();
    Arc::new(builtins).register_all(&registry).unwrap();
    (dir, registry)
}

/// Calls `spawn` as session `session`.
async fn spawn_in(registry: &ToolRegistry, session: &str, task: &str) -> ToolResult {
    let call = ToolCall::new("call", "spawn", json!({ "task": task })).with_session_id(session);
    registry.call(call).await
}

fn started(result: &ToolResult) -> bool {
    !result.is_error() && result.text().starts_with("Started sub-agent")
}

async fn all_finish(manager: &LocalSubagents) {
    for info in manager.list() {
        let status = manager.wait(&info.id).await.unwrap();
        assert!(matches!(status, SubagentStatus::Completed(_)), "{status:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_may_queue_only_so_many_sub_agents() {
    let (gate, active) = (CancellationToken::new(), Arc::new(AtomicUsize::new(0)));
    let runner = gated_runner(gate.clone(), active.clone(), Arc::default());
    let manager = LocalSubagents::builder(runner, ToolRegistry::new())
        .max_concurrent(1)
        .max_queued(1)
        .build();
    let (_dir, registry) = tools(&manager);
    assert!(started(&spawn_in(&registry, "s1", "works").await));
    poll_until(|| active.load(Ordering::SeqCst) == 1).await;
    assert!(started(&spawn_in(&registry, "s1", "waits").await));

    let refused = spawn_in(&registry, "s1", "one too many").await;
    assert!(refused.is_error());
    assert_eq!(
        refused.text(),
        "sub-agent not started: no slot is free (the limit is 1 at once) and this session already has \
         1 sub-agent waiting for one, the most it may (max_queued); wait for results before starting more"
    );
    assert!(
        started(&spawn_in(&registry, "s2", "waits in its own session").await),
        "each session has its own queue"
    );
    assert_eq!(manager.list().len(), 3, "the refused one was never started");

    gate.cancel();
    all_finish(&manager).await;
    assert!(
        started(&spawn_in(&registry, "s1", "after the queue emptied").await),
        "leaving the queue frees the place"
    );
    all_finish(&manager).await;
}

#[tokio::test]
async fn a_session_may_start_only_so_many_sub_agents_in_all() {
    let gate = CancellationToken::new();
    gate.cancel();
    let runner = gated_runner(gate, Arc::default(), Arc::default());
    let manager = LocalSubagents::builder(runner, ToolRegistry::new())
        .max_per_session(2)
        .build();
    let (_dir, registry) = tools(&manager);
    for task in ["one", "two"] {
        assert!(started(&spawn_in(&registry, "s1", task).await));
    }
    all_finish(&manager).await;

    let refused = spawn_in(&registry, "s1", "three").await;
    assert!(refused.is_error());
    assert_eq!(
        refused.text(),
        "sub-agent not started: this session has started 2 sub-agents, the most one session may \
         (max_per_session); do the remaining work yourself"
    );
    assert!(
        started(&spawn_in(&registry, "s2", "one").await),
        "another session has its own count"
    );
    let no_session = registry
        .call(ToolCall::new("call", "spawn", json!({"task": "one"})))
        .await;
    assert!(started(&no_session), "{}", no_session.text());
    assert_eq!(manager.list().len(), 4);
    all_finish(&manager).await;
}

/// The clock is paused: it moves only by `advance` and by jumping to the next timer
/// when every task waits, so the times below are the timers' arithmetic, not
/// measurements that a busy machine could stretch.
#[tokio::test(start_paused = true)]
async fn the_time_limit_counts_from_the_spawn_call() {
    let timeout = Duration::from_millis(200);
    let runner = gated_runner(CancellationToken::new(), Arc::default(), Arc::default());
    let manager = LocalSubagents::builder(runner, ToolRegistry::new())
        .max_concurrent(1)
        .timeout(timeout)
        .build();
    let (_dir, registry) = tools(&manager);
    assert!(started(&spawn_in(&registry, "s", "holds the only slot").await));
    tokio::time::advance(Duration::from_millis(150)).await;
    let called = tokio::time::Instant::now();
    assert!(started(&spawn_in(&registry, "s", "waits 50 ms for it").await));

    let first = manager.wait("agent-1").await;
    let second = manager.wait("agent-2").await;
    // Counted from the slot, it would have run until 250 ms after its call.
    let ended = called.elapsed();
    assert!(
        ended < timeout + Duration::from_millis(10),
        "ended {ended:?} after the call"
    );
    assert_eq!(
        first,
        Some(SubagentStatus::Failed("timed out after 200ms".into()))
    );
    assert_eq!(
        second,
        Some(SubagentStatus::Failed(
            "timed out after 200ms (50ms of it waiting for a free slot)".into()
        ))
    );
}
