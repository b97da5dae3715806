//! Anthropic's tool result: a `tool_result` block of `text`, `image` and `document`
//! blocks, with `is_error`.

use serde_json::{Value, json};

use super::{ModelPart, is_one_of, model_parts, pdf_blob, text, text_of};
use crate::{output::Content, registry::ToolResult};

/// The media types an `image` block takes.
const IMAGE_TYPES: &[&str] = &["image/jpeg", "image/png", "image/gif", "image/webp"];

pub(super) fn tool_result(result: &ToolResult) -> Value {
    let output = &result.output;
    let blocks: Vec<Value> = if output.content.is_empty() {
        vec![json!({"type": "text", "text": text_of(output)})]
    } else {
        model_parts(output).map(block).collect()
    };
    let mut block = json!({"type": "tool_result", "tool_use_id": result.call_id, "content": blocks});
    if output.is_error {
        block["is_error"] = Value::Bool(true);
    }
    block
}

fn block(part: ModelPart<'_>) -> Value {
    if let ModelPart::Shown(shown) = part {
        if let Content::Image { mime_type, data, .. } = shown
            && is_one_of(mime_type, IMAGE_TYPES)
        {
            return json!({
                "type": "image",
                "source": {"type": "base64", "media_type": mime_type, "data": data},
            });
        }
        if let Some((_, data)) = pdf_blob(shown) {
            return json!({
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": data},
            });
        }
    }
    json!({"type": "text", "text": text::part_as_text(part)})
}
