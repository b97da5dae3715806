//! The caller as tools see it through a registry: the registry's caller, a call's own,
//! none at all, and a call that ends while it waits for an answer.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::*;
use crate::{
    audit::Outcome,
    context::ToolContext,
    dynamic::DynamicTool,
    error::ToolError,
    registry::{ToolCall, ToolRegistry},
};

/// Answers every form with `{"name": "Ada"}`, every sampling request with the last
/// message's text reversed, and keeps the log.
#[derive(Default)]
struct Scripted {
    log: Mutex<Vec<LogMessage>>,
}

impl Caller for Scripted {
    fn log(&self, message: LogMessage) {
        self.log.lock().unwrap().push(message);
    }

    fn elicit(&self, request: ElicitRequest) -> BoxFuture<'_, Result<ElicitResponse, CallerError>> {
        Box::pin(async move {
            match request {
                ElicitRequest::Form { .. } => {
                    let content = json!({"name": "Ada"}).as_object().cloned().unwrap();
                    Ok(ElicitResponse::accept(content))
                }
                _ => Ok(ElicitResponse::new(ElicitAction::Decline)),
            }
        })
    }

    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, Result<SamplingResponse, CallerError>> {
        Box::pin(async move {
            let last = match request
                .messages
                .last()
                .and_then(|message| message.content.first())
            {
                Some(SamplingContent::Part(crate::output::Content::Text { text, .. })) => text.clone(),
                _ => String::new(),
            };
            let reversed: String = last.chars().rev().collect();
            Ok(SamplingResponse::new(
                "reverser-1",
                vec![SamplingContent::text(reversed)],
            ))
        })
    }
}

/// Never answers.
struct Silent;

impl Caller for Silent {
    fn elicit(&self, _request: ElicitRequest) -> BoxFuture<'_, Result<ElicitResponse, CallerError>> {
        Box::pin(std::future::pending())
    }
}

#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

/// `greet`: logs, asks for a name, asks the model to reverse it.
fn greet() -> DynamicTool {
    let schema = json!({"type": "object", "properties": {}});
    DynamicTool::new(
        "greet",
        "Greet the user.",
        schema,
        |_: Value, ctx: ToolContext| async move {
            ctx.log(LogLevel::Info, "asking for a name");
            let Elicited::Accepted(Name { name }) = ctx.elicit::<Name>("Who are you?").await? else {
                return Ok::<_, ToolError>("no name given".to_owned());
            };
            let request = SamplingRequest::new(vec![SamplingMessage::user(name.clone())], 10);
            let reversed = ctx.sample(request).await?.text();
            Ok(format!("hello {name} ({reversed})"))
        },
    )
}

#[tokio::test]
async fn the_registrys_caller_answers_logs_questions_and_sampling() {
    let caller = Arc::new(Scripted::default());
    let registry = ToolRegistry::builder().caller(caller.clone()).build();
    registry.register(greet()).unwrap();
    let result = registry.call(ToolCall::new("c1", "greet", json!({}))).await;
    assert_eq!(result.text(), "hello Ada (adA)");
    let log = caller.log.lock().unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].level, LogLevel::Info);
    assert_eq!(
        log[0].logger.as_deref(),
        Some("greet"),
        "the tool's name is the logger"
    );
    assert_eq!(log[0].data, json!("asking for a name"));
}

#[tokio::test]
async fn a_calls_own_caller_comes_before_the_registrys() {
    let registry = ToolRegistry::builder().caller(Silent).build();
    registry.register(greet()).unwrap();
    let call = ToolCall::new("c1", "greet", json!({})).with_caller(Arc::new(Scripted::default()));
    assert_eq!(registry.call(call).await.text(), "hello Ada (adA)");
}

#[tokio::test]
async fn without_a_caller_the_model_is_told_what_was_missing() {
    let registry = ToolRegistry::new();
    registry.register(greet()).unwrap();
    let result = registry.call(ToolCall::new("c1", "greet", json!({}))).await;
    assert!(result.is_error());
    assert_eq!(result.outcome, Outcome::Error);
    assert!(
        result
            .text()
            .contains("needs its caller to ask the user (elicitation)"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn a_question_nobody_answers_ends_with_the_calls_timeout() {
    let registry = ToolRegistry::builder().caller(Silent).build();
    registry.register(greet()).unwrap();
    let call = ToolCall::new("c1", "greet", json!({})).with_timeout(Duration::from_millis(50));
    let result = registry.call(call).await;
    assert_eq!(result.outcome, Outcome::Timeout, "{}", result.text());
}

#[tokio::test]
async fn an_answer_that_does_not_fit_the_form_is_an_error_not_a_guess() {
    struct WrongType;
    impl Caller for WrongType {
        fn elicit(&self, _request: ElicitRequest) -> BoxFuture<'_, Result<ElicitResponse, CallerError>> {
            Box::pin(async {
                Ok(ElicitResponse::accept(
                    json!({"name": 7}).as_object().cloned().unwrap(),
                ))
            })
        }
    }
    let registry = ToolRegistry::builder().caller(WrongType).build();
    registry.register(greet()).unwrap();
    let result = registry.call(ToolCall::new("c1", "greet", json!({}))).await;
    assert!(
        result.text().contains("the answer does not fit the form"),
        "{}",
        result.text()
    );
}

/// Keeps what tools remember, as a caller that runs a call again would.
#[derive(Default)]
struct Keeper {
    kept: Mutex<std::collections::BTreeMap<String, Value>>,
}

impl Caller for Keeper {
    fn recall(&self, key: &str) -> Option<Value> {
        self.kept.lock().unwrap().get(key).cloned()
    }

    fn keep(&self, key: &str, value: Value) {
        self.kept.lock().unwrap().insert(key.to_owned(), value);
    }
}

#[tokio::test]
async fn a_remembered_step_runs_once_per_keeping_caller_and_always_without_one() {
    let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let step = |runs: Arc<std::sync::atomic::AtomicUsize>| async move {
        Ok::<_, ToolError>(runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1)
    };
    let keeper: Arc<dyn Caller> = Arc::new(Keeper::default());
    let ctx = ToolContext::new("c1").with_caller(keeper.clone());
    assert_eq!(ctx.remember("charge", step(runs.clone())).await.unwrap(), 1);
    // The call runs again with the same caller: the step's first value comes back.
    let again = ToolContext::new("c1").with_caller(keeper);
    assert_eq!(again.remember("charge", step(runs.clone())).await.unwrap(), 1);
    // A value kept under the name that is not of the step's type runs it again.
    assert_eq!(
        again
            .remember::<String, _>("charge", async { Ok("s".to_owned()) })
            .await
            .unwrap(),
        "s"
    );
    // Without a caller that keeps values, the step simply runs.
    let plain = ToolContext::new("c2");
    assert_eq!(plain.remember("charge", step(runs.clone())).await.unwrap(), 2);
    let failed = plain
        .remember::<u32, _>("broken", async { Err(ToolError::new("no")) })
        .await;
    assert!(failed.is_err());
}

#[tokio::test]
async fn a_named_question_reaches_the_callers_own_methods_by_default() {
    let ctx = ToolContext::new("c").with_caller(Arc::new(Scripted::default()));
    let form = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let answer = ctx
        .ask(
            "user_name",
            InputRequest::Elicit(ElicitRequest::form("Name?", form)),
        )
        .await
        .unwrap();
    let InputResponse::Elicit(answer) = answer else {
        panic!("another kind of answer: {answer:?}");
    };
    assert_eq!(answer.content.unwrap()["name"], "Ada");
    let roots = ctx.ask("roots", InputRequest::ListRoots).await.unwrap_err();
    assert!(roots.to_string().contains("list its roots"), "{roots}");
    assert!(ctx.list_roots().await.is_err());
    let none = ToolContext::new("c")
        .ask("q", InputRequest::ListRoots)
        .await
        .unwrap_err();
    assert!(matches!(none, CallerError::NotAvailable { .. }), "{none}");
}
