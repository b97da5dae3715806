//! MCP's tasks extension (SEP-2663) over real HTTP on 127.0.0.1: a call of a tool that
//! supports tasks, from a client that declares them, is answered at once with a task; the
//! client polls `tasks/get` for its status and inlined result, answers its questions with
//! `tasks/update` (in parts, through any replica) and cancels it with `tasks/cancel`. Two
//! servers over one store stand for two replicas; a server that stops renewing its hold
//! on a task leaves it failed, with why.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agent_tools_core::task::{MemoryTaskStore, TaskCall, TaskOptions, Tasks};
use agent_tools_core::tool::{TaskSupport, ToolMeta};
use agent_tools_core::{ToolContext, ToolError, ToolRegistry, tool::DynamicTool};
use agent_tools_mcp::{HttpServer, McpHandler};
use serde_json::{Value, json};

use crate::request_2026::{Request, call_params};

/// The capabilities of a client that takes tasks and forms.
fn task_client() -> Value {
    json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// Calls `tool` as a client that takes tasks; the JSON-RPC response.
async fn call_as_task_client(server: &HttpServer, tool: &str, arguments: Value) -> Value {
    Request::new("tools/call", call_params(tool, arguments, json!({})))
        .header("mcp-name", tool)
        .meta("io.modelcontextprotocol/clientCapabilities", task_client())
        .send(server)
        .await
        .response
}

/// Sends `tasks/{verb}` for task `id` with `extra` params; the JSON-RPC response.
async fn task_request(server: &HttpServer, verb: &str, id: &str, extra: Value) -> Value {
    let mut params = json!({"taskId": id});
    if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
        params.extend(extra);
    }
    Request::new(&format!("tasks/{verb}"), params)
        .header("mcp-name", id)
        .meta("io.modelcontextprotocol/clientCapabilities", task_client())
        .send(server)
        .await
        .response
}

/// Polls `tasks/get` until the task is in one of `statuses` (for up to ten seconds).
async fn wait_for(server: &HttpServer, id: &str, statuses: &[&str]) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let task = task_request(server, "get", id, json!({})).await;
        let status = task["result"]["status"].as_str().unwrap_or_default();
        if statuses.contains(&status) {
            return task["result"].clone();
        }
        assert!(Instant::now() < deadline, "the task stayed {task}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The id of the task a response created.
fn task_id(created: &Value) -> String {
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no task id: {created}"))
        .to_owned()
}

/// The tools of the tests: a task tool for each ending.
fn registry(cancelled: Arc<AtomicBool>, rounds: Arc<AtomicUsize>) -> ToolRegistry {
    let registry = ToolRegistry::new();
    let object = || json!({"type": "object"});
    let tools = [
        DynamicTool::from_meta(
            ToolMeta::new("compute", "Computes.").task(TaskSupport::Optional),
            object(),
            |_: Value, _: ToolContext| async { Ok::<_, ToolError>("computed") },
        ),
        DynamicTool::from_meta(
            ToolMeta::new("fail", "Fails as a tool fails.").task(TaskSupport::Required),
            object(),
            |_: Value, _: ToolContext| async { Err::<String, _>(ToolError::new("it did not work")) },
        ),
        DynamicTool::from_meta(
            ToolMeta::new("crash", "Panics.").task(TaskSupport::Optional),
            object(),
            |_: Value, _: ToolContext| async {
                if true {
                    panic!("crashed");
                }
                Ok::<_, ToolError>("never")
            },
        ),
        DynamicTool::from_meta(
            ToolMeta::new("wait", "Waits until cancelled.").task(TaskSupport::Optional),
            object(),
            move |_: Value, ctx: ToolContext| {
                let cancelled = cancelled.clone();
                async move {
                    ctx.cancelled().await;
                    cancelled.store(true, Ordering::SeqCst);
                    Err::<String, _>(ToolError::cancelled())
                }
            },
        ),
        DynamicTool::from_meta(
            ToolMeta::new("ask_two", "Asks two questions at once.").task(TaskSupport::Optional),
            object(),
            move |_: Value, ctx: ToolContext| {
                let rounds = rounds.clone();
                async move {
                    rounds.fetch_add(1, Ordering::SeqCst);
                    let (first, second) = tokio::try_join!(ask(&ctx, "first"), ask(&ctx, "second"))?;
                    Ok::<_, ToolError>(format!("{first} and {second}"))
                }
            },
        ),
    ];
    for tool in tools {
        registry.register(tool).expect("registers");
    }
    registry
}

/// Asks the form question `key` for a name.
async fn ask(ctx: &ToolContext, key: &str) -> Result<String, ToolError> {
    use agent_tools_core::caller::{ElicitRequest, InputRequest, InputResponse};
    let form = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    let question = InputRequest::Elicit(ElicitRequest::form(format!("{key}?"), form));
    match ctx.ask(key, question).await? {
        InputResponse::Elicit(answer) => Ok(answer
            .content
            .and_then(|content| content.get("name").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default()),
        _ => Err(ToolError::new("another kind of answer")),
    }
}

struct Fixture {
    server: HttpServer,
    cancelled: Arc<AtomicBool>,
    rounds: Arc<AtomicUsize>,
}

async fn serve(tasks: Tasks) -> Fixture {
    let cancelled = Arc::new(AtomicBool::new(false));
    let rounds = Arc::new(AtomicUsize::new(0));
    let server = McpHandler::new(registry(cancelled.clone(), rounds.clone()))
        .tasks(tasks)
        .serve_http("127.0.0.1:0")
        .await
        .expect("serves");
    Fixture {
        server,
        cancelled,
        rounds,
    }
}

#[tokio::test]
async fn a_task_is_polled_to_its_result_a_tools_error_or_a_failure() {
    let fixture = serve(Tasks::new(MemoryTaskStore::new())).await;
    let server = &fixture.server;
    let created = call_as_task_client(server, "compute", json!({})).await;
    let id = task_id(&created);
    assert!(
        created["result"]["ttlMs"].as_u64().is_some_and(|ttl| ttl > 0),
        "{created}"
    );
    assert!(created["result"].get("requestState").is_none(), "{created}");
    let done = wait_for(server, &id, &["completed"]).await;
    assert_eq!(done["result"]["content"][0]["text"], "computed", "{done}");

    let failed_tool = task_id(&call_as_task_client(server, "fail", json!({})).await);
    let done = wait_for(server, &failed_tool, &["completed", "failed"]).await;
    assert_eq!(
        done["status"], "completed",
        "a tool's error completes the task: {done}"
    );
    assert_eq!(done["result"]["isError"], true, "{done}");

    let crashed = task_id(&call_as_task_client(server, "crash", json!({})).await);
    let done = wait_for(server, &crashed, &["completed", "failed"]).await;
    assert_eq!(done["status"], "failed", "a panic fails the task: {done}");
    assert_eq!(done["error"]["code"], -32603, "{done}");
    assert!(done.get("result").is_none(), "{done}");
}

#[tokio::test]
async fn without_the_tasks_extension_a_call_runs_in_its_request_or_is_refused() {
    let fixture = serve(Tasks::new(MemoryTaskStore::new())).await;
    let server = &fixture.server;
    let plain = Request::new("tools/call", call_params("compute", json!({}), json!({})))
        .header("mcp-name", "compute")
        .send(server)
        .await;
    assert_eq!(
        plain.response["result"]["content"][0]["text"], "computed",
        "{}",
        plain.response
    );
    let refused = Request::new("tools/call", call_params("fail", json!({}), json!({})))
        .header("mcp-name", "fail")
        .send(server)
        .await;
    assert_eq!(refused.response["error"]["code"], -32021, "{}", refused.response);
    let required = &refused.response["error"]["data"]["requiredCapabilities"];
    assert!(
        required["extensions"]["io.modelcontextprotocol/tasks"].is_object(),
        "{}",
        refused.response
    );
    // Nor can such a client read tasks.
    let read = Request::new("tasks/get", json!({"taskId": "x"}))
        .header("mcp-name", "x")
        .send(server)
        .await;
    assert_eq!(read.response["error"]["code"], -32021, "{}", read.response);
}

#[tokio::test]
async fn a_task_waits_for_answers_given_in_parts_and_then_finishes() {
    let fixture = serve(Tasks::new(MemoryTaskStore::new())).await;
    let server = &fixture.server;
    let id = task_id(&call_as_task_client(server, "ask_two", json!({})).await);
    let waiting = wait_for(server, &id, &["input_required"]).await;
    let keys: Vec<&String> = waiting["inputRequests"]
        .as_object()
        .map(|map| map.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["first", "second"], "{waiting}");
    assert_eq!(waiting["inputRequests"]["first"]["method"], "elicitation/create");

    let answer = |name: &str| json!({"action": "accept", "content": {"name": name}});
    let ack = task_request(
        server,
        "update",
        &id,
        json!({"inputResponses": {"first": answer("Ann")}}),
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(
        ack["result"].get("status").is_none(),
        "an ack carries no task: {ack}"
    );
    let still = task_request(server, "get", &id, json!({})).await;
    assert_eq!(still["result"]["status"], "input_required", "{still}");
    assert!(still["result"]["inputRequests"].get("first").is_none(), "{still}");
    assert!(still["result"]["inputRequests"]["second"].is_object(), "{still}");

    task_request(
        server,
        "update",
        &id,
        json!({"inputResponses": {"second": answer("Bob")}}),
    )
    .await;
    let done = wait_for(server, &id, &["completed"]).await;
    assert_eq!(done["result"]["content"][0]["text"], "Ann and Bob", "{done}");
    assert_eq!(
        fixture.rounds.load(Ordering::SeqCst),
        2,
        "one round to ask, one to finish"
    );
}

#[tokio::test]
async fn a_cancelled_task_stops_its_tool_and_stays_cancelled() {
    let fixture = serve(Tasks::new(MemoryTaskStore::new())).await;
    let server = &fixture.server;
    let id = task_id(&call_as_task_client(server, "wait", json!({})).await);
    let ack = task_request(server, "cancel", &id, json!({})).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let cancelled = wait_for(server, &id, &["cancelled"]).await;
    assert!(cancelled.get("result").is_none(), "{cancelled}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !fixture.cancelled.load(Ordering::SeqCst) {
        assert!(Instant::now() < deadline, "the tool was not cancelled");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Cancelling again is an ack; the task stays cancelled. An unknown id is an error.
    let again = task_request(server, "cancel", &id, json!({})).await;
    assert_eq!(again["result"]["resultType"], "complete", "{again}");
    wait_for(server, &id, &["cancelled"]).await;
    let unknown = task_request(server, "get", "no-such-task", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

/// Two servers over one store are two replicas: a task made through one is answered
/// through the other, whose answer runs the next round there, and read through both.
#[tokio::test]
async fn a_task_created_through_one_replica_is_answered_and_read_through_another() {
    let tasks = Tasks::new(MemoryTaskStore::new());
    let one = serve(tasks.clone()).await;
    let other = serve(tasks).await;
    let id = task_id(&call_as_task_client(&one.server, "ask_two", json!({})).await);
    wait_for(&other.server, &id, &["input_required"]).await;
    let answers = json!({
        "first": {"action": "accept", "content": {"name": "Ann"}},
        "second": {"action": "accept", "content": {"name": "Bob"}},
    });
    task_request(&other.server, "update", &id, json!({"inputResponses": answers})).await;
    let done = wait_for(&one.server, &id, &["completed"]).await;
    assert_eq!(done["result"]["content"][0]["text"], "Ann and Bob", "{done}");
    assert_eq!(
        one.rounds.load(Ordering::SeqCst),
        1,
        "the first round ran where it was made"
    );
    assert_eq!(
        other.rounds.load(Ordering::SeqCst),
        1,
        "the last where it was answered"
    );
}

/// A server that holds a task and stops renewing its lease (as a killed replica does)
/// leaves the task failed, with why, once the lease ends: never working forever.
#[tokio::test]
async fn a_task_whose_server_stopped_renewing_is_failed_with_why() {
    let tasks = Tasks::new(MemoryTaskStore::new())
        .with_options(TaskOptions::default().lease(Duration::from_millis(200)));
    let fixture = serve(tasks.clone()).await;
    let orphan = tasks
        .create(
            TaskCall::new("compute", json!({})),
            Value::Null,
            "a-replica-that-died",
        )
        .await
        .expect("created");
    let failed = wait_for(&fixture.server, &orphan.id, &["failed"]).await;
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("stopped before it finished"), "{failed}");
}

/// A policy that asks before `publish` runs, with an approver that defers every question
/// (no person is at hand when the call is made): in a task, the question waits with the
/// call, in `input_required`, even for a client that cannot put forms to its user, and a
/// person answers it later from elsewhere through the same store (as `agent-tools
/// approvals allow|deny ID` does). The answer, and who gave it, is in the audit log; a
/// denial reaches the model with its reason.
#[tokio::test]
async fn a_deferred_approval_waits_in_the_task_until_a_person_answers_from_elsewhere() {
    use agent_tools_core::approval::{APPROVAL_QUESTION, ApproveLater};
    use agent_tools_core::audit::{MemoryAudit, Outcome};

    let policy = agent_tools_core::policy::Policy::builder()
        .ask("publish")
        .build()
        .expect("a policy");
    let audit = MemoryAudit::new();
    let registry = ToolRegistry::builder()
        .policy(policy)
        .approver(ApproveLater)
        .audit(audit.clone())
        .task_support(TaskSupport::Optional)
        .build();
    let publish = DynamicTool::new(
        "publish",
        "Publish.",
        json!({"type": "object"}),
        |_: Value, _: ToolContext| async { Ok::<_, ToolError>("published") },
    );
    registry.register(publish).expect("registers");
    let tasks = Tasks::new(MemoryTaskStore::new());
    let server = McpHandler::new(registry)
        .tasks(tasks.clone())
        .serve_http("127.0.0.1:0")
        .await
        .expect("serves");
    let without_forms = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    for (decision, by, expected) in [("allow_once", "alice", "published"), ("deny", "bob", "not today")] {
        let created = Request::new("tools/call", call_params("publish", json!({}), json!({})))
            .header("mcp-name", "publish")
            .meta(
                "io.modelcontextprotocol/clientCapabilities",
                without_forms.clone(),
            )
            .send(&server)
            .await
            .response;
        let id = task_id(&created);
        let waiting = wait_for(&server, &id, &["input_required"]).await;
        assert_eq!(
            waiting["inputRequests"][APPROVAL_QUESTION]["method"], "elicitation/create",
            "{waiting}"
        );
        // Elsewhere: another program with the store, not the client.
        let answer = json!({"action": "accept", "content": {"decision": decision, "reason": "not today"}});
        let answers = std::collections::BTreeMap::from([(APPROVAL_QUESTION.to_owned(), answer)]);
        tasks.answer(&id, answers, Some(by)).await.expect("answered");
        let done = wait_for(&server, &id, &["completed"]).await;
        let text = done["result"]["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains(expected), "{decision}: {done}");
        let event = audit
            .events()
            .into_iter()
            .rev()
            .find(|event| event.tool == "publish" && event.approval.is_some())
            .expect("the decided call is audited");
        let approval = event.approval.expect("with its approval");
        assert_eq!(
            (approval.decision.as_str(), approval.by.as_deref()),
            (decision, Some(by))
        );
    }
    // The rounds that ended at the question are in the log as pending on it, not as
    // cancelled calls.
    let outcomes: Vec<(Outcome, Option<String>)> = audit
        .events()
        .into_iter()
        .filter(|event| event.tool == "publish")
        .map(|event| (event.outcome, event.error))
        .collect();
    let waiting = (
        Outcome::Pending,
        Some(format!("waiting for answers to: {APPROVAL_QUESTION}")),
    );
    assert_eq!(
        outcomes.iter().filter(|outcome| **outcome == waiting).count(),
        2,
        "{outcomes:?}"
    );
    assert!(
        !outcomes.iter().any(|(outcome, _)| *outcome == Outcome::Cancelled),
        "{outcomes:?}"
    );
}

/// A tool that starts its task itself gathers what it needs within its request (an
/// input-required round trip, no task yet) and becomes a task where it says so; the
/// task's result has the answer given before it existed.
#[tokio::test]
async fn a_tool_that_starts_its_task_itself_asks_first_then_becomes_a_task() {
    let meta = ToolMeta::new("greet_later", "Asks a name, then greets as a task.")
        .task(TaskSupport::Required)
        .explicit_task_start(true);
    let greet = DynamicTool::from_meta(
        meta,
        json!({"type": "object"}),
        |_: Value, ctx: ToolContext| async move {
            let name = ask(&ctx, "user_name").await?;
            ctx.start_task().await?;
            Ok::<_, ToolError>(format!("Hello, {name}!"))
        },
    );
    let registry = ToolRegistry::new();
    registry.register(greet).expect("registers");
    let server = McpHandler::new(registry)
        .serve_http("127.0.0.1:0")
        .await
        .expect("serves");
    let first = call_as_task_client(&server, "greet_later", json!({})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert!(first["result"].get("taskId").is_none(), "{first}");
    let answers = json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}});
    let retry = json!({"inputResponses": answers, "requestState": first["result"]["requestState"]});
    let second = Request::new("tools/call", call_params("greet_later", json!({}), retry))
        .header("mcp-name", "greet_later")
        .meta("io.modelcontextprotocol/clientCapabilities", task_client())
        .send(&server)
        .await
        .response;
    let id = task_id(&second);
    assert!(second["result"].get("requestState").is_none(), "{second}");
    let done = wait_for(&server, &id, &["completed"]).await;
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Alice!", "{done}");
}
