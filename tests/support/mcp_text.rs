//! The text of an MCP tool result, as the tests and benches compare it.

use agent_tools::mcp::rmcp::model::CallToolResult;

/// The result's text parts, one per line.
pub(crate) fn text(result: &CallToolResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|part| part.as_text().map(|text| text.text.as_str()))
        .collect();
    texts.join("\n")
}
