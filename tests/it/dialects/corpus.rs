//! Argument types covering what schemars generates: primitives, options, collections,
//! nested and recursive structs, every enum representation, maps, bounds, validation
//! attributes, docs, renames and defaults. Each is the argument of a `#[tool]` that
//! returns its arguments' `Debug` form, so a test can see exactly what was deserialized.

// The fields are read through `Debug`, which dead-code analysis ignores.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap};

use agent_tools::{ToolRegistry, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// A point.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Point {
    /// Horizontal.
    pub x: i32,
    /// Vertical.
    pub y: i32,
}

/// Arguments of `primitives`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PrimitivesArgs {
    /// Some text.
    text: String,
    flag: bool,
    count: i32,
    ratio: f64,
    letter: char,
}

/// Every primitive type.
#[tool]
async fn primitives(args: PrimitivesArgs) -> String {
    format!("{args:?}")
}

/// How fast.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Mode {
    /// As fast as possible.
    #[default]
    Fast,
    /// Carefully.
    Slow,
}

/// Arguments of `optionals`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct OptionalsArgs {
    /// Required.
    path: String,
    /// An optional string.
    name: Option<String>,
    /// An optional bounded number.
    limit: Option<u32>,
    /// An optional struct.
    origin: Option<Point>,
    /// An optional enum.
    mode: Option<Mode>,
    /// Defaults to zero.
    #[serde(default)]
    retries: u8,
    /// Defaults to a list.
    #[serde(default = "default_tags")]
    tags: Vec<String>,
}

fn default_tags() -> Vec<String> {
    vec!["a".to_owned()]
}

/// Optional fields of every kind.
#[tool]
async fn optionals(args: OptionalsArgs) -> String {
    format!("{args:?}")
}

/// Arguments of `collections`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CollectionsArgs {
    tags: Vec<String>,
    points: Vec<Point>,
    matrix: Vec<Vec<i64>>,
    /// A set: unique items.
    unique: BTreeSet<String>,
    pair: (String, u16),
}

/// Lists, sets and tuples.
#[tool]
async fn collections(args: CollectionsArgs) -> String {
    format!("{args:?}")
}

/// A rectangle.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Rect {
    /// Top-left corner.
    min: Point,
    /// Bottom-right corner.
    max: Point,
}

/// Arguments of `nested`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct NestedArgs {
    /// Where to start.
    origin: Point,
    /// The area.
    area: Rect,
}

/// Structs within structs.
#[tool]
async fn nested(args: NestedArgs) -> String {
    format!("{args:?}")
}

/// A shape, externally tagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Shape {
    /// Nothing.
    Empty,
    /// A circle.
    Circle {
        /// Its radius.
        radius: f64,
    },
    /// A square of this side.
    Square(f64),
}

/// A command, adjacently tagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub(crate) enum Command {
    /// Say something.
    Say(String),
    /// Wait this many seconds.
    Wait(u32),
    /// Stop.
    Stop,
}

/// A target, untagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Target {
    /// A line number.
    Line(u32),
    /// A range of lines.
    Range {
        /// First line.
        start: u32,
        /// Last line.
        end: u32,
    },
    /// A pattern.
    Pattern(String),
}

/// Arguments of `enums`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct EnumsArgs {
    /// Unit variants.
    mode: Mode,
    shape: Shape,
    command: Command,
    target: Target,
}

/// Enums in every serde representation.
#[tool]
async fn enums(args: EnumsArgs) -> String {
    format!("{args:?}")
}

/// An edit, internally tagged: the arguments themselves are an enum.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum EditArgs {
    /// Replace text.
    Replace {
        /// The text to find.
        old: String,
        /// The text to put instead.
        new: String,
        /// Replace every occurrence.
        #[serde(default)]
        all: bool,
    },
    /// Delete a line.
    Delete {
        /// The line, 1-based.
        line: u32,
    },
}

/// Edit a file.
#[tool]
async fn edit(args: EditArgs) -> String {
    format!("{args:?}")
}

/// Arguments of `maps`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct MapsArgs {
    /// Environment variables.
    env: HashMap<String, String>,
    weights: BTreeMap<String, f64>,
}

/// Maps with free-form keys.
#[tool]
async fn maps(args: MapsArgs) -> String {
    format!("{args:?}")
}

/// A node of a tree.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Node {
    /// Its name.
    name: String,
    /// Its children.
    children: Vec<Node>,
}

/// Arguments of `tree`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct TreeArgs {
    /// The root.
    root: Node,
}

/// A recursive type.
#[tool]
async fn tree(args: TreeArgs) -> String {
    format!("{args:?}")
}

/// Arguments of `bounds`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BoundsArgs {
    small: u8,
    medium: u32,
    big: i64,
    signed_small: i8,
    /// A number from a fixed set.
    #[schemars(extend("enum" = [1, 2, 4, 8]))]
    lanes: u8,
}

/// Integer types and their ranges.
#[tool]
async fn bounds(args: BoundsArgs) -> String {
    format!("{args:?}")
}

/// Arguments of `constrained`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ConstrainedArgs {
    /// How many.
    #[schemars(range(min = 1, max = 10))]
    count: u32,
    /// A name.
    #[schemars(length(min = 1, max = 40))]
    name: String,
    /// A slug.
    #[schemars(regex(pattern = r"^[a-z0-9-]+$"))]
    slug: String,
    /// At least two.
    #[schemars(length(min = 2))]
    items: Vec<String>,
    /// Where to write.
    #[schemars(email)]
    email: String,
    /// Where to look.
    #[schemars(url)]
    homepage: Option<String>,
}

/// Validation attributes.
#[tool]
async fn constrained(args: ConstrainedArgs) -> String {
    format!("{args:?}")
}

/// Arguments of `renamed`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RenamedArgs {
    /// The file's name.
    file_name: String,
    /// Print more.
    #[serde(default)]
    verbose_output: bool,
    /// Called `type` in JSON.
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// Renamed fields and defaults.
#[tool]
async fn renamed(args: RenamedArgs) -> String {
    format!("{args:?}")
}

/// Arguments of `free_form`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct FreeFormArgs {
    /// Any JSON value.
    data: serde_json::Value,
}

/// A field that takes any JSON.
#[tool]
async fn free_form(args: FreeFormArgs) -> String {
    format!("{args:?}")
}

/// Arguments of `lookup`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct LookupArgs {
    /// What to look up.
    query: String,
    /// At most this many results.
    #[schemars(range(max = 50))]
    limit: Option<u8>,
}

/// A tool that asks for strict definitions.
#[tool(strict)]
async fn lookup(args: LookupArgs) -> String {
    format!("{args:?}")
}

/// Take no arguments.
#[tool]
async fn no_arguments() -> String {
    "done".to_owned()
}

/// Every corpus tool, in a stable order.
pub(crate) fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    let result = (|| {
        registry.register(PrimitivesTool)?;
        registry.register(OptionalsTool)?;
        registry.register(CollectionsTool)?;
        registry.register(NestedTool)?;
        registry.register(EnumsTool)?;
        registry.register(EditTool)?;
        registry.register(MapsTool)?;
        registry.register(TreeTool)?;
        registry.register(BoundsTool)?;
        registry.register(ConstrainedTool)?;
        registry.register(RenamedTool)?;
        registry.register(FreeFormTool)?;
        registry.register(LookupTool)?;
        registry.register(NoArgumentsTool)
    })();
    if let Err(error) = result {
        panic!("the corpus registers: {error}");
    }
    registry
}
