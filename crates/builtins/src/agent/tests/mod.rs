//! Sub-agents: the manager's limits with scripted runners, and the OpenAI-compatible
//! loop against a local server that plays the model.

mod limits;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tools_core::{
    ToolRegistry,
    tool::{BoxFuture, DynamicTool},
};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::*;

/// A runner that waits until `gate` is cancelled (or its own token), counting how many
/// run at once.
fn gated_runner(
    gate: CancellationToken,
    active: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
) -> impl AgentRunner {
    move |task: String,
          _tools: ToolRegistry,
          cancel: CancellationToken|
          -> BoxFuture<'static, Result<String, crate::BoxError>> {
        let (gate, active, most) = (gate.clone(), active.clone(), most.clone());
        Box::pin(async move {
            let now = active.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            tokio::select! {
                () = gate.cancelled() => {}
                () = cancel.cancelled() => {}
            }
            active.fetch_sub(1, Ordering::SeqCst);
            Ok(format!("did {task}"))
        })
    }
}

async fn poll_until(mut done: impl FnMut() -> bool) {
    for _ in 0..500 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the condition never held");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sub_agents_respect_the_concurrency_limit_and_report_completion() {
    let (gate, active, most) = (
        CancellationToken::new(),
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicUsize::new(0)),
    );
    let finished = Arc::new(Mutex::new(Vec::new()));
    let seen = finished.clone();
    let manager = LocalSubagents::builder(
        gated_runner(gate.clone(), active.clone(), most.clone()),
        ToolRegistry::new(),
    )
    .max_concurrent(2)
    .on_complete(move |info| seen.lock().unwrap().push(info))
    .build();
    let ids: Vec<String> = (0..5)
        .map(|n| manager.spawn(SpawnRequest::new(format!("task {n}"))).unwrap().id)
        .collect();
    poll_until(|| active.load(Ordering::SeqCst) == 2).await;
    assert_eq!(manager.list().len(), 5);
    gate.cancel();
    for id in &ids {
        assert!(matches!(
            manager.wait(id).await,
            Some(SubagentStatus::Completed(_))
        ));
    }
    assert_eq!(most.load(Ordering::SeqCst), 2, "never more than two at once");
    poll_until(|| finished.lock().unwrap().len() == 5).await;
    assert_eq!(
        manager.status(&ids[0]),
        Some(SubagentStatus::Completed("did task 0".into()))
    );
    assert_eq!(manager.list()[0].label, "task 0");
}

#[tokio::test]
async fn timeouts_and_cancellation_stop_sub_agents() {
    let runner = gated_runner(CancellationToken::new(), Arc::default(), Arc::default());
    let manager = LocalSubagents::builder(runner, ToolRegistry::new())
        .timeout(Duration::from_millis(50))
        .build();
    let slow = manager
        .spawn(SpawnRequest::new("wait forever").label("slow"))
        .unwrap();
    assert_eq!(
        manager.wait(&slow.id).await,
        Some(SubagentStatus::Failed("timed out after 50ms".into()))
    );

    let runner = gated_runner(CancellationToken::new(), Arc::default(), Arc::default());
    let manager = LocalSubagents::new(runner, ToolRegistry::new());
    let stuck = manager.spawn(SpawnRequest::new("wait")).unwrap();
    assert!(manager.cancel(&stuck.id));
    assert_eq!(manager.wait(&stuck.id).await, Some(SubagentStatus::Cancelled));
    assert!(!manager.cancel(&stuck.id), "already finished");
    assert!(!manager.cancel("agent-99"));
    assert_eq!(manager.status("nonsense"), None);
}

#[tokio::test]
async fn sub_agents_get_every_tool_but_spawn() {
    let registry = ToolRegistry::new();
    for name in ["spawn", "read_file"] {
        let schema = json!({"type": "object", "properties": {}});
        registry
            .register(DynamicTool::new(name, "A tool.", schema, |_, _| async {
                Ok("x")
            }))
            .unwrap();
    }
    let runner = |_task: String,
                  tools: ToolRegistry,
                  _cancel: CancellationToken|
     -> BoxFuture<'static, Result<String, crate::BoxError>> {
        Box::pin(async move { Ok(tools.names().join(",")) })
    };
    let manager = LocalSubagents::new(runner, registry);
    let info = manager.spawn(SpawnRequest::new("look")).unwrap();
    assert_eq!(
        manager.wait(&info.id).await,
        Some(SubagentStatus::Completed("read_file".into()))
    );
}

#[tokio::test]
async fn the_spawn_tool_returns_at_once() {
    let runner = gated_runner(CancellationToken::new(), Arc::default(), Arc::default());
    let manager = LocalSubagents::new(runner, ToolRegistry::new());
    let args = SpawnArgs {
        task: "Summarize the README and list the open questions in it.".into(),
        label: None,
    };
    assert_eq!(
        spawn(&manager, None, args).unwrap(),
        "Started sub-agent agent-1 (Summarize the README and list the…). It works in the background; its result will be delivered when it finishes."
    );
    let empty = SpawnArgs {
        task: " ".into(),
        label: None,
    };
    assert!(
        spawn(&manager, None, empty)
            .unwrap_err()
            .to_string()
            .contains("`task` is empty")
    );
}

/// What the scripted model saw and what it answers next.
#[derive(Default)]
struct Script {
    requests: Mutex<Vec<(Value, Option<String>)>>,
    answers: Mutex<Vec<Value>>,
}

async fn chat(State(script): State<Arc<Script>>, headers: HeaderMap, body: String) -> String {
    let request: Value = serde_json::from_str(&body).unwrap();
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    script.requests.lock().unwrap().push((request, auth));
    let mut answers = script.answers.lock().unwrap();
    let message = if answers.len() > 1 {
        answers.remove(0)
    } else {
        answers[0].clone()
    };
    json!({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}).to_string()
}

async fn model_server(answers: Vec<Value>) -> (String, Arc<Script>) {
    let script = Arc::new(Script {
        answers: Mutex::new(answers),
        ..Script::default()
    });
    let app = axum::Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}/v1"), script)
}

fn calculator() -> ToolRegistry {
    let registry = ToolRegistry::new();
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]});
    let add = DynamicTool::new("add", "Add two integers.", schema, |args: Value, _| async move {
        Ok((args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0)).to_string())
    });
    registry.register(add).unwrap();
    registry
}

fn tool_call(id: &str, a: i64, b: i64) -> Value {
    json!({"id": id, "type": "function", "function": {"name": "add", "arguments": json!({"a": a, "b": b}).to_string()}})
}

#[tokio::test]
async fn the_openai_loop_runs_tool_calls_in_parallel_until_an_answer() {
    let (url, script) = model_server(vec![
        json!({"role": "assistant", "content": null, "tool_calls": [tool_call("call_1", 2, 3), tool_call("call_2", 10, 20)]}),
        json!({"role": "assistant", "content": "2+3=5 and 10+20=30"}),
    ])
    .await;
    let runner = OpenAiCompatibleRunner::new(url, "test-model")
        .unwrap()
        .api_key("sk-test");
    let answer = runner
        .run("Add things.".into(), calculator(), CancellationToken::new())
        .await;
    assert_eq!(answer.unwrap(), "2+3=5 and 10+20=30");
    let requests = script.requests.lock().unwrap();
    assert_eq!(requests.len(), 2);
    let (first, auth) = &requests[0];
    assert_eq!(auth.as_deref(), Some("Bearer sk-test"));
    assert_eq!(first["model"], "test-model");
    assert_eq!(first["tools"][0]["function"]["name"], "add");
    let messages = requests[1].0["messages"].as_array().unwrap();
    let results: Vec<(&str, &str)> = messages
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| {
            (
                message["tool_call_id"].as_str().unwrap(),
                message["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(results, [("call_1", "5"), ("call_2", "30")]);
}

#[tokio::test]
async fn the_openai_loop_stops_at_max_iterations_and_reports_errors() {
    let (url, _) = model_server(vec![
        json!({"role": "assistant", "tool_calls": [tool_call("c", 1, 1)]}),
    ])
    .await;
    let runner = OpenAiCompatibleRunner::new(url, "m").unwrap().max_iterations(3);
    let error = runner
        .run("loop".into(), calculator(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "stopped after 3 model turns without a final answer (max_iterations)"
    );

    let runner = OpenAiCompatibleRunner::new("http://127.0.0.1:9/v1", "m").unwrap();
    let error = runner
        .run("x".into(), calculator(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        error.to_string().starts_with("the model request failed"),
        "{error}"
    );
}

#[tokio::test]
async fn the_openai_loop_loads_what_a_tool_search_found() {
    let search = json!({"id": "s1", "type": "function", "function": {"name": "tool_search", "arguments": r#"{"query": "add integers"}"#}});
    let (url, script) = model_server(vec![
        json!({"role": "assistant", "content": null, "tool_calls": [search]}),
        json!({"role": "assistant", "content": null, "tool_calls": [tool_call("call_1", 2, 3)]}),
        json!({"role": "assistant", "content": "5"}),
    ])
    .await;
    let registry = ToolRegistry::builder().defer_all().build();
    registry.merge(&calculator()).unwrap();
    let runner = OpenAiCompatibleRunner::new(url, "m").unwrap();
    let answer = runner
        .run("Add 2 and 3.".into(), registry, CancellationToken::new())
        .await;
    assert_eq!(answer.unwrap(), "5");
    let requests = script.requests.lock().unwrap();
    let offered = |turn: usize| -> Vec<String> {
        requests[turn].0["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["function"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(offered(0), ["tool_search"]);
    assert_eq!(offered(1), ["tool_search", "add"]);
    assert_eq!(offered(2), ["tool_search", "add"]);
    let messages = requests[1].0["messages"].as_array().unwrap();
    let found = messages
        .iter()
        .find(|message| message["tool_call_id"] == "s1")
        .unwrap();
    assert!(
        found["content"]
            .as_str()
            .unwrap()
            .starts_with("add — Add two integers."),
        "{found}"
    );
    let messages = requests[2].0["messages"].as_array().unwrap();
    let sum = messages
        .iter()
        .find(|message| message["tool_call_id"] == "call_1")
        .unwrap();
    assert_eq!(sum["content"], "5");
}
