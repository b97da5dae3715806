//! Which calls take the direct path, and that what a call comes to does not depend on it.

use std::sync::Arc;

use agent_tools_macros::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::corpus::{self, TextTool};
use super::*;
use crate::audit::{MemoryAudit, Outcome};
use crate::hooks::Hook;
use crate::policy::Policy;
use crate::{ToolCall, ToolResult};

fn direct(registry: &ToolRegistry, name: &str) -> bool {
    registry.takes_direct_path(&registry.entry(name).unwrap())
}

/// The call's result, and whether it took the direct path.
async fn call(
    registry: &ToolRegistry,
    name: &str,
    arguments: impl Into<ToolArguments>,
) -> (ToolResult, bool) {
    let before = DIRECT_CALLS.with(std::cell::Cell::get);
    let mut call = ToolCall::new("c1", name, "");
    call.arguments = arguments.into();
    let result = registry.call(call).await;
    (result, DIRECT_CALLS.with(std::cell::Cell::get) > before)
}

#[tokio::test]
async fn a_plain_tool_in_a_plain_registry_takes_it() {
    let registry = corpus::registry(ToolRegistry::builder());
    for (name, _) in corpus::TOOLS {
        assert!(direct(&registry, name), "{name}");
    }
    let (result, took) = call(&registry, "text", r#"{"message": "hé\n\u00e9"}"#).await;
    assert!(took);
    assert_eq!(result.outcome, Outcome::Ok);
    assert_eq!(result.text(), r#"("hé\né", None)"#);
    let (result, took) = call(&registry, "blocking", r#"{"count": -3}"#).await;
    assert!(took);
    assert_eq!(result.text(), "-3");
    // Derived registries keep it: a new name leaves the arguments as they were.
    let prefixed = registry.with_prefix("x_").unwrap();
    let (result, took) = call(&prefixed, "x_text", r#"{"message": "m"}"#).await;
    assert!(took && !result.is_error());
}

/// Arguments of `lookup`, a struct of the user's own.
#[derive(Deserialize, JsonSchema)]
struct LookupArgs {
    /// The key.
    key: String,
}

/// Look up a key.
#[tool]
async fn lookup(args: LookupArgs) -> String {
    args.key
}

/// Pick a number, 1 to 10.
#[tool]
async fn pick(
    /// The number.
    #[schemars(range(min = 1, max = 10))]
    number: u32,
) -> String {
    number.to_string()
}

/// Count, 3 unless said.
#[tool]
async fn count(
    /// The count.
    #[serde(default)]
    count: u32,
) -> String {
    count.to_string()
}

/// How to sort.
#[derive(Deserialize, JsonSchema, Debug)]
enum Order {
    Up,
    Down,
}

/// Types off the list: one of the user's, one a `Value` cannot hold, and any JSON.
#[tool]
async fn unlisted(order: Order, huge: Option<u128>, data: Option<serde_json::Value>) -> String {
    format!("{order:?} {huge:?} {data:?}")
}

mod shadowed {
    /// A type of the user's own that happens to be called `String`.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub(super) struct String(#[allow(dead_code)] pub(super) u8);
}

/// Its one parameter is spelled `String` but is not std's.
#[tool]
async fn lookalike(name: shadowed::String) -> std::string::String {
    name.0.to_string()
}

#[tokio::test]
async fn a_schema_that_can_say_more_than_the_type_keeps_the_check() {
    let registry = ToolRegistry::new();
    registry.register(LookupTool).unwrap();
    registry.register(PickTool).unwrap();
    registry.register(CountTool).unwrap();
    registry.register(UnlistedTool).unwrap();
    registry.register(LookalikeTool).unwrap();
    for name in ["lookup", "pick", "count", "unlisted", "lookalike"] {
        assert!(!direct(&registry, name), "{name}");
    }
    // The range is the schema's alone: serde would read 50.
    let (result, took) = call(&registry, "pick", r#"{"number": 50}"#).await;
    assert!(!took);
    assert_eq!(result.outcome, Outcome::InvalidArguments);
    assert!(
        result.text().contains("50 is greater than the maximum of 10"),
        "{}",
        result.text()
    );
    let (result, took) = call(&registry, "lookup", r#"{"key": "k"}"#).await;
    assert!(!took && result.text() == "k");
}

/// Sees every call.
struct Watch;

impl Hook for Watch {}

#[tokio::test]
async fn whatever_reads_the_arguments_turns_it_off() {
    let audited = corpus::registry(ToolRegistry::builder().audit(MemoryAudit::new()));
    let hooked = corpus::registry(ToolRegistry::builder().hook(Watch));
    let governed =
        corpus::registry(ToolRegistry::builder().policy(Policy::builder().allow("*").build().unwrap()));
    for registry in [&audited, &hooked, &governed] {
        assert!(!direct(registry, "text"));
        let (result, took) = call(registry, "text", r#"{"message": "m"}"#).await;
        assert!(!took, "{registry:?}");
        assert_eq!(result.text(), r#"("m", None)"#);
    }
    // A value already parsed, and a freeform call, go the usual way too.
    let plain = corpus::registry(ToolRegistry::builder());
    let (result, took) = call(&plain, "text", json!({"message": "m"})).await;
    assert!(!took && result.text() == r#"("m", None)"#);
    let (_, took) = call(&plain, "text", ToolArguments::Freeform("m".into())).await;
    assert!(!took);
}

#[tokio::test]
async fn bad_arguments_get_the_message_they_always_got() {
    let plain = corpus::registry(ToolRegistry::builder());
    let (result, took) = call(&plain, "text", r#"{"message": 5, "mesage": "x", "note": null}"#).await;
    assert!(!took);
    assert_eq!(result.outcome, Outcome::InvalidArguments);
    assert_eq!(
        result.text(),
        "invalid arguments for `text`:\n\
         - `/message`: expected string, got integer 5\n\
         - unknown property `mesage` (did you mean `message`? expected one of: message, note)"
    );
    // Refused by serde only, after the schema let it through: the same on both paths.
    let audited = corpus::registry(ToolRegistry::builder().audit(MemoryAudit::new()));
    for text in [
        r#"{"message": "a", "message": "b"}"#,
        r#"{"count": 1.0}"#,
        "",
        r#""{\"message\": \"m\"}""#,
        "[\"m\"]",
    ] {
        for name in ["text", "blocking"] {
            let (fast, took) = call(&plain, name, text).await;
            assert!(!took, "{text}");
            let (full, _) = call(&audited, name, text).await;
            assert_eq!(
                (fast.outcome, fast.text(), fast.repairs),
                (full.outcome, full.text(), full.repairs),
                "{text}"
            );
        }
    }
}

#[tokio::test]
async fn bad_arguments_are_refused_before_the_session_cap_on_both_paths() {
    let registry = corpus::registry(ToolRegistry::builder().max_calls_per_session(1));
    let (result, took) = call(&registry, "text", r#"{"message": "m"}"#).await;
    assert!(took && !result.is_error());
    let (result, _) = call(&registry, "text", r#"{"message": 1}"#).await;
    assert_eq!(result.outcome, Outcome::InvalidArguments);
    let (result, took) = call(&registry, "text", r#"{"message": "m"}"#).await;
    assert!(took);
    assert_eq!(result.outcome, Outcome::Denied);
}

/// Panics.
#[tool]
async fn boom(message: String) -> String {
    panic!("{message}")
}

#[tokio::test]
async fn the_tool_is_isolated_on_the_direct_path_too() {
    let registry = ToolRegistry::new();
    registry.register(BoomTool).unwrap();
    let registry = Arc::new(registry);
    let (result, took) = call(&registry, "boom", r#"{"message": "bang"}"#).await;
    assert!(took);
    assert_eq!(result.outcome, Outcome::Panicked);
    assert!(result.text().contains("bang"));
}

#[test]
fn a_tool_written_by_hand_does_not_take_it() {
    assert!(
        !crate::tool::Tool::__takes_direct_arguments(&TextTool)
            || <TextTool as crate::TypedTool>::__DIRECT_ARGUMENTS
    );
    let registry = ToolRegistry::new();
    registry
        .register(crate::tool::DynamicTool::new(
            "dynamic",
            "A tool.",
            json!({"type": "object"}),
            |_, _| async { Ok::<_, crate::ToolError>("x".to_owned()) },
        ))
        .unwrap();
    assert!(!direct(&registry, "dynamic"));
}
