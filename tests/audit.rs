//! The audit log under load: every call is one complete line, whatever runs concurrently.

use std::collections::HashSet;
use std::sync::Arc;

use agent_tools::{AuditEvent, JsonlAudit, MemoryAudit, Outcome, ToolCall, ToolRegistry, tool};

/// Echo a text after yielding, so calls interleave.
#[tool]
async fn echo(
    /// The text.
    text: String,
    /// A secret that must not reach the log.
    api_key: Option<String>,
) -> String {
    let _ = api_key;
    tokio::task::yield_now().await;
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_concurrent_calls_write_a_thousand_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let memory = MemoryAudit::new();
    let registry = ToolRegistry::builder()
        .audit(JsonlAudit::open(&path).unwrap())
        .audit(memory.clone())
        .build();
    registry.register(EchoTool).unwrap();

    // Half through one `call_all`, half from tasks spread over the worker threads.
    let batch: Vec<ToolCall> = (0..500)
        .map(|i| {
            let text = format!("{i}-{}", "x".repeat(i % 300));
            ToolCall::new(
                format!("call-{i}"),
                "echo",
                serde_json::json!({"text": text, "api_key": "sk-secret"}),
            )
        })
        .collect();
    let registry_for_tasks = Arc::new(registry.clone());
    let tasks: Vec<_> = (500..1000)
        .map(|i| {
            let registry = registry_for_tasks.clone();
            tokio::spawn(async move {
                let arguments = format!(r#"{{"text": "{i}", "api_key": "sk-secret"}}"#);
                registry
                    .call(ToolCall::new(format!("call-{i}"), "echo", arguments))
                    .await
            })
        })
        .collect();
    let results = registry.call_all(batch).await;
    assert!(results.iter().all(|result| result.outcome == Outcome::Ok));
    for task in tasks {
        assert_eq!(task.await.unwrap().outcome, Outcome::Ok);
    }

    let text = std::fs::read_to_string(&path).unwrap();
    let events: Vec<AuditEvent> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("broken line {line:?}: {e}")))
        .collect();
    assert_eq!(events.len(), 1000);
    let ids: HashSet<&str> = events.iter().map(|event| event.call_id.as_str()).collect();
    assert_eq!(ids.len(), 1000, "every call has exactly one line");
    assert!(!text.contains("sk-secret"), "secrets are redacted");
    assert!(
        events
            .iter()
            .all(|event| event.arguments["api_key"] == "[REDACTED]")
    );
    assert_eq!(memory.len(), 1000);
}
