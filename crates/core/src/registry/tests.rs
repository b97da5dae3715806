use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{Barrier, Notify};

use super::*;
use crate::{
    audit::{MemoryAudit, Outcome},
    context::ToolContext,
    dynamic::DynamicTool,
    error::{SchemaError, ToolError},
    output::ToolOutput,
    spec::{ToolMeta, ToolNameError, ToolSpec},
    typed::TypedTool,
};
use tokio_util::sync::CancellationToken;

/// Arguments of `add`.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
    /// Optional label.
    label: Option<String>,
}

struct Add;

impl TypedTool for Add {
    type Args = AddArgs;
    type Output = String;

    fn meta() -> ToolMeta {
        ToolMeta::new("add", "Add two integers.").read_only(true)
    }

    async fn run(&self, args: AddArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
        let sum = args
            .a
            .checked_add(args.b)
            .ok_or_else(|| ToolError::new("the sum overflows"))?;
        Ok(match args.label {
            Some(label) => format!("{label}: {sum}"),
            None => sum.to_string(),
        })
    }
}

fn empty_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// A tool that never finishes, after telling `started`.
fn hanging(name: &str, started: Arc<Notify>) -> DynamicTool {
    hanging_with(ToolMeta::new(name.to_owned(), "Never finishes."), started)
}

fn hanging_with(meta: ToolMeta, started: Arc<Notify>) -> DynamicTool {
    DynamicTool::from_meta(meta, empty_schema(), move |_args, _ctx| {
        let started = started.clone();
        async move {
            started.notify_one();
            std::future::pending::<Result<(), ToolError>>().await
        }
    })
}

fn panicking(name: &str) -> DynamicTool {
    DynamicTool::new(name, "Panics.", empty_schema(), |_args, _ctx| async move {
        if true {
            panic!("index out of bounds: the len is 0");
        }
        Ok::<_, ToolError>(())
    })
}

fn registry_with_add() -> ToolRegistry {
    let registry = ToolRegistry::new();
    registry.register(Add).unwrap();
    registry
}

async fn call(registry: &ToolRegistry, name: &str, arguments: impl Into<ToolArguments>) -> ToolResult {
    registry.call(ToolCall::new("call_1", name, arguments)).await
}

#[tokio::test]
async fn a_valid_call_runs_the_tool() {
    let registry = registry_with_add();
    let result = call(&registry, "add", r#"{"a": 2, "b": 3, "label": "sum"}"#).await;
    assert_eq!(result.outcome, Outcome::Ok);
    assert!(!result.is_error());
    assert_eq!(result.text(), "sum: 5");
    assert_eq!(result.call_id, "call_1");
    assert_eq!(result.name, "add");
    let result = call(&registry, "add", json!({"a": 1, "b": 1})).await;
    assert_eq!(result.text(), "2");
}

#[tokio::test]
async fn unknown_tools_get_suggestions_and_the_list() {
    let registry = registry_with_add();
    registry
        .register(DynamicTool::new(
            "read_file",
            "Read.",
            empty_schema(),
            |_a, _c| async { Ok::<_, ToolError>("") },
        ))
        .unwrap();
    let result = call(&registry, "reed_file", "{}").await;
    assert_eq!(result.outcome, Outcome::UnknownTool);
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "unknown tool `reed_file`. Did you mean `read_file`? Available tools: add, read_file."
    );
    let empty = ToolRegistry::new();
    assert_eq!(
        call(&empty, "x", "{}").await.text(),
        "unknown tool `x`. No tools are available."
    );
}

#[tokio::test]
async fn malformed_and_non_object_arguments_are_explained() {
    let registry = registry_with_add();
    let result = call(&registry, "add", r#"{"a": 1,"#).await;
    assert_eq!(result.outcome, Outcome::InvalidArguments);
    assert!(
        result
            .text()
            .starts_with("the arguments for `add` are not valid JSON (EOF while parsing"),
        "{}",
        result.text()
    );
    let result = call(&registry, "add", "[1, 2]").await;
    assert_eq!(result.outcome, Outcome::InvalidArguments);
    assert_eq!(
        result.text(),
        "the arguments for `add` must be a JSON object with the tool's parameters as properties, got an array"
    );
}

#[tokio::test]
async fn invalid_arguments_list_every_problem() {
    let registry = registry_with_add();
    let result = call(&registry, "add", r#"{"a": "1", "c": 2}"#).await;
    assert_eq!(result.outcome, Outcome::InvalidArguments);
    assert_eq!(
        result.text(),
        "invalid arguments for `add`:\n\
         - `/a`: expected integer, got string \"1\"\n\
         - `/b`: required property is missing\n\
         - unknown property `c` (expected one of: a, b, label)"
    );
}

#[tokio::test]
async fn double_encoded_arguments_are_repaired_and_reported() {
    let registry = registry_with_add();
    let result = call(&registry, "add", json!(r#"{"a": 1, "b": 2}"#)).await;
    assert_eq!(result.outcome, Outcome::Ok);
    assert_eq!(result.text(), "3");
    assert_eq!(result.repairs.len(), 1);
}

#[tokio::test]
async fn tool_errors_become_error_results() {
    let registry = registry_with_add();
    let result = call(&registry, "add", json!({"a": i64::MAX, "b": 1})).await;
    assert_eq!(result.outcome, Outcome::Error);
    assert!(result.is_error());
    assert_eq!(result.text(), "the sum overflows");

    registry
        .register(DynamicTool::new(
            "picky",
            "Rejects.",
            empty_schema(),
            |_a, _c| async { Err::<(), _>(ToolError::invalid_arguments("`start` must not be after `end`")) },
        ))
        .unwrap();
    let result = call(&registry, "picky", "{}").await;
    assert_eq!(result.outcome, Outcome::InvalidArguments);
    assert_eq!(
        result.text(),
        "invalid arguments for `picky`:\n- `start` must not be after `end`"
    );

    registry
        .register(DynamicTool::new(
            "soft",
            "Errors softly.",
            empty_schema(),
            |_a, _c| async { Ok::<_, ToolError>(ToolOutput::error("nothing matched")) },
        ))
        .unwrap();
    assert_eq!(call(&registry, "soft", "{}").await.outcome, Outcome::Error);
}

#[tokio::test(start_paused = true)]
async fn timeouts_apply_per_call_then_per_tool_then_registry_default() {
    let started = Arc::new(Notify::new());
    let registry = ToolRegistry::builder()
        .default_timeout(Duration::from_secs(7))
        .build();
    registry.register(hanging("hang", started.clone())).unwrap();
    registry
        .register(hanging_with(
            ToolMeta::new("hang_tool_timeout", "Hangs.").timeout(Duration::from_secs(3)),
            started.clone(),
        ))
        .unwrap();

    let result = call(&registry, "hang", "{}").await;
    assert_eq!(result.outcome, Outcome::Timeout);
    assert_eq!(
        result.text(),
        "`hang` did not finish within 7s and was stopped; try a smaller or simpler request"
    );
    let result = call(&registry, "hang_tool_timeout", "{}").await;
    assert!(result.text().contains("within 3s"), "{}", result.text());
    let result = registry
        .call(ToolCall::new("c", "hang_tool_timeout", "{}").with_timeout(Duration::from_millis(1500)))
        .await;
    assert!(result.text().contains("within 1s 500ms"), "{}", result.text());
}

#[tokio::test]
async fn an_unrepresentably_long_timeout_means_no_timeout() {
    let registry = registry_with_add();
    let call = ToolCall::new("c", "add", r#"{"a": 1, "b": 2}"#).with_timeout(Duration::MAX);
    assert_eq!(registry.call(call).await.text(), "3");
}

#[tokio::test(start_paused = true)]
async fn a_timeout_cancels_the_tools_token() {
    let seen_token = Arc::new(std::sync::Mutex::new(None));
    let slot = seen_token.clone();
    let registry = ToolRegistry::builder()
        .default_timeout(Duration::from_secs(1))
        .build();
    registry
        .register(DynamicTool::new(
            "hang",
            "Hangs.",
            empty_schema(),
            move |_a, ctx: ToolContext| {
                *slot.lock().unwrap() = Some(ctx.cancellation().clone());
                std::future::pending::<Result<(), ToolError>>()
            },
        ))
        .unwrap();
    assert_eq!(call(&registry, "hang", "{}").await.outcome, Outcome::Timeout);
    let token = seen_token.lock().unwrap().clone().unwrap();
    assert!(token.is_cancelled());
}

#[tokio::test]
async fn cancelling_the_callers_token_stops_the_call() {
    let started = Arc::new(Notify::new());
    let registry = ToolRegistry::new();
    registry.register(hanging("hang", started.clone())).unwrap();
    let token = CancellationToken::new();
    let call = registry.call(ToolCall::new("c", "hang", "{}").with_cancellation(token.clone()));
    let canceller = async {
        started.notified().await;
        token.cancel();
    };
    let (result, ()) = tokio::join!(call, canceller);
    assert_eq!(result.outcome, Outcome::Cancelled);
    assert_eq!(result.text(), "`hang` was cancelled before it finished");
}

/// A tool that waits for its call to be cancelled and then reports what it did so far.
fn winding_down(grace: Duration, started: Arc<Notify>) -> DynamicTool {
    let meta = ToolMeta::new("wind", "Stops when cancelled.").cancel_grace(grace);
    DynamicTool::from_meta(meta, empty_schema(), move |_args, ctx| {
        let started = started.clone();
        async move {
            started.notify_one();
            ctx.cancellation().cancelled().await;
            Err::<ToolOutput, _>(ToolError::cancelled_with("stopped after step 3 of 5"))
        }
    })
}

#[tokio::test]
async fn a_tool_with_a_cancel_grace_returns_what_it_has_when_cancelled() {
    let started = Arc::new(Notify::new());
    let audit = MemoryAudit::new();
    let registry = ToolRegistry::builder().audit(audit.clone()).build();
    registry
        .register(winding_down(Duration::from_secs(30), started.clone()))
        .unwrap();
    let token = CancellationToken::new();
    let call = registry.call(ToolCall::new("c", "wind", "{}").with_cancellation(token.clone()));
    let canceller = async {
        started.notified().await;
        token.cancel();
    };
    let (result, ()) = tokio::join!(call, canceller);
    assert_eq!(result.outcome, Outcome::Cancelled);
    assert!(result.is_error());
    assert_eq!(result.text(), "stopped after step 3 of 5");
    assert_eq!(audit.events()[0].outcome, Outcome::Cancelled);
}

#[tokio::test(start_paused = true)]
async fn a_tool_that_ignores_its_grace_is_dropped_when_it_ends() {
    let started = Arc::new(Notify::new());
    let registry = ToolRegistry::new();
    let meta = ToolMeta::new("hang", "Never finishes.").cancel_grace(Duration::from_secs(2));
    registry.register(hanging_with(meta, started.clone())).unwrap();
    let token = CancellationToken::new();
    let call = registry.call(ToolCall::new("c", "hang", "{}").with_cancellation(token.clone()));
    let canceller = async {
        started.notified().await;
        token.cancel();
    };
    let begun = tokio::time::Instant::now();
    let (result, ()) = tokio::join!(call, canceller);
    assert_eq!(result.outcome, Outcome::Cancelled);
    assert_eq!(result.text(), "`hang` was cancelled before it finished");
    assert_eq!(
        begun.elapsed(),
        Duration::from_secs(2),
        "the paused clock moved by the grace"
    );
}

#[tokio::test]
async fn panics_are_contained_and_the_registry_stays_usable() {
    let registry = registry_with_add();
    registry.register(panicking("boom")).unwrap();
    let result = call(&registry, "boom", "{}").await;
    assert_eq!(result.outcome, Outcome::Panicked);
    assert_eq!(
        result.text(),
        "`boom` failed with an internal error (index out of bounds: the len is 0); this is a bug in the tool, not a problem with your arguments"
    );
    assert_eq!(call(&registry, "add", r#"{"a":1,"b":1}"#).await.text(), "2");
}

/// A hand-written tool that panics in `call` itself, before returning a future.
struct PanicsEagerly(ToolSpec);

impl Tool for PanicsEagerly {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn call(
        &self,
        _arguments: Value,
        _ctx: ToolContext,
    ) -> crate::tool::BoxFuture<'_, Result<ToolOutput, ToolError>> {
        panic!("eager panic")
    }
}

#[tokio::test]
async fn panics_before_the_future_exists_are_contained_too() {
    let registry = ToolRegistry::new();
    registry
        .register(PanicsEagerly(ToolSpec::new("eager", "Panics.", empty_schema())))
        .unwrap();
    let result = call(&registry, "eager", "{}").await;
    assert_eq!(result.outcome, Outcome::Panicked);
    assert!(result.text().contains("eager panic"));
}

#[tokio::test]
async fn registration_rejects_duplicates_bad_names_and_bad_schemas() {
    let registry = registry_with_add();
    let error = registry.register(Add).unwrap_err();
    assert_eq!(error.to_string(), "a tool named `add` is already registered");
    let bad_name = DynamicTool::new("read file", "x", empty_schema(), |_a, _c| async {
        Ok::<_, ToolError>(())
    });
    let error = registry.register(bad_name).unwrap_err();
    let RegistryError::InvalidName { source, .. } = &error else {
        panic!("{error:?}");
    };
    assert!(
        matches!(source, ToolNameError::Character { character: ' ', .. }),
        "{source:?}"
    );
    assert_eq!(
        error.to_string(),
        "invalid tool name `read file`: ' ' is not allowed; use only ASCII letters, digits, `_` and `-`"
    );
    // The cause is the source, and the message, which says it already, says it once.
    assert!(std::error::Error::source(&error).is_some());
    assert_eq!(crate::error::error_chain(&error), error.to_string());
    let bad_schema = DynamicTool::new("s", "x", json!({"type": "array"}), |_a, _c| async {
        Ok::<_, ToolError>(())
    });
    let error = registry.register(bad_schema).unwrap_err();
    let RegistryError::InvalidSchema { source, .. } = &error else {
        panic!("{error:?}");
    };
    assert!(matches!(source, SchemaError::RootNotObject { .. }), "{source:?}");
    assert_eq!(
        error.to_string(),
        "tool `s` has an unusable input schema: the root must have `\"type\": \"object\"` \
         (tool arguments are named fields), got `\"type\": \"array\"`; wrap the value in a struct"
    );
    assert_eq!(crate::error::error_chain(&error), error.to_string());
    // A header argument MCP clients could not send (it may be null).
    let schema = json!({"type": "object", "properties": {"region": {"type": ["string", "null"]}}});
    let meta = ToolMeta::new("h", "x").header_argument("region", "Region");
    let optional_header = DynamicTool::from_meta(meta, schema, |_a, _c| async { Ok::<_, ToolError>(()) });
    let error = registry.register(optional_header).unwrap_err();
    assert!(
        matches!(&error, RegistryError::InvalidHeaderArgument { tool, .. } if tool == "h"),
        "{error:?}"
    );
    assert!(error.to_string().contains("one type, not optional"), "{error}");
    assert_eq!(registry.names(), vec!["add"]);
}

#[test]
fn the_task_support_of_a_tool_that_states_none_is_the_registry_default() {
    let registry = ToolRegistry::builder()
        .task_support(TaskSupport::Optional)
        .build();
    let plain = DynamicTool::new("plain", "x", json!({"type": "object"}), |_a, _c| async {
        Ok::<_, ToolError>(())
    });
    let meta = ToolMeta::new("quick", "x").task(TaskSupport::Forbidden);
    let quick = DynamicTool::from_meta(meta, json!({"type": "object"}), |_a, _c| async {
        Ok::<_, ToolError>(())
    });
    registry.register(plain).unwrap();
    registry.register(quick).unwrap();
    assert_eq!(registry.task_support("plain"), Some(TaskSupport::Optional));
    assert_eq!(registry.task_support("quick"), Some(TaskSupport::Forbidden));
    assert_eq!(registry.task_support("missing"), None);
    assert_eq!(ToolRegistry::new().task_support("missing"), None);
}

#[tokio::test]
async fn unregister_get_and_names() {
    let registry = registry_with_add();
    registry.register(panicking("boom")).unwrap();
    assert_eq!(registry.names(), vec!["add", "boom"]);
    assert!(registry.get("add").is_some());
    assert!(registry.unregister("add").is_some());
    assert!(registry.unregister("add").is_none());
    assert!(!registry.contains("add"));
    assert_eq!(registry.len(), 1);
    assert_eq!(call(&registry, "add", "{}").await.outcome, Outcome::UnknownTool);
}

#[tokio::test]
async fn clones_share_the_registry() {
    let registry = ToolRegistry::new();
    let clone = registry.clone();
    clone.register(Add).unwrap();
    assert!(registry.contains("add"));
}

#[tokio::test]
async fn registration_while_a_call_is_in_flight() {
    let started = Arc::new(Notify::new());
    let release = Arc::new(Notify::new());
    let registry = ToolRegistry::new();
    let (started_in_tool, release_in_tool) = (started.clone(), release.clone());
    registry
        .register(DynamicTool::new(
            "slow",
            "Waits.",
            empty_schema(),
            move |_a, _c| {
                let (started, release) = (started_in_tool.clone(), release_in_tool.clone());
                async move {
                    started.notify_one();
                    release.notified().await;
                    Ok::<_, ToolError>("done")
                }
            },
        ))
        .unwrap();
    let in_flight = registry.call(ToolCall::new("c", "slow", "{}"));
    let changes = async {
        started.notified().await;
        registry.register(Add).unwrap();
        assert!(registry.unregister("slow").is_some());
        release.notify_one();
    };
    let (result, ()) = tokio::join!(in_flight, changes);
    assert_eq!(result.text(), "done");
    assert_eq!(registry.names(), vec!["add"]);
}

#[tokio::test]
async fn call_all_runs_concurrently_and_keeps_order() {
    let barrier = Arc::new(Barrier::new(3));
    let registry = ToolRegistry::new();
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let in_tool = barrier.clone();
    registry
        .register(DynamicTool::new(
            "wait",
            "Waits for the others.",
            schema,
            move |args: Value, _c| {
                let barrier = in_tool.clone();
                async move {
                    // Completes only if all three calls run at the same time.
                    barrier.wait().await;
                    Ok::<_, ToolError>(args["n"].to_string())
                }
            },
        ))
        .unwrap();
    let calls = (0..3)
        .map(|n| ToolCall::new(format!("c{n}"), "wait", json!({"n": n})))
        .collect();
    let results = registry.call_all(calls).await;
    let texts: Vec<String> = results.iter().map(ToolResult::text).collect();
    assert_eq!(texts, vec!["0", "1", "2"]);
    assert_eq!(results[2].call_id, "c2");
}

#[tokio::test]
async fn call_all_honors_a_concurrency_limit() {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let registry = ToolRegistry::builder().max_concurrency(2).build();
    let (now, max) = (in_flight.clone(), peak.clone());
    registry
        .register(DynamicTool::new(
            "count",
            "Counts.",
            empty_schema(),
            move |_a, _c| {
                let (now, max) = (now.clone(), max.clone());
                async move {
                    let current = now.fetch_add(1, Ordering::SeqCst) + 1;
                    max.fetch_max(current, Ordering::SeqCst);
                    for _ in 0..5 {
                        tokio::task::yield_now().await;
                    }
                    now.fetch_sub(1, Ordering::SeqCst);
                    Ok::<_, ToolError>(())
                }
            },
        ))
        .unwrap();
    let calls = (0..10)
        .map(|n| ToolCall::new(format!("c{n}"), "count", "{}"))
        .collect();
    let results = registry.call_all(calls).await;
    assert_eq!(results.len(), 10);
    assert!(results.iter().all(|r| r.outcome == Outcome::Ok));
    assert_eq!(peak.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn composition_filter_subset_merge_prefix() {
    let registry = registry_with_add();
    registry.register(panicking("boom")).unwrap();

    let read_only = registry.filter(|spec| spec.meta.annotations.read_only == Some(true));
    assert_eq!(read_only.names(), vec!["add"]);

    let subset = registry.subset(&["boom"]).unwrap();
    assert_eq!(subset.names(), vec!["boom"]);
    assert!(matches!(
        registry.subset(&["nope"]),
        Err(RegistryError::UnknownTool { .. })
    ));
    assert!(matches!(
        registry.subset(&["add", "add"]),
        Err(RegistryError::DuplicateName { .. })
    ));

    let prefixed = registry.with_prefix("math_").unwrap();
    assert_eq!(prefixed.names(), vec!["math_add", "math_boom"]);
    let result = call(&prefixed, "math_add", r#"{"a": 2, "b": 2}"#).await;
    assert_eq!(result.text(), "4");
    assert_eq!(prefixed.get("math_add").unwrap().spec().meta.name, "math_add");
    assert!(registry.with_prefix("bad prefix ").is_err());

    let combined = ToolRegistry::new();
    combined.merge(&prefixed).unwrap();
    combined.merge(&registry.subset(&["add"]).unwrap()).unwrap();
    assert_eq!(combined.names(), vec!["math_add", "math_boom", "add"]);
    assert!(combined.merge(&registry).is_err(), "`add` is already there");
    assert_eq!(combined.len(), 3, "a failed merge adds nothing");
}

#[tokio::test]
async fn definitions_are_in_registration_order() {
    let registry = registry_with_add();
    registry.register(panicking("boom")).unwrap();
    let definitions = registry.definitions(crate::dialect::Dialect::OpenAiChat);
    assert_eq!(definitions.len(), 2);
    assert_eq!(definitions[0]["function"]["name"], "add");
    assert_eq!(
        definitions[0]["function"]["parameters"]["properties"]["a"]["description"],
        "First addend."
    );
}

#[tokio::test]
async fn context_carries_session_extensions_and_deadline() {
    struct Greeting(&'static str);
    let registry = ToolRegistry::builder().extension(Greeting("hello")).build();
    registry
        .register(DynamicTool::new(
            "ctx",
            "Context.",
            empty_schema(),
            |_a, ctx: ToolContext| async move {
                Ok::<_, ToolError>(json!({
                    "session": ctx.session_id(),
                    "call": ctx.call_id(),
                    "greeting": ctx.extension::<Greeting>().map(|g| g.0),
                    "number": ctx.extension::<u32>(),
                    "has_deadline": ctx.deadline().is_some(),
                }))
            },
        ))
        .unwrap();
    let session = registry.session("chat-1");
    let result = session.call(ToolCall::new("call_9", "ctx", "{}")).await;
    let seen: Value = serde_json::from_str(&result.text()).unwrap();
    assert_eq!(
        seen,
        json!({"session": "chat-1", "call": "call_9", "greeting": "hello", "number": null, "has_deadline": true})
    );
    let mut call_extensions = crate::context::Extensions::new();
    call_extensions.insert(7_u32);
    let result = registry
        .call(
            ToolCall::new("call_10", "ctx", "{}")
                .with_session_id("chat-2")
                .with_extensions(call_extensions),
        )
        .await;
    let seen: Value = serde_json::from_str(&result.text()).unwrap();
    assert_eq!(seen["session"], "chat-2");
    assert_eq!(seen["number"], 7);
}

#[tokio::test]
async fn progress_reports_reach_the_caller() {
    let registry = ToolRegistry::new();
    registry
        .register(DynamicTool::new(
            "steps",
            "Works in steps.",
            empty_schema(),
            |_a, ctx: ToolContext| async move {
                for step in 1..=3 {
                    ctx.report_progress(f64::from(step), Some(3.0), Some("working"));
                }
                Ok::<_, ToolError>("done")
            },
        ))
        .unwrap();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let reporter =
        crate::context::ProgressReporter::new(move |progress| sink.lock().unwrap().push(progress.progress));
    let result = registry
        .call(ToolCall::new("c", "steps", "{}").with_progress(reporter))
        .await;
    assert_eq!(result.text(), "done");
    assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0]);
}

#[tokio::test]
async fn every_call_is_audited_with_its_outcome() {
    let audit = MemoryAudit::new();
    let registry = ToolRegistry::builder()
        .audit(audit.clone())
        .default_timeout(Duration::from_millis(20))
        .build();
    registry.register(Add).unwrap();
    registry.register(panicking("boom")).unwrap();
    registry
        .register(hanging("hang", Arc::new(Notify::new())))
        .unwrap();
    let calls = vec![
        ToolCall::new("1", "add", r#"{"a": 1, "b": 2}"#).with_session_id("s"),
        ToolCall::new("2", "add", r#"{"a": "x"}"#),
        ToolCall::new("3", "nope", r#"{"token": "abc"}"#),
        ToolCall::new("4", "add", json!({"a": i64::MAX, "b": 1})),
        ToolCall::new("5", "boom", "{}"),
        ToolCall::new("6", "hang", "{}"),
    ];
    registry.call_all(calls).await;
    let mut events = audit.events();
    events.sort_by(|a, b| a.call_id.cmp(&b.call_id));
    let outcomes: Vec<Outcome> = events.iter().map(|e| e.outcome).collect();
    assert_eq!(
        outcomes,
        vec![
            Outcome::Ok,
            Outcome::InvalidArguments,
            Outcome::UnknownTool,
            Outcome::Error,
            Outcome::Panicked,
            Outcome::Timeout
        ]
    );
    assert_eq!(events[0].session_id.as_deref(), Some("s"));
    assert_eq!(events[0].arguments, json!({"a": 1, "b": 2}));
    assert_eq!(events[0].output_bytes, 1);
    assert!(events[0].error.is_none());
    assert_eq!(events[2].arguments, json!({"token": "[REDACTED]"}));
    assert_eq!(events[3].error.as_deref(), Some("the sum overflows"));
}

#[tokio::test]
async fn what_a_tool_records_reaches_its_audit_event_and_only_its_own() {
    let audit = MemoryAudit::new();
    let registry = ToolRegistry::builder().audit(audit.clone()).build();
    registry
        .register(DynamicTool::new(
            "fetcher",
            "Records what it reached.",
            empty_schema(),
            |_a, ctx: ToolContext| async move {
                ctx.audit_detail("network", json!(["first"]));
                ctx.audit_detail("network", json!([{"host": "a.test", "allowed": false}]));
                Ok::<_, ToolError>("done")
            },
        ))
        .unwrap();
    registry.register(Add).unwrap();
    registry.call(ToolCall::new("1", "fetcher", "{}")).await;
    registry
        .call(ToolCall::new("2", "add", r#"{"a": 1, "b": 2}"#))
        .await;
    let events = audit.events();
    assert_eq!(
        events[0].details.get("network"),
        Some(&json!([{"host": "a.test", "allowed": false}]))
    );
    assert!(events[1].details.is_empty());
    let line = serde_json::to_string(&events[1]).unwrap();
    assert!(!line.contains("details"), "{line}");
    // Outside a registry there is no record to add to, and nothing fails.
    ToolContext::new("direct").audit_detail("network", json!([]));
}

#[tokio::test]
async fn unparseable_arguments_are_audited_as_text() {
    let audit = MemoryAudit::new();
    let registry = ToolRegistry::builder().audit(audit.clone()).build();
    registry.register(Add).unwrap();
    call(&registry, "add", "{not json").await;
    assert_eq!(audit.events()[0].arguments, json!("{not json"));
}

/// Audio, links and annotations pass through dispatch untouched; the audit log counts
/// them in the output's size, and an error's text is its text parts.
#[tokio::test]
async fn every_kind_of_part_passes_through_and_is_measured() {
    use crate::output::{Audience, Audio, Content, ContentAnnotations};

    fn rich(is_error: bool) -> ToolOutput {
        let for_user = ContentAnnotations::new().audience([Audience::User]).priority(1.0);
        ToolOutput {
            content: vec![
                Content::text("see the link").with_annotations(for_user.clone()),
                Content::from(Audio::wav(vec![0; 30])).with_annotations(for_user),
                Content::resource_link("https://example.com/report.pdf", "report.pdf"),
            ],
            structured: None,
            is_error,
        }
    }
    let audit = MemoryAudit::new();
    let registry = ToolRegistry::builder().audit(audit.clone()).build();
    for (name, is_error) in [("rich", false), ("rich_error", true)] {
        registry
            .register(DynamicTool::new(
                name,
                "Rich.",
                json!({"type": "object"}),
                move |_: Value, _: ToolContext| async move { Ok::<_, ToolError>(rich(is_error)) },
            ))
            .unwrap();
    }
    let ok = call(&registry, "rich", "{}").await;
    assert_eq!(ok.output, rich(false));
    let failed = call(&registry, "rich_error", "{}").await;
    assert_eq!(failed.output, rich(true));
    let mut events = audit.events();
    events.sort_by(|a, b| a.tool.cmp(&b.tool));
    let annotations = r#"{"audience":["user"],"priority":1.0}"#.len();
    let expected = (12 + annotations) + (40 + annotations) + (30 + 10);
    assert_eq!(rich(false).byte_len(), expected);
    assert_eq!(events[0].output_bytes, expected);
    assert_eq!(events[1].error.as_deref(), Some("see the link"));
}

#[tokio::test]
async fn a_dropped_call_is_audited_as_cancelled() {
    let audit = MemoryAudit::new();
    let started = Arc::new(Notify::new());
    let registry = ToolRegistry::builder().audit(audit.clone()).build();
    registry.register(hanging("hang", started.clone())).unwrap();
    let call = registry.call(ToolCall::new("c", "hang", "{}"));
    tokio::select! {
        _ = call => unreachable!("the tool never finishes"),
        () = started.notified() => {}
    }
    let events = audit.events();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].outcome, Outcome::Cancelled);
}

#[test]
fn registries_and_calls_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    fn assert_send<T: Send>(_: &T) {}
    assert_send_sync::<ToolRegistry>();
    let registry = ToolRegistry::new();
    assert_send(&registry.call(ToolCall::new("c", "x", "{}")));
}

#[tokio::test]
async fn replace_tools_is_one_atomic_change() {
    let registry = registry_with_add();
    registry.register(panicking("old_a")).unwrap();
    let mut changes = registry.changes();
    let version = changes.version();

    let new_tools: Vec<Arc<dyn Tool>> = vec![Arc::new(panicking("new_a")), Arc::new(panicking("new_b"))];
    registry.replace_tools(&["old_a", "missing"], new_tools).unwrap();
    assert_eq!(registry.names(), ["add", "new_a", "new_b"]);
    assert!(changes.changed().await);
    assert_eq!(changes.version(), version + 1);

    // A new name taken by a tool that stays: nothing changes.
    let clash: Vec<Arc<dyn Tool>> = vec![Arc::new(panicking("other")), Arc::new(panicking("add"))];
    let error = registry.replace_tools(&["new_a"], clash).unwrap_err();
    assert!(
        matches!(error, RegistryError::DuplicateName { ref name } if name == "add"),
        "{error}"
    );
    assert_eq!(registry.names(), ["add", "new_a", "new_b"]);
    assert_eq!(changes.version(), version + 1);

    // Replacing a tool by one of the same name is allowed.
    registry
        .replace_tools(&["new_b"], vec![Arc::new(panicking("new_b"))])
        .unwrap();
    assert_eq!(registry.names(), ["add", "new_a", "new_b"]);
}

#[tokio::test]
async fn changes_follow_register_and_unregister_and_end_with_the_registry() {
    let registry = ToolRegistry::new();
    let mut changes = registry.changes();
    registry.register(Add).unwrap();
    assert!(changes.changed().await);
    assert!(registry.unregister("add").is_some());
    assert!(changes.changed().await);
    assert!(registry.unregister("add").is_none());
    assert_eq!(changes.version(), 2);
    // A failed registration is not a change.
    registry.register(Add).unwrap();
    assert!(registry.register(Add).is_err());
    assert_eq!(changes.version(), 3);
    drop(registry);
    assert!(changes.changed().await, "the last change is still reported");
    assert!(!changes.changed().await);
}

#[test]
fn a_weak_handle_does_not_keep_the_registry_alive() {
    let registry = ToolRegistry::new().session("s1");
    let weak = registry.downgrade();
    let upgraded = weak.upgrade().unwrap();
    assert_eq!(upgraded.session_id(), Some("s1"));
    drop((registry, upgraded));
    assert!(weak.upgrade().is_none());
}

#[tokio::test]
async fn results_are_cut_at_the_output_limit() {
    let flood = || {
        DynamicTool::new("flood", "Floods.", empty_schema(), |_args, _ctx| async {
            Ok::<_, ToolError>("y".repeat(5 * 1024 * 1024))
        })
    };
    let default = ToolRegistry::new();
    default.register(flood()).unwrap();
    let result = call(&default, "flood", "{}").await;
    assert_eq!(result.outcome, Outcome::Ok);
    assert!(result.text().len() < 4 * 1024 * 1024 + 200);
    assert!(
        result.text().ends_with("of 5242880 bytes left out]"),
        "default 4 MiB"
    );

    let small = ToolRegistry::builder().max_output_bytes(1000).build();
    small.register(flood()).unwrap();
    let text = call(&small, "flood", "{}").await.text();
    assert!(text.starts_with(&"y".repeat(1000)) && !text.starts_with(&"y".repeat(1001)));
    assert!(
        text.ends_with(
            "[output cut at the registry's limit of 1000 bytes: 5241880 of 5242880 bytes left out]"
        )
    );

    let unlimited = ToolRegistry::builder().no_output_limit().build();
    unlimited.register(flood()).unwrap();
    assert_eq!(
        call(&unlimited, "flood", "{}").await.text().len(),
        5 * 1024 * 1024
    );
}

/// Records the principal each hook call and approval request carried.
#[derive(Default)]
struct SeesWho(std::sync::Mutex<Vec<Option<crate::principal::Principal>>>);

impl crate::hooks::Hook for Arc<SeesWho> {
    fn before_call<'a>(
        &'a self,
        call: &'a crate::hooks::HookCall<'a>,
    ) -> crate::tool::BoxFuture<'a, crate::hooks::BeforeCall> {
        self.0.lock().unwrap().push(call.principal.cloned());
        Box::pin(async { crate::hooks::BeforeCall::Continue })
    }
}

impl crate::approval::Approver for Arc<SeesWho> {
    fn approve<'a>(
        &'a self,
        request: &'a crate::approval::ApprovalRequest,
    ) -> crate::tool::BoxFuture<'a, crate::approval::Approval> {
        self.0.lock().unwrap().push(request.principal.clone());
        Box::pin(async { crate::approval::Approval::Defer })
    }
}

#[tokio::test]
async fn the_principal_reaches_the_tool_hooks_approver_audit_and_a_resumed_call() {
    let audit = MemoryAudit::new();
    let seen = Arc::new(SeesWho::default());
    let registry = ToolRegistry::builder()
        .audit(audit.clone())
        .hook(seen.clone())
        .approver(seen.clone())
        .policy(
            crate::policy::Policy::builder()
                .ask("who_deploys")
                .allow("whoami")
                .build()
                .unwrap(),
        )
        .build();
    let who = |name: &str| {
        DynamicTool::new(
            name,
            "Who calls.",
            empty_schema(),
            |_args, ctx: ToolContext| async move {
                let principal = ctx.principal().map(|principal| principal.subject.clone());
                Ok::<_, ToolError>(principal.unwrap_or_else(|| "nobody".into()))
            },
        )
    };
    registry.register(who("whoami")).unwrap();
    registry.register(who("who_deploys")).unwrap();
    let ada = crate::principal::Principal::new("ada")
        .with_client_id("desktop")
        .with_scopes(["mcp:write"]);

    let result = registry
        .call(ToolCall::new("c1", "whoami", "{}").with_principal(ada.clone()))
        .await;
    assert_eq!(result.text(), "ada");
    assert_eq!(
        registry.call(ToolCall::new("c2", "whoami", "{}")).await.text(),
        "nobody"
    );

    let waiting = registry
        .call(ToolCall::new("c3", "who_deploys", "{}").with_principal(ada.clone()))
        .await;
    let stored = serde_json::to_string(waiting.pending().unwrap()).unwrap();
    let pending: crate::approval::PendingCall = serde_json::from_str(&stored).unwrap();
    assert_eq!(
        pending.principal.as_ref(),
        Some(&ada),
        "kept for the resumed call"
    );
    let resumed = registry
        .resume(&pending.id, crate::approval::Approval::AllowOnce)
        .await
        .unwrap();
    assert_eq!(resumed.text(), "ada", "made for the same user");

    let seen = seen.0.lock().unwrap().clone();
    assert_eq!(
        seen,
        [Some(ada.clone()), None, Some(ada.clone()), Some(ada.clone())]
    );
    let audited: Vec<(Option<String>, Option<String>)> = audit
        .events()
        .into_iter()
        .map(|event| (event.subject, event.client_id))
        .collect();
    let ada_audited = (Some("ada".to_owned()), Some("desktop".to_owned()));
    assert_eq!(
        audited,
        [
            ada_audited.clone(),
            (None, None),
            ada_audited.clone(),
            ada_audited
        ]
    );
}

/// Arguments of `shout`, which also takes its text freeform.
#[derive(Deserialize, JsonSchema)]
struct ShoutArgs {
    /// What to shout.
    text: String,
}

struct Shout;

impl TypedTool for Shout {
    type Args = ShoutArgs;
    type Output = String;

    fn meta() -> ToolMeta {
        ToolMeta::new("shout", "Shout a text.")
            .read_only(true)
            .freeform(crate::spec::Freeform::lark("start: /[a-z ]+/", "text"))
    }

    async fn run(&self, args: ShoutArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
        Ok(args.text.to_uppercase())
    }
}

#[tokio::test]
async fn a_freeform_call_fills_the_declared_argument_and_is_audited_as_such() {
    let audit = Arc::new(MemoryAudit::new());
    let registry = ToolRegistry::builder().audit(audit.clone()).build();
    registry.register(Shout).unwrap();
    registry.register(Add).unwrap();
    let result = registry
        .call(ToolCall::freeform("c1", "shout", "hello there"))
        .await;
    assert_eq!(
        (result.is_error(), result.text().as_str()),
        (false, "HELLO THERE")
    );
    assert_eq!(audit.events()[0].arguments, json!({"text": "hello there"}));
    // A tool without the form refuses raw text, with what to do instead.
    let refused = registry.call(ToolCall::freeform("c2", "add", "1 + 2")).await;
    assert!(refused.is_error());
    assert_eq!(refused.outcome, Outcome::InvalidArguments);
    assert!(
        refused
            .text()
            .contains("are raw text (a custom tool call), but the tool takes a JSON object"),
        "{}",
        refused.text()
    );
    // The ordinary JSON form still works.
    let json_call = registry
        .call(ToolCall::new("c3", "shout", json!({"text": "hi"})))
        .await;
    assert_eq!(json_call.text(), "HI");
}

#[test]
fn freeform_tools_are_custom_tools_only_for_openai_and_only_when_asked() {
    use crate::dialect::{DefinitionOptions, Dialect};
    let registry = ToolRegistry::new();
    registry.register(Shout).unwrap();
    registry.register(Add).unwrap();
    let custom = |dialect| registry.definitions_with(DefinitionOptions::new(dialect).custom_tools(true));
    let responses = custom(Dialect::OpenAiResponses);
    assert_eq!(
        responses[0],
        json!({
            "type": "custom",
            "name": "shout",
            "description": "Shout a text.",
            "format": {"type": "grammar", "syntax": "lark", "definition": "start: /[a-z ]+/"},
        })
    );
    assert_eq!(
        responses[1]["type"], "function",
        "a tool without the form is a function"
    );
    assert_eq!(
        custom(Dialect::OpenAiChat)[0],
        json!({
            "type": "custom",
            "custom": {
                "name": "shout",
                "description": "Shout a text.",
                "format": {"type": "grammar", "grammar": {"syntax": "lark", "definition": "start: /[a-z ]+/"}},
            },
        })
    );
    assert!(custom(Dialect::Anthropic)[0].get("input_schema").is_some());
    // Off by default: the function form.
    let plain = registry.definitions(Dialect::OpenAiResponses);
    assert_eq!(plain[0]["type"], "function");
}
