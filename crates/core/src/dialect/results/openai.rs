//! OpenAI's tool results: a Chat Completions `tool` message (text only) and a
//! Responses `function_call_output` (text, or `input_text`/`input_image`/`input_file`
//! parts).

use serde_json::{Value, json};

use super::{ModelPart, is_one_of, model_parts, pdf_blob, text, text_of};
use crate::{
    output::{Content, ToolOutput},
    registry::ToolResult,
};

/// What `input_image` takes.
const IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/webp", "image/gif"];

pub(super) fn chat(result: &ToolResult) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": result.call_id,
        "content": text_of(&result.output),
    })
}

pub(super) fn responses(result: &ToolResult) -> Value {
    json!({
        "type": "function_call_output",
        "call_id": result.call_id,
        "output": responses_output(&result.output),
    })
}

/// A plain string unless some part needs a non-text item.
fn responses_output(output: &ToolOutput) -> Value {
    let items: Vec<Option<Value>> = model_parts(output).map(native_item).collect();
    if items.iter().all(Option::is_none) {
        return Value::String(text_of(output));
    }
    let items = items.into_iter().zip(model_parts(output)).map(|(item, part)| {
        item.unwrap_or_else(|| json!({"type": "input_text", "text": text::part_as_text(part)}))
    });
    Value::Array(items.collect())
}

/// The part as an `input_image` or `input_file`, when it can be one.
fn native_item(part: ModelPart<'_>) -> Option<Value> {
    let ModelPart::Shown(part) = part else {
        return None;
    };
    if let Content::Image { mime_type, data, .. } = part
        && is_one_of(mime_type, IMAGE_TYPES)
    {
        return Some(json!({"type": "input_image", "image_url": data_url(mime_type, data)}));
    }
    let (uri, data) = pdf_blob(part)?;
    Some(json!({
        "type": "input_file",
        "filename": file_name(uri),
        "file_data": data_url("application/pdf", data),
    }))
}

fn data_url(mime_type: &str, data: &str) -> String {
    format!("data:{mime_type};base64,{data}")
}

/// The last segment of `uri`'s path, which `input_file` wants as a file name.
fn file_name(uri: &str) -> &str {
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    match path.rsplit('/').next() {
        Some(name) if !name.is_empty() => name,
        _ => "document.pdf",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_come_from_the_uri_path() {
        assert_eq!(file_name("file:///reports/q3.pdf"), "q3.pdf");
        assert_eq!(file_name("https://example.com/a/b.pdf?x=1#p2"), "b.pdf");
        assert_eq!(file_name("https://example.com/"), "document.pdf");
        assert_eq!(file_name("q3.pdf"), "q3.pdf");
    }
}
