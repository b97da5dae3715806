//! The text of an MCP tool result, as the tests and benches compare it. It takes any
//! serializable result (rmcp's `CallToolResult` serializes to MCP's own JSON), so this
//! crate needs no MCP library of its own.

use serde_json::Value;

/// The result's text parts, one per line; nothing for a value that is not a tool result.
pub fn text(result: &impl serde::Serialize) -> String {
    let Ok(result) = serde_json::to_value(result) else {
        return String::new();
    };
    let texts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|part| part.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect();
    texts.join("\n")
}
