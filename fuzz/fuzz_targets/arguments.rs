//! Argument parsing, validation and deserialization on arbitrary input.
//!
//! Three `#[tool]`s whose arguments have nested structs, enums (unit, externally tagged
//! data, internally tagged, untagged), `Option`s, `#[serde(default)]`, `Vec`s, maps,
//! recursion and integer bounds. The input's first byte picks the tool; the rest is the
//! argument text, sent as text and, when it parses, as a JSON value.
//!
//! Checked:
//! - the call never panics and its outcome is never `Panicked`;
//! - `Ok` only when the arguments (after the registry's documented repairs: empty or
//!   `null` → `{}`, a string holding an object → that object, and optional `null`s
//!   dropped) are valid under the tool's canonical schema, judged by a separately
//!   compiled `jsonschema` validator;
//! - arguments invalid under the schema come back as `InvalidArguments` with a message
//!   that lists at least one problem; valid ones are either `Ok` or (where serde is
//!   stricter than the schema) `InvalidArguments` with a message, never anything else.

#![no_main]
// The argument types exist to be deserialized; the tools only print them.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use agent_tools::validation::ArgValidator;
use agent_tools::{ToolCall, ToolRegistry, tool, audit::Outcome, registry::ToolArguments, tool::ToolSpec};
use libfuzzer_sys::fuzz_target;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// A point on a grid.
#[derive(Debug, Deserialize, JsonSchema)]
struct Point {
    /// Horizontal.
    x: i32,
    /// Vertical.
    y: i32,
}

/// How fast.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Slow,
}

/// A shape, externally tagged (unit and data variants).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Shape {
    Empty,
    Circle { center: Point, radius: f64 },
    Square(f64),
    Polygon(Vec<Point>),
}

/// An operation, internally tagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Op {
    Move { to: Point, mode: Option<Mode> },
    Scale { factor: f32 },
    Reset,
}

/// A target, untagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Target {
    Line(u32),
    Range { start: u32, end: u32 },
    Pattern(String),
}

/// A node of a tree (recursive).
#[derive(Debug, Deserialize, JsonSchema)]
struct Node {
    name: String,
    #[serde(default)]
    children: Vec<Node>,
}

/// Arguments of `draw`.
#[derive(Debug, Deserialize, JsonSchema)]
struct DrawArgs {
    /// What to draw.
    shape: Shape,
    /// Where.
    origin: Option<Point>,
    /// How many times, 1 to 10.
    #[schemars(range(min = 1, max = 10))]
    times: Option<u8>,
    /// Named colors.
    colors: Option<BTreeMap<String, u8>>,
    /// Operations applied first.
    #[serde(default)]
    ops: Vec<Op>,
    mode: Mode,
}

/// Arguments of `select`.
#[derive(Debug, Deserialize, JsonSchema)]
struct SelectArgs {
    target: Target,
    /// Lines of context, at most 50.
    #[serde(default)]
    #[schemars(range(max = 50))]
    context: u16,
    /// Signed offset.
    offset: Option<i8>,
    labels: HashMap<String, Vec<String>>,
    #[schemars(length(min = 1, max = 8))]
    tag: Option<String>,
}

/// Arguments of `plant`.
#[derive(Debug, Deserialize, JsonSchema)]
struct PlantArgs {
    root: Node,
    depth: Option<u64>,
    weights: Option<Vec<Option<f64>>>,
    pair: Option<(bool, i16)>,
    #[serde(default)]
    flag: bool,
}

/// Draw a shape.
#[tool]
async fn draw(args: DrawArgs) -> String {
    format!("{args:?}")
}

/// Select a target.
#[tool]
async fn select(args: SelectArgs) -> String {
    format!("{args:?}")
}

/// Plant a tree.
#[tool]
async fn plant(args: PlantArgs) -> String {
    format!("{args:?}")
}

struct Fixture {
    runtime: tokio::runtime::Runtime,
    registry: ToolRegistry,
    /// Per tool: its name, an independent validator of its canonical schema, and the
    /// library's validator (only for dropping optional `null`s, a documented step).
    tools: Vec<(String, jsonschema::Validator, ArgValidator)>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let registry = ToolRegistry::new();
        registry.register(DrawTool).unwrap();
        registry.register(SelectTool).unwrap();
        registry.register(PlantTool).unwrap();
        let tools = registry
            .tools()
            .iter()
            .map(|tool| {
                let spec: &ToolSpec = tool.spec();
                let independent = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .should_validate_formats(true)
                    .should_ignore_unknown_formats(true)
                    .build(&spec.input_schema)
                    .unwrap();
                let library = ArgValidator::new(&spec.input_schema).unwrap();
                (spec.meta.name.clone(), independent, library)
            })
            .collect();
        Fixture {
            runtime,
            registry,
            tools,
        }
    })
}

/// The value the registry validates, per its documented repairs; `None` when the
/// arguments cannot be made into an object.
fn repaired(arguments: &ToolArguments) -> Option<Value> {
    let value = match arguments {
        ToolArguments::Json(text) if text.trim().is_empty() => {
            return Some(Value::Object(Default::default()));
        }
        ToolArguments::Json(text) => serde_json::from_str::<Value>(text).ok()?,
        ToolArguments::Value(value) => value.clone(),
        // The fixture's tools have no freeform form: such a call is refused.
        ToolArguments::Freeform(_) => return None,
        _ => return None,
    };
    match value {
        Value::Object(_) => Some(value),
        Value::Null => Some(Value::Object(Default::default())),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(inner @ Value::Object(_)) => Some(inner),
            _ => None,
        },
        _ => None,
    }
}

fn check(fixture: &Fixture, tool: usize, arguments: ToolArguments) {
    let (name, independent, library) = &fixture.tools[tool];
    let expected = repaired(&arguments).map(|mut value| {
        library.drop_optional_nulls(&mut value);
        let valid = independent.is_valid(&value);
        (value, valid)
    });
    let call = ToolCall::new("fuzz", name.as_str(), arguments.clone());
    let result = fixture.runtime.block_on(fixture.registry.call(call));
    let text = result.text();
    assert_ne!(
        result.outcome,
        Outcome::Panicked,
        "{name} panicked on {arguments:?}: {text}"
    );
    match (&expected, result.outcome) {
        (Some((_, true)), Outcome::Ok) => {}
        (Some((value, false)), Outcome::Ok) => {
            panic!("{name} accepted arguments its schema rejects: {value} (sent {arguments:?})")
        }
        (None, Outcome::Ok) => panic!("{name} accepted arguments that are not an object: {arguments:?}"),
        (None, Outcome::InvalidArguments) => {
            assert!(
                text.starts_with(&format!("the arguments for `{name}` ")),
                "unexpected message for {arguments:?}: {text}"
            );
        }
        (Some((value, valid)), Outcome::InvalidArguments) => {
            let header = format!("invalid arguments for `{name}`:\n- ");
            assert!(
                text.starts_with(&header) && text.len() > header.len(),
                "no problems listed for {value} (valid: {valid}): {text}"
            );
        }
        (_, outcome) => panic!("{name}: unexpected outcome {outcome:?} for {arguments:?}: {text}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let fixture = fixture();
    let tool = usize::from(selector) % fixture.tools.len();
    check(fixture, tool, ToolArguments::Json(text.to_owned()));
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        check(fixture, tool, ToolArguments::Value(value));
    }
});
