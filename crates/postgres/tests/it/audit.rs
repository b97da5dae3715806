//! `PostgresAudit` against a real PostgreSQL server (Debian's, a fresh cluster on a
//! loopback port started by this test binary): one row per call with the event whole,
//! many calls in few inserts, writers that lose their connection, and — the point of
//! waiting for `stored` — a process killed the moment a call returns still has the
//! call's row.

use std::process::Command;
use std::time::Duration;

use agent_tools_core::{ToolCall, ToolContext, ToolError, ToolRegistry, tool::DynamicTool};
use agent_tools_postgres::{AuditOptions, PostgresAudit};
use serde_json::{Value, json};

use test_support::postgres;

/// A registry auditing into `audit`, with an `echo` tool and a `fail` tool.
fn registry(audit: PostgresAudit) -> ToolRegistry {
    let registry = ToolRegistry::builder().audit(audit).build();
    let schema = json!({"type": "object"});
    let echo = DynamicTool::new(
        "echo",
        "Says it back.",
        schema.clone(),
        |args: Value, _: ToolContext| async move {
            Ok::<_, ToolError>(args["text"].as_str().unwrap_or_default().to_owned())
        },
    );
    let fail = DynamicTool::new("fail", "Fails.", schema, |_: Value, _: ToolContext| async move {
        Err::<String, _>(ToolError::new("it broke"))
    });
    registry.register(echo).unwrap();
    registry.register(fail).unwrap();
    registry
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_call_is_a_row_with_its_event() {
    let Some(server) = postgres::server() else {
        return;
    };
    let url = server.database();
    let audit = PostgresAudit::connect(&url, AuditOptions::default())
        .await
        .unwrap();
    let registry = registry(audit.clone());
    let ok = registry
        .call(
            ToolCall::new(
                "c1",
                "echo",
                json!({"text": "hi", "api_key": "sk-secret-value-1234"}),
            )
            .with_session_id("s1"),
        )
        .await;
    assert!(!ok.is_error());
    let failed = registry.call(ToolCall::new("c2", "fail", json!({}))).await;
    assert!(failed.is_error());
    // U+0000 cannot be in jsonb; it must not cost the row.
    registry
        .call(ToolCall::new("c3", "echo", json!({"text": "a\u{0}b"})))
        .await;

    let db = postgres::client(&url).await;
    let rows = db
        .query(
            "SELECT call_id, tool, outcome, session_id, error, event FROM agent_tools_audit ORDER BY id",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(rows.len(), 3, "the rows are there as soon as the calls returned");
    let (call_id, tool, outcome): (String, String, String) = (rows[0].get(0), rows[0].get(1), rows[0].get(2));
    assert_eq!(
        (call_id.as_str(), tool.as_str(), outcome.as_str()),
        ("c1", "echo", "ok")
    );
    assert_eq!(rows[0].get::<_, Option<String>>(3).as_deref(), Some("s1"));
    let event: String = db
        .query_one(
            "SELECT event::text FROM agent_tools_audit WHERE call_id = 'c1'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert!(event.contains("\"text\": \"hi\""), "{event}");
    assert!(
        !event.contains("sk-secret-value-1234"),
        "redacted as in every audit log: {event}"
    );
    assert_eq!(rows[1].get::<_, String>(2), "error");
    assert!(rows[1].get::<_, Option<String>>(4).unwrap().contains("it broke"));
    assert_eq!(audit.failed_events(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_calls_at_once_are_batched_and_none_is_lost() {
    let Some(server) = postgres::server() else {
        return;
    };
    let url = server.database();
    let audit = PostgresAudit::connect(&url, AuditOptions::default())
        .await
        .unwrap();
    let registry = registry(audit.clone());
    let calls = (0..1000).map(|n| ToolCall::new(format!("c{n}"), "echo", json!({"text": n.to_string()})));
    let results = registry.call_all(calls.collect()).await;
    assert!(results.iter().all(|result| !result.is_error()));
    let db = postgres::client(&url).await;
    let count: i64 = db
        .query_one("SELECT count(DISTINCT call_id) FROM agent_tools_audit", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(count, 1000);
    assert_eq!(audit.failed_events(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_whose_connection_is_killed_reconnects() {
    let Some(server) = postgres::server() else {
        return;
    };
    let url = server.database();
    let audit = PostgresAudit::connect(&url, AuditOptions::default())
        .await
        .unwrap();
    let registry = registry(audit.clone());
    registry
        .call(ToolCall::new("before", "echo", json!({"text": "x"})))
        .await;
    let killed = postgres::terminate_other_connections(&url).await;
    assert_eq!(killed, 1, "the writer's connection");
    for n in 0..5 {
        registry
            .call(ToolCall::new(format!("after{n}"), "echo", json!({"text": "y"})))
            .await;
    }
    let count: i64 = postgres::client(&url)
        .await
        .query_one("SELECT count(*) FROM agent_tools_audit", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        count, 6,
        "the batch that met the dead connection was written on a new one"
    );
    assert_eq!(audit.failed_events(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_database_never_holds_up_a_call() {
    let Some(server) = postgres::server() else {
        return;
    };
    let url = server.database();
    let audit = PostgresAudit::connect(&url, AuditOptions::default())
        .await
        .unwrap();
    let registry = registry(audit.clone());
    // The database goes away under the writer.
    let db = postgres::client(&server.url()).await;
    let name = url.rsplit('/').next().unwrap().to_owned();
    db.execute(&format!("DROP DATABASE \"{name}\" WITH (FORCE)"), &[])
        .await
        .unwrap();
    let result = tokio::time::timeout(
        Duration::from_secs(30),
        registry.call(ToolCall::new("lost", "echo", json!({"text": "z"}))),
    )
    .await
    .expect("the call is not held up by the audit log");
    assert!(!result.is_error(), "an audit write never fails a call");
    assert_eq!(audit.failed_events(), 1, "the lost event is counted");
}

/// Not a test on its own: the child of the next test. Makes one call, and the moment
/// it returns, the process dies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_calls_then_dies() {
    let Ok(url) = std::env::var("AUDIT_CHILD_URL") else {
        return;
    };
    let audit = PostgresAudit::connect(&url, AuditOptions::default())
        .await
        .unwrap();
    let registry = registry(audit);
    let result = registry
        .call(ToolCall::new("last-words", "echo", json!({"text": "bye"})))
        .await;
    assert!(!result.is_error());
    std::process::abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_killed_as_a_call_returns_has_audited_it() {
    let Some(server) = postgres::server() else {
        return;
    };
    let url = server.database();
    // Create the table first, so the child does only the call.
    PostgresAudit::connect(&url, AuditOptions::default())
        .await
        .unwrap();
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["audit::child_calls_then_dies", "--exact", "--nocapture"])
        .env("AUDIT_CHILD_URL", &url)
        .status()
        .unwrap();
    assert!(!status.success(), "the child aborted");
    let db = postgres::client(&url).await;
    let count: i64 = db
        .query_one(
            "SELECT count(*) FROM agent_tools_audit WHERE call_id = 'last-words'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(count, 1, "the call returned only once its row was committed");
}
