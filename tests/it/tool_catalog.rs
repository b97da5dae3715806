//! The tool catalog of `agent-tools-test-support` (`test_support::tool_catalog`) as this
//! package's registries: the synthetic tools as `DynamicTool`s, the gateway the recall is
//! measured on, and the recall itself through `tool_search`. The data is shared; this glue
//! is here because the support crate depends on no crate of ours.

use std::path::Path;

use agent_tools::builtins::{self, BuiltinConfig};
use agent_tools::mcp::{McpServer, MountMcp as _, MountOptions};
use agent_tools::{ToolCall, ToolError, ToolOutput, ToolRegistry, tool::DynamicTool};
pub(crate) use test_support::tool_catalog::QUERIES;

/// For each query whose tool `registry` has: whether `tool_search` lists it among the
/// first `k`. Returns (queries asked, found, the misses with what came first).
pub(crate) async fn recall_at(registry: &ToolRegistry, k: u64) -> (usize, usize, Vec<String>) {
    let search = |arguments| async move {
        registry
            .call(ToolCall::new("q", "tool_search", arguments))
            .await
            .text()
    };
    test_support::tool_catalog::recall_at(k, |name| registry.contains(name), search).await
}

/// The gateway the recall is measured on, everything deferred: the built-in tools, the
/// everything server (its stdio command line `everything`) as `ev_`, and the 1,000
/// synthetic tools.
pub(crate) async fn gateway(dir: &Path, everything: &str) -> ToolRegistry {
    let registry = ToolRegistry::builder().defer_all().build();
    let data = dir.join("data");
    let env = move |name: &str| (name == "XDG_DATA_HOME").then(|| data.display().to_string());
    let workspace = dir.join("ws");
    std::fs::create_dir_all(&workspace).expect("a workspace");
    builtins::register_all_with_env(&registry, Some(workspace), &BuiltinConfig::default(), &env)
        .expect("the built-in tools register");
    let mut words = everything.split(' ');
    let program = words.next().unwrap_or_default();
    registry
        .mount_mcp(
            McpServer::stdio(program, words),
            MountOptions::new().prefix("ev_"),
        )
        .await
        .expect("the server mounts");
    for tool in test_support::tool_catalog::synthetic_tools(1000) {
        let tool = DynamicTool::new(tool.name, tool.description, tool.schema, |_, _| async {
            Ok::<_, ToolError>(ToolOutput::text("done"))
        });
        registry.register(tool).expect("the tool registers");
    }
    registry
}
