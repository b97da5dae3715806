//! Tools between our types and MCP's wire shapes: `tools/list` definitions, `tools/call`
//! results, and the content blocks they (and sampling messages) carry.
//!
//! Both directions go through JSON: our side already renders MCP's shapes
//! ([`Dialect::Mcp`]), and reading a remote result as JSON keeps us independent of how
//! rmcp models each content variant. The one exception is the commonest result, plain
//! text parts without annotations, built directly: under load the JSON detour cost a
//! served call as much as dispatching it.

use agent_tools_core::{
    Dialect, ToolOutput, ToolResult,
    output::{Content, ContentAnnotations, ResourceContents},
    tool::ToolSpec,
};
use rmcp::model::{CallToolResult, ResultType, Tool as McpTool};
use serde_json::{Map, Value};

/// The `tools/list` entry for one of our tools, from its cached MCP definition.
pub(crate) fn tool_definition(definition: Value) -> Result<McpTool, serde_json::Error> {
    serde_json::from_value(definition)
}

/// The `tools/call` result for one of our calls.
///
/// Marked `resultType: "complete"`, which 2026-07-28 requires of every result (clients of
/// that revision refuse a result without it). Read from JSON, the field would be absent;
/// rmcp removes it again for clients of older revisions, whose results never had it.
pub(crate) fn call_result(result: &ToolResult) -> Result<CallToolResult, serde_json::Error> {
    if let Some(text_only) = text_call_result(&result.output) {
        return Ok(text_only);
    }
    let mut result: CallToolResult = serde_json::from_value(Dialect::Mcp.tool_result(result))?;
    result.result_type = Some(ResultType::COMPLETE);
    Ok(result)
}

/// [`call_result`] of an output whose parts are all plain text without annotations,
/// built without going through JSON; `None` for any other output. Gives what the JSON
/// route gives (`text_results_are_built_as_json_would_build_them`).
fn text_call_result(output: &ToolOutput) -> Option<CallToolResult> {
    let content = output
        .content
        .iter()
        .map(|part| match part {
            Content::Text {
                text,
                annotations: None,
            } => Some(rmcp::model::ContentBlock::text(text.clone())),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let mut result = match output.is_error {
        true => CallToolResult::error(content),
        false => CallToolResult::success(content),
    };
    result.structured_content = output.structured.clone().filter(Value::is_object);
    Some(result)
}

/// [`call_result`] for a client on MCP 2026-07-28, whose `structuredContent` may be any
/// JSON value: a tool's structured output that is not an object (an array, a number)
/// goes there too, where earlier revisions only get it as text.
pub(crate) fn call_result_2026(result: &ToolResult) -> Result<CallToolResult, serde_json::Error> {
    let mut encoded = call_result(result)?;
    if let Some(structured) = result
        .output
        .structured
        .as_ref()
        .filter(|value| !value.is_object())
    {
        encoded.structured_content = Some(structured.clone());
    }
    Ok(encoded)
}

/// Whether `schema` marks a property `x-mcp-header` along a chain of `properties` from its
/// root (where MCP clients look for them): a mounted server's tool may carry its own.
pub(crate) fn marks_headers(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| {
            properties
                .values()
                .any(|property| property.get("x-mcp-header").is_some() || marks_headers(property))
        })
}

/// The output schema a 2026-07-28 definition of `spec` carries where earlier revisions'
/// carry none: a schema of a value that is not an object, which only 2026-07-28 allows.
pub(crate) fn output_schema_2026(spec: &ToolSpec) -> Option<std::sync::Arc<rmcp::model::JsonObject>> {
    let schema = spec.output_schema.as_ref()?.as_object()?;
    let describes_object = schema.get("type").and_then(Value::as_str) == Some("object");
    (!describes_object).then(|| std::sync::Arc::new(schema.clone()))
}

/// A remote `CallToolResult` as our output: every kind of part MCP has, with its
/// annotations. A part of a kind MCP may add later becomes a text part describing it,
/// so nothing is silently lost.
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
    let content = match part.get("type").and_then(Value::as_str) {
        Some("text") => Content::text(string(part, "text").unwrap_or_default()),
        Some("image") => Content::Image {
            mime_type: mime_type(part),
            data: string(part, "data").unwrap_or_default(),
            annotations: None,
        },
        Some("audio") => Content::Audio {
            mime_type: mime_type(part),
            data: string(part, "data").unwrap_or_default(),
            annotations: None,
        },
        Some("resource") => resource(part.get("resource").and_then(Value::as_object)),
        Some("resource_link") => Content::ResourceLink {
            uri: string(part, "uri").unwrap_or_default(),
            name: string(part, "name").unwrap_or_default(),
            title: string(part, "title"),
            description: string(part, "description"),
            mime_type: string(part, "mimeType"),
            size: part.get("size").and_then(Value::as_u64),
            annotations: None,
        },
        Some(other) => {
            let mime = string(part, "mimeType")
                .map(|mime| format!(" ({mime})"))
                .unwrap_or_default();
            Content::text(format!("[{other} content{mime} not shown]"))
        }
        None => Content::text(part.to_string()),
    };
    match annotations(part) {
        Some(annotations) => content.with_annotations(annotations),
        None => content,
    }
}

fn string(object: &Value, name: &str) -> Option<String> {
    object.get(name).and_then(Value::as_str).map(str::to_owned)
}

fn mime_type(part: &Value) -> String {
    string(part, "mimeType").unwrap_or_else(|| "application/octet-stream".to_owned())
}

/// A part's annotations; ours read MCP's camelCase too. Annotations that do not parse
/// are dropped rather than the part: they are hints, the part is the content.
fn annotations(part: &Value) -> Option<ContentAnnotations> {
    let annotations = part.get("annotations")?;
    let mut annotations: ContentAnnotations = serde_json::from_value(annotations.clone()).ok()?;
    // Exact: the value came from rmcp's `f32`.
    annotations.priority = annotations.priority.map(|priority| f32_as_sent(priority as f32));
    Some(annotations)
}

/// A number rmcp holds as `f32` (a priority, a temperature) as the peer wrote it.
///
/// Widened as it is, `0.8` becomes `0.800000011920929`, and a peer down the line would
/// receive that; the shortest decimal that is the same `f32` is what was sent.
pub(crate) fn f32_as_sent(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::from(value))
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
            contents: ResourceContents::Blob(blob),
            annotations: None,
        },
        (None, None) => Content::text(format!("[empty resource {uri}]")),
    }
}

#[cfg(test)]
mod tests {
    use agent_tools_core::output::Audience;
    use serde_json::json;

    use super::*;

    #[test]
    fn header_marks_are_found_along_properties_only() {
        assert!(!marks_headers(
            &json!({"type": "object", "properties": {"a": {"type": "string"}}})
        ));
        assert!(marks_headers(
            &json!({"properties": {"a": {"type": "string", "x-mcp-header": "A"}}})
        ));
        assert!(marks_headers(
            &json!({"properties": {"outer": {"properties": {"b": {"x-mcp-header": "B"}}}}})
        ));
        // Not where clients look for them.
        assert!(!marks_headers(&json!({"$defs": {"a": {"x-mcp-header": "A"}}})));
    }

    #[test]
    fn remote_results_keep_every_part() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "hello", "annotations": {"audience": ["user"], "priority": 0.5}},
                {"type": "image", "mimeType": "image/png", "data": "iVBO"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "A"},
                    "annotations": {"lastModified": "2025-01-12T15:00:58Z"}},
                {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAEC"}},
                {"type": "audio", "mimeType": "audio/wav", "data": "UklG",
                    "annotations": {"audience": ["assistant", "user"]}},
                {"type": "resource_link", "uri": "file:///c.txt", "name": "c"},
                {"type": "resource_link", "uri": "file:///d.pdf", "name": "d.pdf", "title": "D",
                    "description": "The D report.", "mimeType": "application/pdf", "size": 4096,
                    "annotations": {"priority": 1.0}}
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
                Content::text("hello")
                    .with_annotations(ContentAnnotations::new().audience([Audience::User]).priority(0.5)),
                Content::Image {
                    mime_type: "image/png".into(),
                    data: "iVBO".into(),
                    annotations: None
                },
                Content::text_resource("file:///a.txt", Some("text/plain".into()), "A")
                    .with_annotations(ContentAnnotations::new().last_modified("2025-01-12T15:00:58Z")),
                Content::Resource {
                    uri: "file:///b.bin".into(),
                    mime_type: None,
                    contents: ResourceContents::Blob("AAEC".into()),
                    annotations: None
                },
                Content::Audio {
                    mime_type: "audio/wav".into(),
                    data: "UklG".into(),
                    annotations: Some(
                        ContentAnnotations::new().audience([Audience::Assistant, Audience::User])
                    )
                },
                Content::resource_link("file:///c.txt", "c"),
                Content::ResourceLink {
                    uri: "file:///d.pdf".into(),
                    name: "d.pdf".into(),
                    title: Some("D".into()),
                    description: Some("The D report.".into()),
                    mime_type: Some("application/pdf".into()),
                    size: Some(4096),
                    annotations: Some(ContentAnnotations::new().priority(1.0))
                },
            ]
        );
    }

    #[test]
    fn our_results_carry_every_part_to_mcp_and_back() {
        let annotations = ContentAnnotations::new()
            .audience([Audience::User])
            .priority(0.8)
            .last_modified("2025-01-12T15:00:58Z");
        let output = ToolOutput::text("see attached")
            .with_content(Content::Image {
                mime_type: "image/png".into(),
                data: "iVBO".into(),
                annotations: None,
            })
            .with_content(Content::text_resource(
                "file:///notes.md",
                Some("text/markdown".into()),
                "# N",
            ))
            .with_content(
                Content::blob_resource("file:///a.bin", None, &[0, 1, 2])
                    .with_annotations(annotations.clone()),
            )
            .with_content(
                Content::from(agent_tools_core::output::Audio::wav(vec![1, 2, 3]))
                    .with_annotations(annotations.clone()),
            )
            .with_content(Content::ResourceLink {
                uri: "https://example.com/q3.pdf".into(),
                name: "q3.pdf".into(),
                title: Some("Q3".into()),
                description: Some("Numbers.".into()),
                mime_type: Some("application/pdf".into()),
                size: Some(1 << 33),
                annotations: Some(annotations),
            })
            .with_structured(json!({"count": 3}));
        let result = agent_tools_core::ToolResult::new("1", "t", output.clone());
        let mcp = call_result(&result).unwrap();
        assert_eq!(mcp.content.len(), 6);
        assert_eq!(mcp.is_error, Some(false));
        assert_eq!(mcp.structured_content, Some(json!({"count": 3})));
        // rmcp reads them as its own kinds, annotations included (priority is an f32 there).
        let audio = mcp.content[4].as_audio().unwrap();
        assert_eq!(
            (audio.mime_type.as_str(), audio.data.as_str()),
            ("audio/wav", "AQID")
        );
        let audio_annotations = audio.annotations.as_ref().unwrap();
        assert_eq!(audio_annotations.audience, Some(vec![rmcp::model::Role::User]));
        assert_eq!(audio_annotations.priority, Some(0.8));
        assert_eq!(
            audio_annotations.last_modified.as_deref(),
            Some("2025-01-12T15:00:58Z")
        );
        let link = mcp.content[5].as_resource_link().unwrap();
        assert_eq!((link.name.as_str(), link.size), ("q3.pdf", Some(1 << 33)));
        assert_eq!(link.description.as_deref(), Some("Numbers."));
        // And back: nothing lost on the round trip.
        assert_eq!(tool_output(&mcp), output);
    }

    #[test]
    fn unknown_kinds_are_described_and_bad_annotations_dropped() {
        let parts = [
            json!({"type": "video", "mimeType": "video/mp4", "data": "AAAA"}),
            json!({"type": "text", "text": "kept", "annotations": {"priority": "high"}}),
        ];
        assert_eq!(
            content_part(&parts[0]),
            Content::text("[video content (video/mp4) not shown]")
        );
        assert_eq!(content_part(&parts[1]), Content::text("kept"));
    }

    #[test]
    fn our_results_and_definitions_are_valid_mcp() {
        let spec = agent_tools_core::tool::ToolMeta::new("echo", "Echo.")
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

    #[test]
    fn text_results_are_built_as_json_would_build_them() {
        let outputs = [
            ToolOutput::text("hello \u{1F600} \"quoted\"\n"),
            ToolOutput::error("the file does not exist"),
            ToolOutput::text("first")
                .with_content(Content::text("second"))
                .with_structured(json!({"count": 2})),
            // A structured value that is not an object goes only into 2026-07-28 results.
            ToolOutput::text("[1,2]").with_structured(json!([1, 2])),
            ToolOutput::text(""),
        ];
        for output in outputs {
            let direct = text_call_result(&output).expect("plain text parts");
            let result = agent_tools_core::ToolResult::new("1", "t", output);
            let mut through_json: CallToolResult =
                serde_json::from_value(Dialect::Mcp.tool_result(&result)).unwrap();
            through_json.result_type = Some(ResultType::COMPLETE);
            assert_eq!(
                serde_json::to_value(&direct).unwrap(),
                serde_json::to_value(&through_json).unwrap()
            );
        }
        let annotated = ToolOutput::default().with_content(
            Content::text("note").with_annotations(ContentAnnotations::new().audience([Audience::User])),
        );
        assert!(
            text_call_result(&annotated).is_none(),
            "annotations go through JSON"
        );
    }
}
