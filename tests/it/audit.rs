//! The audit log under load (every call is one complete line, whatever runs concurrently)
//! and under attack (no secret a model sends reaches it, in any field).

use std::collections::HashSet;
use std::sync::Arc;

use agent_tools::{
    ToolCall, ToolError, ToolRegistry,
    audit::{AuditEvent, JsonlAudit, MemoryAudit, Outcome},
    tool,
    tool::DynamicTool,
};

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

/// Secrets in every form the audit log must not keep, each with the arguments that carry
/// it. None is a real credential.
const SECRETS: &[(&str, &str, &str)] = &[
    (
        "an Authorization header in a command",
        "Zm9vYmFyOmJhenF1eDEyMw",
        r#"{"command": "curl -H 'Authorization: Bearer Zm9vYmFyOmJhenF1eDEyMw' https://x.test"}"#,
    ),
    (
        "a {name, value} env pair",
        "plain-secret-value-77",
        r#"{"command": "deploy", "env": [{"name": "DEPLOY_TOKEN", "value": "plain-secret-value-77"}]}"#,
    ),
    (
        "a URL password",
        "pa55-w0rd-xyz",
        r#"{"url": "https://bob:pa55-w0rd-xyz@db.test/x"}"#,
    ),
    (
        "an api_key query parameter",
        "q-secret-123",
        r#"{"url": "https://api.test/v1?q=1&api_key=q-secret-123"}"#,
    ),
    (
        "an OpenAI key in an assignment",
        "sk-proj-Zx81QmT0vLp3RaY7nWc2HdK9sFb4GjE6uNo5Xi",
        r#"{"command": "OPENAI_API_KEY=sk-proj-Zx81QmT0vLp3RaY7nWc2HdK9sFb4GjE6uNo5Xi python run.py"}"#,
    ),
    (
        "a GitHub token in prose",
        "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s",
        r#"{"content": "use ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s for the push"}"#,
    ),
    (
        "an AWS access key id",
        "AKIAIOSFODNN7EXAMPLE",
        r#"{"content": "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE"}"#,
    ),
    (
        "a Slack token",
        "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp",
        r#"{"text": "slack: xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp"}"#,
    ),
    (
        "a PEM private key block",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
        r#"{"path": "id_ed25519", "content": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----\n"}"#,
    ),
    (
        "a password inside JSON inside a string",
        "hunter2hunter2",
        r#"{"body": "{\"password\": \"hunter2hunter2\"}"}"#,
    ),
];

/// A registry logging to a JSONL file and to memory, with `accept` (succeeds on any
/// arguments) and `reject` (fails quoting its arguments back, as careless tools do).
fn audited(path: &std::path::Path) -> (ToolRegistry, MemoryAudit) {
    let memory = MemoryAudit::new();
    let registry = ToolRegistry::builder()
        .audit(JsonlAudit::open(path).unwrap())
        .audit(memory.clone())
        .build();
    let schema = serde_json::json!({"type": "object"});
    registry
        .register(DynamicTool::new(
            "accept",
            "Accepts anything.",
            schema.clone(),
            |_, _| async { Ok("done") },
        ))
        .unwrap();
    registry
        .register(DynamicTool::new(
            "reject",
            "Fails, quoting its arguments.",
            schema,
            |args, _| async move { Err::<String, _>(ToolError::new(format!("could not use {args}"))) },
        ))
        .unwrap();
    (registry, memory)
}

/// Every line of the file and every event in memory, as JSON text.
fn logged(path: &std::path::Path, memory: &MemoryAudit) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.extend(
        memory
            .events()
            .iter()
            .map(|event| serde_json::to_string(event).unwrap()),
    );
    lines
}

#[tokio::test]
async fn secrets_leave_no_trace_in_arguments_errors_or_unparsed_text() {
    let mut leaks = Vec::new();
    for (what, secret, arguments) in SECRETS {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let (registry, memory) = audited(&path);
        let accepted = registry.call(ToolCall::new("1", "accept", *arguments)).await;
        assert_eq!(accepted.outcome, Outcome::Ok, "{what}");
        let rejected = registry.call(ToolCall::new("2", "reject", *arguments)).await;
        assert_eq!(rejected.outcome, Outcome::Error, "{what}");
        assert!(
            rejected.text().contains(secret),
            "the model itself sees its arguments: {what}"
        );
        // Cut off mid-way: no structure to go by, only the text.
        let unparsed = &arguments[..arguments.len() - 2];
        let broken = registry.call(ToolCall::new("3", "accept", unparsed)).await;
        assert_eq!(broken.outcome, Outcome::InvalidArguments, "{what}");

        let lines = logged(&path, &memory);
        assert_eq!(lines.len(), 6, "{what}");
        for line in lines {
            if line.contains(secret) || !line.contains("[REDACTED]") {
                leaks.push(format!("{what}: {line}"));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "{} lines leaked:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}

#[tokio::test]
async fn ordinary_arguments_are_logged_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let (registry, memory) = audited(&path);
    let arguments = serde_json::json!({
        "key": "user:42",
        "max_tokens": 100,
        "layout": "keyboard",
        "command": "grep -rn token docs/ && cat docs/token-guide.md",
        "content": "The token rotation runs weekly; see https://docs.test/auth?page=2.",
        "env": [{"name": "RUST_LOG", "value": "debug"}],
        "sort_key": "name",
    });
    let result = registry
        .call(ToolCall::new("1", "reject", arguments.clone()))
        .await;
    assert_eq!(result.outcome, Outcome::Error);
    let events = memory.events();
    assert_eq!(events[0].arguments, arguments);
    assert_eq!(events[0].error.as_deref(), Some(result.text().as_str()));
    let lines = logged(&path, &memory);
    assert!(lines.iter().all(|line| !line.contains("[REDACTED]")), "{lines:?}");
}

#[tokio::test]
async fn a_secret_argument_quoted_bare_in_an_error_is_redacted_there_too() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let (registry, memory) = audited(&path);
    let schema = serde_json::json!({"type": "object"});
    registry
        .register(DynamicTool::new(
            "login",
            "Logs in.",
            schema,
            |args, _| async move {
                let password = args["password"].as_str().unwrap_or_default().to_owned();
                Err::<String, _>(ToolError::new(format!("the server refused {password} for bob")))
            },
        ))
        .unwrap();
    let arguments = serde_json::json!({"user": "bob", "password": "correct horse battery"});
    let result = registry.call(ToolCall::new("1", "login", arguments)).await;
    assert_eq!(result.text(), "the server refused correct horse battery for bob");
    assert_eq!(
        memory.events()[0].error.as_deref(),
        Some("the server refused [REDACTED] for bob")
    );
    let lines = logged(&path, &memory);
    assert!(
        lines.iter().all(|line| !line.contains("correct horse")),
        "{lines:?}"
    );
}

/// Keep a list, whole, in the audit log.
#[tool(audit_argument_bytes = 65536)]
async fn keep_list(
    /// The items.
    items: Vec<String>,
) -> String {
    items.len().to_string()
}

/// Count a list; its arguments are cut at the registry's cap.
#[tool]
async fn plain_list(
    /// The items.
    items: Vec<String>,
) -> String {
    items.len().to_string()
}

/// A tool that declares `audit_argument_bytes` keeps that much of its arguments when the
/// registry's cap is lower; other tools are still cut at the registry's.
#[tokio::test]
async fn a_tool_may_keep_more_of_its_arguments_than_the_registry_cap() {
    let memory = MemoryAudit::new();
    let registry = ToolRegistry::builder().audit(memory.clone()).build();
    registry.register(KeepListTool).unwrap();
    registry.register(PlainListTool).unwrap();
    let items: Vec<String> = (0..50).map(|n| format!("{n:02} {}", "y".repeat(200))).collect();
    let result = registry
        .call(ToolCall::new(
            "1",
            "keep_list",
            serde_json::json!({"items": items}),
        ))
        .await;
    assert_eq!(result.text(), "50");
    registry
        .call(ToolCall::new(
            "2",
            "plain_list",
            serde_json::json!({"items": items}),
        ))
        .await;
    let events = memory.events();
    assert_eq!(events[0].arguments, serde_json::json!({"items": items}));
    assert!(events[0].arguments.to_string().len() > 10_000);
    assert_eq!(events[1].arguments["truncated"], true, "{}", events[1].arguments);
}
