//! MCP tool definitions (protocol 2025-06-18 and later).
//!
//! MCP takes JSON Schema 2020-12 as the canonical schema already is. Two details: a tool
//! without arguments is `{"type":"object","additionalProperties":false}`, as the
//! specification recommends, and an output schema must describe an object, because
//! `structuredContent` is one.

use serde_json::{Map, Value, json};

use super::tree::has_type;
use super::{Definition, SchemaIssue};
use crate::{ToolAnnotations, ToolSpec};

/// The `Tool` object of `tools/list`.
pub(super) fn definition(spec: &ToolSpec, definition: &mut Definition) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), json!(spec.name));
    if let Some(title) = spec.title() {
        tool.insert("title".into(), json!(title));
    }
    tool.insert("description".into(), json!(spec.description));
    tool.insert("inputSchema".into(), input_schema(&spec.input_schema));
    if let Some(output) = &spec.output_schema {
        match output.as_object() {
            Some(schema) if has_type(schema, "object") => {
                tool.insert("outputSchema".into(), output.clone());
            }
            _ => definition.fallbacks.push(SchemaIssue::new(
                "",
                "the output schema is not an object, which MCP requires; it is left out and results carry the JSON as text",
            )),
        }
    }
    if let Some(annotations) = annotations(&spec.annotations) {
        tool.insert("annotations".into(), annotations);
    }
    Value::Object(tool)
}

fn input_schema(schema: &Value) -> Value {
    let no_properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty);
    let composed = ["anyOf", "oneOf", "allOf", "$ref"]
        .iter()
        .any(|k| schema.get(*k).is_some());
    if no_properties && !composed {
        return json!({"type": "object", "additionalProperties": false});
    }
    schema.clone()
}

/// MCP's hint names; `None` when no hint is stated.
fn annotations(annotations: &ToolAnnotations) -> Option<Value> {
    let hints = [
        ("title", annotations.title.clone().map(Value::String)),
        ("readOnlyHint", annotations.read_only.map(Value::Bool)),
        ("destructiveHint", annotations.destructive.map(Value::Bool)),
        ("idempotentHint", annotations.idempotent.map(Value::Bool)),
        ("openWorldHint", annotations.open_world.map(Value::Bool)),
    ];
    let stated: Map<String, Value> = hints
        .into_iter()
        .filter_map(|(name, value)| Some((name.to_owned(), value?)))
        .collect();
    (!stated.is_empty()).then_some(Value::Object(stated))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolMeta;

    #[test]
    fn full_definition() {
        let spec = ToolMeta::new("read_file", "Read a file.")
            .title("Read file")
            .read_only(true)
            .into_spec(
                json!({"type": "object", "properties": {"path": {"type": "string"}}}),
                Some(json!({"type": "object", "properties": {"lines": {"type": "integer"}}})),
            );
        let mut definition = Definition::new(Value::Null);
        assert_eq!(
            super::definition(&spec, &mut definition),
            json!({
                "name": "read_file",
                "title": "Read file",
                "description": "Read a file.",
                "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
                "outputSchema": {"type": "object", "properties": {"lines": {"type": "integer"}}},
                "annotations": {"title": "Read file", "readOnlyHint": true}
            })
        );
    }

    #[test]
    fn no_arguments_and_non_object_output() {
        let spec = ToolMeta::new("now", "The time.").into_spec(
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            Some(json!({"type": "array", "items": {"type": "string"}})),
        );
        let mut definition = Definition::new(Value::Null);
        let value = super::definition(&spec, &mut definition);
        assert_eq!(
            value["inputSchema"],
            json!({"type": "object", "additionalProperties": false})
        );
        assert!(value.get("outputSchema").is_none());
        assert!(value.get("annotations").is_none());
        assert_eq!(definition.fallbacks.len(), 1);
    }
}
