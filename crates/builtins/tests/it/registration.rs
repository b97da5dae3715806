//! Which built-in tools `register_all` registers: the conditional ones only with what
//! they need.

use std::sync::Arc;

use agent_tools_builtins::Builtins;
use agent_tools_builtins::Workspace;
use agent_tools_builtins::agent::{LocalSubagents, SubagentManager, SubagentStatus};
use agent_tools_builtins::web::SearchConfig;
use agent_tools_core::{ToolCall, ToolRegistry, tool::BoxFuture};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const ALWAYS: [&str; 15] = [
    "read_file",
    "write_file",
    "edit_file",
    "apply_patch",
    "list_dir",
    "file_search",
    "exec",
    "process_output",
    "process_write",
    "process_kill",
    "process_list",
    "web_fetch",
    "screenshot",
    "view_image",
    "update_plan",
];

fn names(builtins: Builtins) -> Vec<String> {
    let registry = ToolRegistry::new();
    Arc::new(builtins)
        .register_all(&registry)
        .expect("the tools register")
}

#[tokio::test]
async fn conditional_tools_need_their_dependencies() {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    let plain = names(Builtins::new(ws.clone()).unwrap());
    assert_eq!(plain, ALWAYS);
    assert!(!plain.contains(&"web_search".to_owned()) && !plain.contains(&"spawn".to_owned()));

    let with_search = names(
        Builtins::builder(ws.clone())
            .search(SearchConfig::new("key"))
            .build()
            .unwrap(),
    );
    assert!(with_search.contains(&"web_search".to_owned()));

    let runner = |_: String,
                  _: ToolRegistry,
                  _: CancellationToken|
     -> BoxFuture<'static, Result<String, agent_tools_builtins::BoxError>> {
        Box::pin(async { Ok("done".to_owned()) })
    };
    let manager: Arc<dyn SubagentManager> = Arc::new(LocalSubagents::new(runner, ToolRegistry::new()));
    let with_agents = names(Builtins::builder(ws).subagents(manager).build().unwrap());
    assert!(with_agents.contains(&"spawn".to_owned()));
}

#[tokio::test]
async fn spawn_runs_a_sub_agent_through_the_registry() {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    let registry = ToolRegistry::new();
    let runner = |task: String,
                  tools: ToolRegistry,
                  _: CancellationToken|
     -> BoxFuture<'static, Result<String, agent_tools_builtins::BoxError>> {
        Box::pin(async move {
            let listing = tools.call(ToolCall::new("sub-1", "list_dir", json!({}))).await;
            Ok(format!(
                "{task}: {}",
                listing.text().lines().next().unwrap_or_default()
            ))
        })
    };
    let manager = Arc::new(LocalSubagents::new(runner, registry.clone()));
    let builtins = Builtins::builder(ws).subagents(manager.clone()).build().unwrap();
    Arc::new(builtins).register_all(&registry).unwrap();
    let started = registry
        .call(ToolCall::new(
            "c1",
            "spawn",
            json!({"task": "look around", "label": "scout"}),
        ))
        .await;
    assert_eq!(
        started.text(),
        "Started sub-agent agent-1 (scout). It works in the background; its result will be delivered when it finishes."
    );
    assert_eq!(
        manager.wait("agent-1").await,
        Some(SubagentStatus::Completed(
            "look around: `.`: 0 directories, 0 files".into()
        ))
    );
}
