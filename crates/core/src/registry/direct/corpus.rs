//! Tools whose arguments take the direct path, for its tests: each answers with exactly
//! what it received (`Debug`, which tells `-0.0` from `0.0`), so two calls that answer
//! alike ran the tool on the same arguments.

use agent_tools_macros::tool;

/// Repeat text.
#[tool]
pub(super) async fn text(message: String, note: Option<String>) -> String {
    format!("{:?}", (message, note))
}

/// Numbers at and beyond their types' bounds.
#[tool]
#[allow(clippy::too_many_arguments)]
pub(super) async fn numbers(
    small: u8,
    count: u32,
    big: u64,
    delta: i8,
    offset: i64,
    ratio: f64,
    weight: f32,
    size: usize,
) -> String {
    format!("{:?}", (small, count, big, delta, offset, ratio, weight, size))
}

/// Flags, lists and optional values.
#[tool]
pub(super) async fn lists(on: bool, tags: Vec<String>, ids: Option<Vec<u16>>, level: Option<i32>) -> String {
    format!("{:?}", (on, tags, ids, level))
}

/// No arguments at all.
#[tool]
pub(super) async fn nothing() -> String {
    "nothing".to_owned()
}

/// A plain function, not `async`: run on the blocking pool.
#[tool]
pub(super) fn blocking(count: i16) -> String {
    format!("{count:?}")
}

/// The names each corpus tool takes, for generating arguments.
pub(super) const TOOLS: &[(&str, &[&str])] = &[
    ("text", &["message", "note"]),
    (
        "numbers",
        &[
            "small", "count", "big", "delta", "offset", "ratio", "weight", "size",
        ],
    ),
    ("lists", &["on", "tags", "ids", "level"]),
    ("nothing", &[]),
    ("blocking", &["count"]),
];

/// A registry of every corpus tool, from `builder`.
pub(super) fn registry(builder: crate::registry::ToolRegistryBuilder) -> crate::ToolRegistry {
    let registry = builder.build();
    registry.register(TextTool).unwrap();
    registry.register(NumbersTool).unwrap();
    registry.register(ListsTool).unwrap();
    registry.register(NothingTool).unwrap();
    registry.register(BlockingTool).unwrap();
    registry
}
