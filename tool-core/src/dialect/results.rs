//! A tool's result in the message format of each provider.
//!
//! What each format can carry differs: OpenAI Chat tool messages are text, Responses
//! outputs and Anthropic `tool_result` blocks take images, Gemini takes a JSON `response`
//! plus inline data parts, MCP takes everything including `structuredContent`. Parts a
//! format cannot carry are named in the text, so the model knows something was there.

use serde_json::{Map, Value, json};

use super::Dialect;
use crate::{Content, ResourceContents, ToolOutput, ToolResult};

impl Dialect {
    /// The result of a call as this provider expects it in the next request:
    ///
    /// - OpenAI Chat: `{"role":"tool","tool_call_id","content"}` (text);
    /// - OpenAI Responses: `{"type":"function_call_output","call_id","output"}` (text, or
    ///   `input_text`/`input_image` parts when there are images);
    /// - Anthropic: a `tool_result` block with text and image blocks and `is_error`;
    /// - Gemini: a `functionResponse` part with `response.output` or `response.error`;
    /// - MCP: a `CallToolResult` (`content`, `structuredContent`, `isError`).
    pub fn tool_result(self, result: &ToolResult) -> Value {
        let output = &result.output;
        match self {
            Dialect::OpenAiChat => json!({
                "role": "tool",
                "tool_call_id": result.call_id,
                "content": text_of(output),
            }),
            Dialect::OpenAiResponses => json!({
                "type": "function_call_output",
                "call_id": result.call_id,
                "output": responses_output(output),
            }),
            Dialect::Anthropic => anthropic_result(&result.call_id, output),
            Dialect::Gemini => gemini_response(result),
            Dialect::Mcp => mcp_result(output),
        }
    }
}

/// Every part as text: images and binary resources by a short note. Structured output
/// stands in when there is no content.
fn text_of(output: &ToolOutput) -> String {
    if output.content.is_empty() {
        return output
            .structured
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default();
    }
    let parts: Vec<String> = output.content.iter().map(part_as_text).collect();
    parts.join("\n")
}

fn part_as_text(part: &Content) -> String {
    match part {
        Content::Text { text } => text.clone(),
        Content::Image { mime_type, data } => format!("[{mime_type} image, {} bytes of base64]", data.len()),
        Content::Resource {
            contents: ResourceContents::Text(text),
            ..
        } => text.clone(),
        Content::Resource { uri, mime_type, .. } => {
            let kind = mime_type.as_deref().unwrap_or("binary");
            format!("[{kind} resource {uri}]")
        }
    }
}

fn has_images(output: &ToolOutput) -> bool {
    output
        .content
        .iter()
        .any(|part| matches!(part, Content::Image { .. }))
}

fn data_url(mime_type: &str, data: &str) -> String {
    format!("data:{mime_type};base64,{data}")
}

fn responses_output(output: &ToolOutput) -> Value {
    if !has_images(output) {
        return Value::String(text_of(output));
    }
    let parts = output.content.iter().map(|part| match part {
        Content::Image { mime_type, data } => {
            json!({"type": "input_image", "image_url": data_url(mime_type, data)})
        }
        other => json!({"type": "input_text", "text": part_as_text(other)}),
    });
    Value::Array(parts.collect())
}

fn anthropic_result(call_id: &str, output: &ToolOutput) -> Value {
    let blocks: Vec<Value> = if output.content.is_empty() {
        vec![json!({"type": "text", "text": text_of(output)})]
    } else {
        output.content.iter().map(anthropic_block).collect()
    };
    let mut result = json!({"type": "tool_result", "tool_use_id": call_id, "content": blocks});
    if output.is_error {
        result["is_error"] = Value::Bool(true);
    }
    result
}

fn anthropic_block(part: &Content) -> Value {
    match part {
        Content::Image { mime_type, data } => json!({
            "type": "image",
            "source": {"type": "base64", "media_type": mime_type, "data": data},
        }),
        Content::Resource {
            mime_type: Some(mime_type),
            contents: ResourceContents::Blob(data),
            ..
        } if mime_type == "application/pdf" => json!({
            "type": "document",
            "source": {"type": "base64", "media_type": mime_type, "data": data},
        }),
        other => json!({"type": "text", "text": part_as_text(other)}),
    }
}

fn gemini_response(result: &ToolResult) -> Value {
    let output = &result.output;
    let value = match (&output.structured, output.is_error) {
        (Some(structured), false) => structured.clone(),
        _ => Value::String(text_of(output)),
    };
    let key = if output.is_error { "error" } else { "output" };
    let mut response = Map::new();
    if !result.call_id.is_empty() {
        response.insert("id".into(), json!(result.call_id));
    }
    response.insert("name".into(), json!(result.name));
    response.insert("response".into(), json!({ key: value }));
    let inline: Vec<Value> = output
        .content
        .iter()
        .filter_map(|part| match part {
            Content::Image { mime_type, data } => {
                Some(json!({"inlineData": {"mimeType": mime_type, "data": data}}))
            }
            _ => None,
        })
        .collect();
    if !inline.is_empty() {
        response.insert("parts".into(), Value::Array(inline));
    }
    json!({ "functionResponse": response })
}

fn mcp_result(output: &ToolOutput) -> Value {
    let content: Vec<Value> = output.content.iter().map(mcp_content).collect();
    let mut result = json!({"content": content});
    if let Some(structured @ Value::Object(_)) = &output.structured {
        result["structuredContent"] = structured.clone();
    }
    result["isError"] = Value::Bool(output.is_error);
    result
}

fn mcp_content(part: &Content) -> Value {
    match part {
        Content::Text { text } => json!({"type": "text", "text": text}),
        Content::Image { mime_type, data } => json!({"type": "image", "data": data, "mimeType": mime_type}),
        Content::Resource {
            uri,
            mime_type,
            contents,
        } => {
            let mut resource = json!({"uri": uri});
            if let Some(mime_type) = mime_type {
                resource["mimeType"] = json!(mime_type);
            }
            match contents {
                ResourceContents::Text(text) => resource["text"] = json!(text),
                ResourceContents::Blob(blob) => resource["blob"] = json!(blob),
            }
            json!({"type": "resource", "resource": resource})
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::{Image, Outcome};

    fn result(output: ToolOutput) -> ToolResult {
        ToolResult {
            call_id: "call_1".into(),
            name: "shot".into(),
            output,
            outcome: Outcome::Ok,
            duration: Duration::ZERO,
            repairs: Vec::new(),
        }
    }

    fn with_image() -> ToolResult {
        result(ToolOutput::text("Took it.").with_content(Image::png(vec![1, 2, 3]).into()))
    }

    #[test]
    fn openai_chat_is_text() {
        assert_eq!(
            Dialect::OpenAiChat.tool_result(&with_image()),
            json!({"role": "tool", "tool_call_id": "call_1", "content": "Took it.\n[image/png image, 4 bytes of base64]"})
        );
    }

    #[test]
    fn responses_carries_images() {
        assert_eq!(
            Dialect::OpenAiResponses.tool_result(&with_image()),
            json!({"type": "function_call_output", "call_id": "call_1", "output": [
                {"type": "input_text", "text": "Took it."},
                {"type": "input_image", "image_url": "data:image/png;base64,AQID"}
            ]})
        );
        let text = result(ToolOutput::text("ok"));
        assert_eq!(Dialect::OpenAiResponses.tool_result(&text)["output"], "ok");
    }

    #[test]
    fn anthropic_blocks_and_errors() {
        assert_eq!(
            Dialect::Anthropic.tool_result(&with_image()),
            json!({"type": "tool_result", "tool_use_id": "call_1", "content": [
                {"type": "text", "text": "Took it."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AQID"}}
            ]})
        );
        let failed = result(ToolOutput::error("no screen"));
        assert_eq!(Dialect::Anthropic.tool_result(&failed)["is_error"], true);
    }

    #[test]
    fn gemini_function_response() {
        let structured = result(ToolOutput::text("{\"n\":1}").with_structured(json!({"n": 1})));
        assert_eq!(
            Dialect::Gemini.tool_result(&structured),
            json!({"functionResponse": {"id": "call_1", "name": "shot", "response": {"output": {"n": 1}}}})
        );
        let failed = result(ToolOutput::error("bad"));
        assert_eq!(
            Dialect::Gemini.tool_result(&failed)["functionResponse"]["response"],
            json!({"error": "bad"})
        );
        let image = Dialect::Gemini.tool_result(&with_image());
        assert_eq!(
            image["functionResponse"]["parts"][0]["inlineData"]["mimeType"],
            "image/png"
        );
    }

    #[test]
    fn mcp_call_tool_result() {
        let output = ToolOutput::text("{\"n\":1}")
            .with_structured(json!({"n": 1}))
            .with_content(Content::Resource {
                uri: "file:///a.txt".into(),
                mime_type: Some("text/plain".into()),
                contents: ResourceContents::Text("hi".into()),
            });
        assert_eq!(
            Dialect::Mcp.tool_result(&result(output)),
            json!({
                "content": [
                    {"type": "text", "text": "{\"n\":1}"},
                    {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hi"}}
                ],
                "structuredContent": {"n": 1},
                "isError": false
            })
        );
    }
}
