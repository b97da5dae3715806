//! How well `tool_search` finds what a model asks for: the queries of
//! `benches/support/tool_catalog.rs` against the built-in tools, the official everything
//! server mounted over stdio, and 1,000 look-alike tools of a SaaS gateway; recall at 5
//! must stay at 90% or more (the README reports the figure the bench prints).

use agent_tools::ToolRegistry;
use agent_tools::builtin_tools::{self, BuiltinConfig};
use agent_tools::mcp::{McpServer, MountMcp as _, MountOptions};

#[path = "support/everything.rs"]
mod everything;
#[path = "../benches/support/tool_catalog.rs"]
mod tool_catalog;

/// The registry the bench measures too: everything deferred.
pub(crate) async fn gateway(data: &std::path::Path, workspace: &std::path::Path) -> ToolRegistry {
    let registry = ToolRegistry::builder().defer_all().build();
    let data = data.to_owned();
    let env = move |name: &str| (name == "XDG_DATA_HOME").then(|| data.display().to_string());
    builtin_tools::register_all_with_env(
        &registry,
        Some(workspace.to_owned()),
        &BuiltinConfig::default(),
        &env,
    )
    .unwrap();
    let command = everything::everything_server();
    let mut words = command.split(' ');
    let program = words.next().unwrap();
    registry
        .mount_mcp(
            McpServer::stdio(program, words),
            MountOptions::new().prefix("ev_"),
        )
        .await
        .unwrap();
    for tool in tool_catalog::synthetic_tools(1000) {
        registry.register(tool).unwrap();
    }
    registry
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recall_at_five_over_a_thousand_look_alike_tools() {
    let data = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let registry = gateway(data.path(), workspace.path()).await;
    let (asked, found, misses) = tool_catalog::recall_at(&registry, 5).await;
    assert_eq!(
        asked,
        tool_catalog::QUERIES.len(),
        "every query's tool is registered"
    );
    let recall = found as f64 / asked as f64;
    eprintln!("recall@5: {found}/{asked} = {recall:.2}; misses: {misses:#?}");
    assert!(recall >= 0.9, "recall@5 {found}/{asked}: {misses:#?}");
}
