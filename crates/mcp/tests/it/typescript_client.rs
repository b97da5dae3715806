//! The official TypeScript MCP SDK v2 against our HTTP server, as an outside client:
//! `@modelcontextprotocol/client` 2.3.1 pinned to protocol 2026-07-28, with
//! `@modelcontextprotocol/ext-tasks` 0.2.2 for the tasks extension (SEP-2663), run by
//! Node on `typescript_client.mjs` (kept beside this file). Over 127.0.0.1, the script:
//!
//! 1. lists the tools and calls a plain one, and one whose structured output is a list
//!    (which 2026-07-28 allows, and the SDK checks against the output schema);
//! 2. calls a tool that asks a form question, which ends its request with an
//!    input-required result (SEP-2322) that the SDK's own driver answers through its
//!    elicitation handler and retries; and calls a task tool without declaring the
//!    extension, which runs in its request;
//! 3. with ext-tasks, calls a task tool and follows the task to its result, and a task
//!    tool that asks inside the task (ext-tasks' input routing answers with
//!    `tasks/update`; ext-tasks also answers an input-required result outside a task),
//!    and a task whose tool panics, to its failure;
//! 4. cancels a long task once its tool runs, and sees it cancelled; the tool here sees
//!    its cancellation.
//!
//! Once against a server with sessions, once against a stateless one. The script prints
//! a JSON line per step, asserted on here. Needs `scripts/npm-tools`
//! (Node 22 and the two packages); without them the test says what is missing and is
//! skipped (a failure under CI).

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agent_tools_core::caller::{ElicitRequest, InputRequest, InputResponse};
use agent_tools_core::task::{MemoryTaskStore, TaskOptions, Tasks};
use agent_tools_core::tool::{DynamicTool, TaskSupport, ToolMeta};
use agent_tools_core::{ToolContext, ToolError, ToolOutput, ToolRegistry};
use agent_tools_mcp::{HttpOptions, McpHandler};
use serde_json::{Value, json};
use test_support::outside_clients;
use tokio::sync::Notify;

/// Bounds the script's run: a few calls and tasks, each polled at 50 ms.
const SCRIPT_DEADLINE: Duration = Duration::from_secs(60);

/// Bounds a wait for something the script's calls make happen (a tool starting, its
/// cancellation reaching it).
const SIGNAL_DEADLINE: Duration = Duration::from_secs(10);

/// What the tools tell the test: how often the asking tools ran (each round of questions
/// is a run from the start), and that the long task's tool runs and saw its cancellation
/// (`Notify::notify_one` keeps the signal for a waiter that comes later).
#[derive(Default)]
struct Signals {
    confirm_runs: AtomicUsize,
    ask_task_runs: AtomicUsize,
    started: Notify,
    cancelled: Notify,
}

/// Asks the form question `key` for a name; the name, or why there is none.
async fn ask_name(ctx: &ToolContext, key: &str, message: &str) -> Result<String, ToolError> {
    let form = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    let question = InputRequest::Elicit(ElicitRequest::form(message, form));
    match ctx.ask(key, question).await? {
        InputResponse::Elicit(answer) => answer
            .content
            .and_then(|content| content.get("name").and_then(Value::as_str).map(str::to_owned))
            .ok_or_else(|| ToolError::new(format!("no name in the answer ({:?})", answer.action))),
        _ => Err(ToolError::new("another kind of answer")),
    }
}

fn registry(signals: &Arc<Signals>) -> ToolRegistry {
    let registry = ToolRegistry::new();
    let object = || json!({"type": "object", "properties": {}});
    let confirm_signals = signals.clone();
    let ask_task_signals = signals.clone();
    let long_signals = signals.clone();
    let started_signals = signals.clone();
    let tools = [
        DynamicTool::from_meta(
            ToolMeta::new("echo", "Echoes its text."),
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
            |arguments: Value, _: ToolContext| async move {
                Ok::<_, ToolError>(format!(
                    "echo: {}",
                    arguments["text"].as_str().unwrap_or_default()
                ))
            },
        ),
        DynamicTool::from_meta(
            ToolMeta::new("primes", "Lists primes."),
            object(),
            |_: Value, _: ToolContext| async {
                Ok::<_, ToolError>(ToolOutput::text("[2,3,5]").with_structured(json!([2, 3, 5])))
            },
        )
        .output_schema(json!({"type": "array", "items": {"type": "integer"}})),
        DynamicTool::from_meta(
            ToolMeta::new("confirm", "Asks who confirms."),
            object(),
            move |_: Value, ctx: ToolContext| {
                let signals = confirm_signals.clone();
                async move {
                    signals.confirm_runs.fetch_add(1, Ordering::SeqCst);
                    let name = ask_name(&ctx, "confirm", "Who confirms?").await?;
                    Ok::<_, ToolError>(format!("confirmed by {name}"))
                }
            },
        ),
        DynamicTool::from_meta(
            ToolMeta::new("slow_task", "Works a moment.").task(TaskSupport::Optional),
            object(),
            |_: Value, _: ToolContext| async {
                // A moment's work, so that the task is still running when its creation
                // is answered and the client has something to follow.
                tokio::time::sleep(Duration::from_millis(150)).await;
                Ok::<_, ToolError>("slept")
            },
        ),
        DynamicTool::from_meta(
            ToolMeta::new("ask_task", "Asks a question inside its task.").task(TaskSupport::Optional),
            object(),
            move |_: Value, ctx: ToolContext| {
                let signals = ask_task_signals.clone();
                async move {
                    signals.ask_task_runs.fetch_add(1, Ordering::SeqCst);
                    let name = ask_name(&ctx, "who", "Who answers the task?").await?;
                    Ok::<_, ToolError>(format!("task answered by {name}"))
                }
            },
        ),
        DynamicTool::from_meta(
            ToolMeta::new("crash_task", "Panics.").task(TaskSupport::Optional),
            object(),
            |_: Value, _: ToolContext| async {
                if true {
                    panic!("crashed on purpose");
                }
                Ok::<_, ToolError>("never")
            },
        ),
        DynamicTool::from_meta(
            ToolMeta::new("long_task", "Runs until cancelled.").task(TaskSupport::Optional),
            object(),
            move |_: Value, ctx: ToolContext| {
                let signals = long_signals.clone();
                async move {
                    signals.started.notify_one();
                    ctx.cancelled().await;
                    signals.cancelled.notify_one();
                    Err::<String, _>(ToolError::cancelled())
                }
            },
        ),
        DynamicTool::from_meta(
            ToolMeta::new("await_started", "Returns once long_task's tool runs."),
            object(),
            move |_: Value, _: ToolContext| {
                let signals = started_signals.clone();
                async move {
                    tokio::time::timeout(SIGNAL_DEADLINE, signals.started.notified())
                        .await
                        .map_err(|_| ToolError::new("long_task's tool did not start"))?;
                    Ok::<_, ToolError>("started")
                }
            },
        ),
    ];
    for tool in tools {
        registry.register(tool).expect("registers");
    }
    registry
}

/// Runs the script against `url`; its report, one JSON object per step, by step.
async fn run_script(url: &str) -> serde_json::Map<String, Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/typescript_client.mjs");
    let child = tokio::process::Command::new(outside_clients::node())
        .arg(script)
        .env("MCP_URL", url)
        .env("MCP_NODE_MODULES", outside_clients::npm_modules())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    let output = tokio::time::timeout(SCRIPT_DEADLINE, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("the TypeScript client did not finish within {SCRIPT_DEADLINE:?}"))
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the TypeScript client failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let mut steps = serde_json::Map::new();
    for line in stdout.lines() {
        let step: Value = serde_json::from_str(line)
            .unwrap_or_else(|error| panic!("not a JSON line ({error}): {line}\n{stdout}\n{stderr}"));
        let name = step["step"]
            .as_str()
            .expect("each line names its step")
            .to_owned();
        steps.insert(name, step);
    }
    steps
}

#[tokio::test]
async fn the_typescript_sdk_calls_asks_and_follows_and_cancels_tasks() {
    if outside_clients::installed_typescript_client() {
        check_the_script(HttpOptions::new()).await;
    }
}

/// The same on a stateless server (a handler per request, as replicas behind one address
/// serve), which 2026-07-28 clients need no session of: questions travel in the sealed
/// requestState, tasks in the store.
#[tokio::test]
async fn the_typescript_sdk_does_the_same_on_a_stateless_server() {
    if outside_clients::installed_typescript_client() {
        check_the_script(HttpOptions::new().stateless()).await;
    }
}

/// Serves the tools as `options` say, runs the script against them and checks its report.
async fn check_the_script(options: HttpOptions) {
    let signals = Arc::new(Signals::default());
    let tasks = Tasks::new(MemoryTaskStore::new())
        .with_options(TaskOptions::default().poll_interval(Duration::from_millis(50)));
    let server = McpHandler::new(registry(&signals))
        .tasks(tasks)
        .serve_http_with("127.0.0.1:0", options)
        .await
        .expect("serves");

    let steps = run_script(&server.url()).await;
    let step = |name: &str| -> &Value {
        steps
            .get(name)
            .unwrap_or_else(|| panic!("the script reported no step {name}: {steps:?}"))
    };

    let connected = step("connected");
    assert_eq!(connected["era"], "modern", "{connected}");
    assert_eq!(connected["protocolVersion"], "2026-07-28", "{connected}");
    assert_eq!(
        connected["extensions"]["io.modelcontextprotocol/tasks"],
        json!({}),
        "the server declares the tasks extension: {connected}"
    );

    let listed = &step("listed")["tools"];
    let mut names: Vec<&str> = listed
        .as_object()
        .expect("tools by name")
        .keys()
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "ask_task",
            "await_started",
            "confirm",
            "crash_task",
            "echo",
            "long_task",
            "primes",
            "slow_task"
        ],
        "every tool is listed: {listed}"
    );
    assert_eq!(listed["primes"]["outputType"], "array", "{listed}");

    let structured = step("structured");
    assert_eq!(structured["structured"], json!([2, 3, 5]), "{structured}");
    assert_eq!(structured["isError"], false, "{structured}");

    let plain = step("plain");
    assert_eq!(plain["text"], "echo: hello", "{plain}");
    assert_eq!(plain["isError"], false, "{plain}");

    let asked = step("asked");
    assert_eq!(asked["text"], "confirmed by Ada", "{asked}");
    assert_eq!(
        asked["questions"],
        json!(["Who confirms?"]),
        "the SDK's handler was asked once: {asked}"
    );

    let inline = step("task_tool_without_extension");
    assert_eq!(inline["text"], "slept", "{inline}");

    assert!(
        !steps.contains_key("session_error"),
        "ext-tasks reported an error: {steps:?}"
    );
    let session = step("session");
    assert_eq!(session["capabilities"]["execution"], true, "{session}");
    assert_eq!(session["capabilities"]["cancellation"], true, "{session}");
    assert_eq!(session["capabilities"]["inputResponses"], true, "{session}");

    let via_session = step("asked_through_session");
    assert_eq!(via_session["kind"], "immediate", "{via_session}");
    assert_eq!(via_session["text"], "confirmed by Grace", "{via_session}");
    assert_eq!(
        via_session["questions"][0]["message"], "Who confirms?",
        "{via_session}"
    );
    assert_eq!(
        via_session["questions"][0]["delivery"], "request-retry",
        "{via_session}"
    );
    assert_eq!(
        signals.confirm_runs.load(Ordering::SeqCst),
        4,
        "each client's call ran twice: to its question, then with the answer"
    );

    let task = step("task");
    assert_eq!(task["kind"], "task", "{task}");
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["text"], "slept", "{task}");

    let task_asked = step("task_asked");
    assert_eq!(task_asked["kind"], "task", "{task_asked}");
    assert_eq!(task_asked["status"], "completed", "{task_asked}");
    assert_eq!(task_asked["text"], "task answered by Grace", "{task_asked}");
    let questions = task_asked["questions"].as_array().expect("a list");
    assert_eq!(questions.len(), 1, "{task_asked}");
    assert_eq!(questions[0]["message"], "Who answers the task?", "{task_asked}");
    assert_eq!(questions[0]["delivery"], "task-update", "{task_asked}");
    assert_eq!(questions[0]["inputId"], "who", "{task_asked}");
    assert_eq!(questions[0]["taskId"], task_asked["taskId"], "{task_asked}");
    assert!(
        task_asked["statuses"]
            .as_array()
            .is_some_and(|statuses| statuses.contains(&json!("input_required"))),
        "the task was seen waiting for its answer: {task_asked}"
    );

    assert_eq!(
        signals.ask_task_runs.load(Ordering::SeqCst),
        2,
        "the task ran a round to its question and one with the answer"
    );

    let failed = step("task_failed");
    assert_eq!(failed["kind"], "task", "{failed}");
    assert_eq!(failed["status"], "failed", "a panic fails the task: {failed}");
    assert_eq!(failed["code"], -32603, "{failed}");

    let cancelled = step("cancelled");
    assert_eq!(cancelled["kind"], "task", "{cancelled}");
    assert_eq!(cancelled["started"], "started", "{cancelled}");
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["serverStatus"], "cancelled", "{cancelled}");
    tokio::time::timeout(SIGNAL_DEADLINE, signals.cancelled.notified())
        .await
        .expect("the long task's tool saw its cancellation");

    step("done");
}
