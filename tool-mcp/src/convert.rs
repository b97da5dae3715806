//! Between our types and MCP's wire shapes.
//!
//! Both directions go through JSON: our side already renders MCP's shapes
//! ([`Dialect::Mcp`]), and reading a remote result as JSON keeps us independent of how
//! rmcp models each content variant.

use rmcp::model::{CallToolResult, Tool as McpTool};
use serde_json::{Map, Value};
use tool_core::{Content, Dialect, ToolOutput, ToolResult};

/// The `tools/list` entry for one of our tools, from its cached MCP definition.
pub(crate) fn tool_definition(definition: Value) -> Result<McpTool, serde_json::Error> {
    serde_json::from_value(definition)
}

/// The `tools/call` result for one of our calls.
pub(crate) fn call_result(result: &ToolResult) -> Result<CallToolResult, serde_json::Error> {
    serde_json::from_value(Dialect::Mcp.tool_result(result))
}

/// A remote `CallToolResult` as our output. Content MCP has and we don't (audio,
/// resource links) becomes a text part describing it, so nothing is silently lost.
pub(crate) fn tool_output(result: &CallToolResult) -> ToolOutput {
    // Only the content goes through JSON; the structured part is taken as it is.
    let parts = serde_json::to_value(&result.content).unwrap_or(Value::Null);
    let content = parts
        .as_array()
        .map(|parts| parts.iter().map(content_part).collect())
        .unwrap_or_default();
    ToolOutput {
        content,
        structured: result.structured_content.clone(),
        is_error: result.is_error.unwrap_or(false),
    }
}

/// One MCP content block as ours.
pub(crate) fn content_part(part: &Value) -> Content {
    let field = |name: &str| part.get(name).and_then(Value::as_str).map(str::to_owned);
    match part.get("type").and_then(Value::as_str) {
        Some("text") => Content::text(field("text").unwrap_or_default()),
        Some("image") => Content::Image {
            mime_type: field("mimeType").unwrap_or_else(|| "application/octet-stream".to_owned()),
            data: field("data").unwrap_or_default(),
        },
        Some("resource") => resource(part.get("resource").and_then(Value::as_object)),
        Some("resource_link") => {
            Content::text(format!("[resource link: {}]", field("uri").unwrap_or_default()))
        }
        Some(other) => {
            let mime = field("mimeType")
                .map(|mime| format!(" ({mime})"))
                .unwrap_or_default();
            Content::text(format!("[{other} content{mime} not shown]"))
        }
        None => Content::text(part.to_string()),
    }
}

fn resource(resource: Option<&Map<String, Value>>) -> Content {
    let Some(resource) = resource else {
        return Content::text("[empty resource]");
    };
    let field = |name: &str| resource.get(name).and_then(Value::as_str).map(str::to_owned);
    let uri = field("uri").unwrap_or_default();
    let mime_type = field("mimeType");
    match (field("text"), field("blob")) {
        (Some(text), _) => Content::text_resource(uri, mime_type, text),
        (None, Some(blob)) => Content::Resource {
            uri,
            mime_type,
            contents: tool_core::ResourceContents::Blob(blob),
        },
        (None, None) => Content::text(format!("[empty resource {uri}]")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn remote_results_keep_every_part() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "mimeType": "image/png", "data": "iVBO"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "A"}},
                {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAEC"}},
                {"type": "audio", "mimeType": "audio/wav", "data": "UklG"},
                {"type": "resource_link", "uri": "file:///c.txt", "name": "c"}
            ],
            "structuredContent": {"n": 1},
            "isError": true
        }))
        .unwrap();
        let output = tool_output(&result);
        assert!(output.is_error);
        assert_eq!(output.structured, Some(json!({"n": 1})));
        assert_eq!(
            output.content,
            vec![
                Content::text("hello"),
                Content::Image {
                    mime_type: "image/png".into(),
                    data: "iVBO".into()
                },
                Content::text_resource("file:///a.txt", Some("text/plain".into()), "A"),
                Content::Resource {
                    uri: "file:///b.bin".into(),
                    mime_type: None,
                    contents: tool_core::ResourceContents::Blob("AAEC".into())
                },
                Content::text("[audio content (audio/wav) not shown]"),
                Content::text("[resource link: file:///c.txt]"),
            ]
        );
    }

    #[test]
    fn our_results_carry_every_part_to_mcp() {
        let output = ToolOutput::text("see attached")
            .with_content(Content::Image {
                mime_type: "image/png".into(),
                data: "iVBO".into(),
            })
            .with_content(Content::text_resource(
                "file:///notes.md",
                Some("text/markdown".into()),
                "# N",
            ))
            .with_content(Content::blob_resource("file:///a.bin", None, &[0, 1, 2]))
            .with_structured(json!({"count": 3}));
        let result = tool_core::ToolResult::new("1", "t", output.clone());
        let mcp = call_result(&result).unwrap();
        assert_eq!(mcp.content.len(), 4);
        assert_eq!(mcp.is_error, Some(false));
        assert_eq!(mcp.structured_content, Some(json!({"count": 3})));
        // And back: nothing lost on the round trip.
        assert_eq!(tool_output(&mcp), output);
    }

    #[test]
    fn our_results_and_definitions_are_valid_mcp() {
        let spec = tool_core::ToolMeta::new("echo", "Echo.")
            .read_only(true)
            .into_spec(
                json!({"type": "object", "properties": {"text": {"type": "string"}}}),
                None,
            );
        let definition = tool_definition(Dialect::Mcp.definition(&spec)).unwrap();
        assert_eq!(definition.name, "echo");
        assert_eq!(
            definition.annotations.as_ref().and_then(|a| a.read_only_hint),
            Some(true)
        );
    }
}
