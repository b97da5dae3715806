//! `#[tool]` and `#[toolset]` end to end: the generated tools register, describe
//! themselves and run through a registry.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use agent_tools::{
    Dialect, Tool, ToolCall, ToolContext, ToolError, ToolRegistry,
    audit::Outcome,
    dialect::{DefinitionOptions, Strict},
    output::Json,
    tool, toolset,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Arguments of `greet`.
#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
    /// How many exclamation marks.
    #[schemars(range(max = 5))]
    excitement: Option<u8>,
}

/// Greet someone by name.
///
/// Returns the greeting.
#[tool(read_only, idempotent, title = "Greeter")]
async fn greet(args: GreetArgs) -> String {
    let marks = "!".repeat(usize::from(args.excitement.unwrap_or(1)));
    format!("Hello, {}{marks}", args.name)
}

/// Shared counter state.
struct Counter {
    value: AtomicU64,
}

/// Add to the counter and report the call.
#[tool(name = "bump", timeout = "5s", cancel_grace = "1500ms")]
async fn bump_counter(
    counter: &Counter,
    ctx: &ToolContext,
    /// How much to add.
    by: u64,
    /// An optional note, echoed back.
    note: Option<String>,
) -> Result<String, ToolError> {
    if by == 0 {
        return Err(ToolError::invalid_arguments("`by` must be at least 1"));
    }
    let value = counter.value.fetch_add(by, Ordering::SeqCst) + by;
    Ok(format!(
        "{value} (call {}, note {:?})",
        ctx.call_id(),
        note.unwrap_or_default()
    ))
}

/// Errors of `divide`, turned into messages through `Display`.
#[derive(Debug)]
enum MathError {
    DivisionByZero,
}

impl std::fmt::Display for MathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cannot divide by zero; pass a non-zero `divisor`")
    }
}

/// The quotient, as structured output.
#[derive(Serialize, JsonSchema)]
struct Quotient {
    /// The result.
    value: f64,
}

/// Divide two numbers (runs synchronously on the blocking pool).
#[tool(read_only)]
fn divide(
    /// The dividend.
    dividend: f64,
    /// The divisor; must not be zero.
    divisor: f64,
) -> Result<Json<Quotient>, MathError> {
    if divisor == 0.0 {
        return Err(MathError::DivisionByZero);
    }
    Ok(Json(Quotient {
        value: dividend / divisor,
    }))
}

/// An error type with its own conversion, which sets the kind.
struct NotAllowed(&'static str);

impl From<NotAllowed> for ToolError {
    fn from(error: NotAllowed) -> Self {
        ToolError::invalid_arguments(format!("`{}` is not allowed here", error.0))
    }
}

/// Always refuses; shows `Into<ToolError>` winning over other conversions.
#[tool]
async fn refuse() -> Result<(), NotAllowed> {
    Err(NotAllowed("anything"))
}

/// Report the time left before the deadline.
#[tool]
fn time_left(ctx: &ToolContext) -> String {
    format!("{}", ctx.remaining().is_some())
}

/// A set of file-ish tools sharing configuration.
struct Notes {
    prefix: String,
    allow_delete: bool,
}

/// Arguments of `note_read`.
#[derive(Deserialize, JsonSchema)]
struct NoteReadArgs {
    /// The note's id.
    id: u32,
}

#[toolset]
impl Notes {
    /// Read a note.
    #[tool(read_only)]
    async fn note_read(&self, args: NoteReadArgs) -> String {
        format!("{}{}", self.prefix, args.id)
    }

    /// Delete a note.
    #[tool(destructive, enabled = self.allow_delete)]
    async fn note_delete(&self, ctx: &ToolContext, id: u32) -> String {
        format!("deleted {id} in {}", ctx.call_id())
    }

    /// Count notes (synchronous).
    #[tool(name = "note_count")]
    fn count(&self) -> String {
        self.prefix.len().to_string()
    }

    /// Compiled out, and with it everything generated for it: its argument type exists
    /// only under the same condition.
    #[tool]
    #[cfg(not(test))]
    async fn note_archive(&self, args: ArchiveArgs) -> String {
        args.0
    }

    /// Compiled in under a condition that holds (this file is always a test).
    #[tool(read_only)]
    #[cfg(test)]
    async fn note_prefix(&self) -> String {
        self.prefix.clone()
    }

    /// Not a tool: helpers stay ordinary methods.
    fn helper(&self) -> usize {
        self.prefix.len()
    }
}

/// A free tool behind a condition that never holds: without `#[cfg]` on what `#[tool]`
/// generates, its missing argument type would not compile.
#[tool]
#[cfg(not(test))]
async fn archive_all(args: ArchiveArgs) -> String {
    args.0
}

async fn call(registry: &ToolRegistry, name: &str, arguments: Value) -> agent_tools::ToolResult {
    registry.call(ToolCall::new("call_7", name, arguments)).await
}

#[tokio::test]
async fn a_free_async_tool_with_an_argument_struct() {
    let registry = ToolRegistry::new();
    registry.register(GreetTool).unwrap();
    let spec = GreetTool.spec().clone();
    assert_eq!(spec.meta.name, "greet");
    assert_eq!(
        spec.meta.description,
        "Greet someone by name.\n\nReturns the greeting."
    );
    assert_eq!(spec.meta.annotations.title.as_deref(), Some("Greeter"));
    assert_eq!(spec.meta.annotations.read_only, Some(true));
    assert_eq!(spec.meta.annotations.idempotent, Some(true));
    assert_eq!(spec.meta.annotations.destructive, None);
    assert_eq!(
        spec.input_schema["properties"]["name"]["description"],
        "Who to greet."
    );

    let result = call(&registry, "greet", json!({"name": "Ada", "excitement": 3})).await;
    assert_eq!(result.text(), "Hello, Ada!!!");
    let result = call(&registry, "greet", json!({"name": "Ada", "excitement": 9})).await;
    assert_eq!(
        result.text(),
        "invalid arguments for `greet`:\n- `/excitement`: 9 is greater than the maximum of 5"
    );
}

#[tokio::test]
async fn plain_parameters_state_and_context() {
    let registry = ToolRegistry::new();
    let counter = Counter {
        value: AtomicU64::new(10),
    };
    registry.register(BumpCounterTool::new(counter)).unwrap();
    let spec = registry.get("bump").unwrap().spec().clone();
    assert_eq!(spec.meta.timeout, Some(Duration::from_secs(5)));
    assert_eq!(spec.meta.cancel_grace, Some(Duration::from_millis(1500)));
    assert_eq!(
        spec.input_schema,
        json!({
            "type": "object",
            "properties": {
                "by": {"description": "How much to add.", "type": "integer", "format": "uint64", "minimum": 0},
                "note": {"description": "An optional note, echoed back.", "type": ["string", "null"]}
            },
            "required": ["by"],
            "additionalProperties": false
        })
    );
    let result = call(&registry, "bump", json!({"by": 5, "note": "hi"})).await;
    assert_eq!(result.text(), r#"15 (call call_7, note "hi")"#);
    let result = call(&registry, "bump", json!({"by": 0})).await;
    assert_eq!(result.outcome, Outcome::InvalidArguments);
    assert_eq!(
        result.text(),
        "invalid arguments for `bump`:\n- `by` must be at least 1"
    );
}

#[tokio::test]
async fn sync_tools_run_and_convert_display_errors() {
    let registry = ToolRegistry::new();
    registry.register(DivideTool::new()).unwrap();
    let spec = registry.get("divide").unwrap().spec().clone();
    assert_eq!(
        spec.output_schema.as_ref().unwrap()["properties"]["value"]["type"],
        "number"
    );
    let result = call(&registry, "divide", json!({"dividend": 1, "divisor": 4})).await;
    assert_eq!(result.output.structured, Some(json!({"value": 0.25})));
    assert_eq!(result.text(), r#"{"value":0.25}"#);
    let result = call(&registry, "divide", json!({"dividend": 1, "divisor": 0})).await;
    assert_eq!(result.outcome, Outcome::Error);
    assert_eq!(result.text(), "cannot divide by zero; pass a non-zero `divisor`");
}

#[tokio::test]
async fn into_tool_error_conversions_are_preferred() {
    let registry = ToolRegistry::new();
    registry.register(RefuseTool).unwrap();
    let result = call(&registry, "refuse", json!({})).await;
    assert_eq!(result.outcome, Outcome::InvalidArguments);
    assert!(
        result.text().ends_with("`anything` is not allowed here"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn zero_argument_tools_have_an_empty_object_schema() {
    let registry = ToolRegistry::new();
    registry.register(TimeLeftTool).unwrap();
    let schema = registry.get("time_left").unwrap().spec().input_schema.clone();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"], json!({}));
    assert_eq!(call(&registry, "time_left", json!({})).await.text(), "true");
    let result = call(&registry, "time_left", json!({"x": 1})).await;
    assert_eq!(
        result.text(),
        "invalid arguments for `time_left`:\n- unknown property `x` (no properties are accepted here)"
    );
}

#[tokio::test]
async fn toolsets_share_state_and_honor_enabled() {
    let notes = Arc::new(Notes {
        prefix: "note-".into(),
        allow_delete: false,
    });
    assert_eq!(notes.helper(), 5);
    let registry = ToolRegistry::new();
    let names = notes.clone().register_all(&registry).unwrap();
    assert_eq!(names, vec!["note_read", "note_count", "note_prefix"]);
    assert_eq!(
        call(&registry, "note_read", json!({"id": 3})).await.text(),
        "note-3"
    );
    assert_eq!(call(&registry, "note_count", json!({})).await.text(), "5");
    assert_eq!(
        call(&registry, "note_delete", json!({"id": 3})).await.outcome,
        Outcome::UnknownTool
    );

    let permissive = ToolRegistry::new();
    Arc::new(Notes {
        prefix: String::new(),
        allow_delete: true,
    })
    .register_all(&permissive)
    .unwrap();
    assert_eq!(
        permissive.names(),
        vec!["note_read", "note_delete", "note_count", "note_prefix"]
    );
    let delete = permissive.get("note_delete").unwrap();
    assert_eq!(delete.spec().meta.annotations.destructive, Some(true));
    let result = call(&permissive, "note_delete", json!({"id": 4})).await;
    assert_eq!(result.text(), "deleted 4 in call_7");
    assert!(notes.register_all(&permissive).is_err(), "names are taken");
}

#[tokio::test]
async fn definitions_come_from_the_macros() {
    let registry = ToolRegistry::new();
    registry.register(GreetTool).unwrap();
    registry.register(DivideTool).unwrap();
    let definitions = registry.definitions(Dialect::OpenAiChat);
    assert_eq!(
        definitions[1],
        json!({
            "type": "function",
            "function": {
                "name": "divide",
                "description": "Divide two numbers (runs synchronously on the blocking pool).",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "dividend": {"description": "The dividend.", "type": "number"},
                        "divisor": {"description": "The divisor; must not be zero.", "type": "number"}
                    },
                    "required": ["dividend", "divisor"],
                    "additionalProperties": false
                },
                "strict": true
            }
        })
    );
    // Not strict: the canonical schema as generated.
    let loose = registry.definitions_with(DefinitionOptions::new(Dialect::OpenAiChat).strict(Strict::Never));
    assert_eq!(
        loose[1]["function"]["parameters"]["properties"]["divisor"]["format"],
        "double"
    );
    assert!(loose[1]["function"].get("strict").is_none());
}

/// A place on a grid (a type with a schema of its own, kept in `$defs`).
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // read through `Debug`
struct Point {
    /// Column.
    x: i32,
    /// Row.
    y: i32,
}

/// How to draw.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Pen {
    /// Thin.
    Fine,
    /// Thick.
    Bold,
}

/// Draw a point (plain parameters).
#[tool]
async fn draw_plain(
    /// Where.
    at: Point,
    /// Labels.
    labels: Option<Vec<String>>,
    /// The pen.
    pen: Option<Pen>,
    /// Also here.
    also: std::option::Option<Point>,
) -> String {
    format!("{at:?} {labels:?} {pen:?} {also:?}")
}

/// Arguments of `draw_struct`: the same as `draw_plain`'s.
#[derive(Deserialize, JsonSchema)]
struct DrawArgs {
    /// Where.
    at: Point,
    /// Labels.
    labels: Option<Vec<String>>,
    /// The pen.
    pen: Option<Pen>,
    /// Also here.
    also: std::option::Option<Point>,
}

/// Draw a point (an argument struct).
#[tool]
async fn draw_struct(args: DrawArgs) -> String {
    let DrawArgs {
        at,
        labels,
        pen,
        also,
    } = args;
    format!("{at:?} {labels:?} {pen:?} {also:?}")
}

#[tokio::test]
async fn plain_parameters_are_described_and_read_as_an_argument_struct_is() {
    let registry = ToolRegistry::new();
    registry.register(DrawPlainTool).unwrap();
    registry.register(DrawStructTool).unwrap();
    let schema = |name: &str| registry.get(name).unwrap().spec().input_schema.clone();
    assert_eq!(schema("draw_plain"), schema("draw_struct"));
    assert!(
        schema("draw_plain")["$defs"]["Point"].is_object(),
        "{}",
        schema("draw_plain")
    );
    for arguments in [
        json!({"at": {"x": 1, "y": 2}}),
        json!({"at": {"x": 1, "y": 2}, "labels": null, "pen": "bold", "also": {"x": 0, "y": 0}}),
        json!({"at": {"x": 1, "y": 2}, "labels": ["a"], "pen": null}),
    ] {
        let plain = call(&registry, "draw_plain", arguments.clone()).await;
        let structured = call(&registry, "draw_struct", arguments).await;
        assert_eq!(plain.outcome, Outcome::Ok, "{}", plain.text());
        assert_eq!(plain.text(), structured.text());
    }
    let missing = call(&registry, "draw_plain", json!({"pen": "wide"})).await;
    assert_eq!(
        missing.text(),
        "invalid arguments for `draw_plain`:\n- `/pen`: \"wide\" is not one of: \"fine\", \"bold\"\n- `/at`: required property is missing"
    );
}
