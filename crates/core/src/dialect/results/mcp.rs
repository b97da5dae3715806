//! MCP's tool result, `CallToolResult` (2025-11-25): every kind of part with its
//! annotations, `structuredContent` and `isError`.

use serde_json::{Map, Value, json};

use crate::output::{Content, ContentAnnotations, ResourceContents, ToolOutput};

pub(super) fn call_tool_result(output: &ToolOutput) -> Value {
    let content: Vec<Value> = output.content.iter().map(content_block).collect();
    let mut result = json!({"content": content});
    if let Some(structured @ Value::Object(_)) = &output.structured {
        result["structuredContent"] = structured.clone();
    }
    result["isError"] = Value::Bool(output.is_error);
    result
}

fn content_block(part: &Content) -> Value {
    let mut block = match part {
        Content::Text { text, .. } => json!({"type": "text", "text": text}),
        Content::Image { mime_type, data, .. } => {
            json!({"type": "image", "data": data, "mimeType": mime_type})
        }
        Content::Audio { mime_type, data, .. } => {
            json!({"type": "audio", "data": data, "mimeType": mime_type})
        }
        Content::Resource {
            uri,
            mime_type,
            contents,
            ..
        } => json!({"type": "resource", "resource": resource_contents(uri, mime_type.as_deref(), contents)}),
        Content::ResourceLink {
            uri,
            name,
            title,
            description,
            mime_type,
            size,
            ..
        } => {
            let mut link = Map::new();
            link.insert("type".into(), json!("resource_link"));
            link.insert("uri".into(), json!(uri));
            link.insert("name".into(), json!(name));
            insert_some(&mut link, "title", title.as_ref().map(|title| json!(title)));
            insert_some(
                &mut link,
                "description",
                description.as_ref().map(|text| json!(text)),
            );
            insert_some(&mut link, "mimeType", mime_type.as_ref().map(|mime| json!(mime)));
            insert_some(&mut link, "size", size.map(|size| json!(size)));
            Value::Object(link)
        }
    };
    if let Some(annotations) = part.annotations() {
        block["annotations"] = annotations_json(annotations);
    }
    block
}

fn resource_contents(uri: &str, mime_type: Option<&str>, contents: &ResourceContents) -> Value {
    let mut resource = json!({"uri": uri});
    if let Some(mime_type) = mime_type {
        resource["mimeType"] = json!(mime_type);
    }
    match contents {
        ResourceContents::Text(text) => resource["text"] = json!(text),
        ResourceContents::Blob(blob) => resource["blob"] = json!(blob),
    }
    resource
}

/// MCP's `Annotations`, camelCase.
fn annotations_json(annotations: &ContentAnnotations) -> Value {
    let mut object = Map::new();
    insert_some(
        &mut object,
        "audience",
        annotations.audience.as_ref().map(|audience| json!(audience)),
    );
    insert_some(
        &mut object,
        "priority",
        annotations.priority.map(|priority| json!(priority)),
    );
    insert_some(
        &mut object,
        "lastModified",
        annotations.last_modified.as_ref().map(|time| json!(time)),
    );
    Value::Object(object)
}

fn insert_some(object: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        object.insert(key.to_owned(), value);
    }
}
