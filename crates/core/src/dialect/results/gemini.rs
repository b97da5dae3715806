//! Gemini's tool result: a `functionResponse` part whose `response` holds `output` (or
//! `error`), with images and PDFs as inline data `parts`.

use serde_json::{Map, Value, json};

use super::{ModelPart, is_one_of, model_parts, pdf_blob, text, text_of};
use crate::{
    output::{Content, ToolOutput},
    registry::ToolResult,
};

/// The image types a function response part takes.
const IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/webp"];

pub(super) fn function_response(result: &ToolResult) -> Value {
    let output = &result.output;
    let parts: Vec<(ModelPart<'_>, Option<Value>)> = model_parts(output)
        .map(|part| (part, inline_data(part)))
        .collect();
    let mut response = Map::new();
    match (&output.structured, output.is_error) {
        (Some(structured), false) => {
            response.insert("output".into(), structured.clone());
            // The text parts mirror the structured output; anything else that is not
            // inline data would be lost without this.
            let rest: Vec<Value> = parts
                .iter()
                .filter(|(part, inline)| inline.is_none() && !is_shown_text(*part))
                .map(|(part, _)| Value::String(text::part_as_text(*part)))
                .collect();
            if !rest.is_empty() {
                response.insert("content".into(), Value::Array(rest));
            }
        }
        (_, is_error) => {
            let key = if is_error { "error" } else { "output" };
            response.insert(key.into(), Value::String(text_besides_inline(output, &parts)));
        }
    }
    let mut function_response = Map::new();
    if !result.call_id.is_empty() {
        function_response.insert("id".into(), json!(result.call_id));
    }
    function_response.insert("name".into(), json!(result.name));
    function_response.insert("response".into(), Value::Object(response));
    let inline: Vec<Value> = parts.into_iter().filter_map(|(_, inline)| inline).collect();
    if !inline.is_empty() {
        function_response.insert("parts".into(), Value::Array(inline));
    }
    json!({ "functionResponse": function_response })
}

/// The text of every part that does not go inline.
fn text_besides_inline(output: &ToolOutput, parts: &[(ModelPart<'_>, Option<Value>)]) -> String {
    if parts.is_empty() {
        return text_of(output);
    }
    let texts: Vec<String> = parts
        .iter()
        .filter(|(_, inline)| inline.is_none())
        .map(|(part, _)| text::part_as_text(*part))
        .collect();
    texts.join("\n")
}

fn is_shown_text(part: ModelPart<'_>) -> bool {
    matches!(part, ModelPart::Shown(Content::Text { .. }))
}

/// The part as inline data, when Gemini takes it in a function response.
fn inline_data(part: ModelPart<'_>) -> Option<Value> {
    let ModelPart::Shown(part) = part else {
        return None;
    };
    let (mime_type, data) = match part {
        Content::Image { mime_type, data, .. } if is_one_of(mime_type, IMAGE_TYPES) => {
            (mime_type.as_str(), data.as_str())
        }
        other => ("application/pdf", pdf_blob(other)?.1),
    };
    Some(json!({"inlineData": {"mimeType": mime_type, "data": data}}))
}
