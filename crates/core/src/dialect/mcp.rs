//! MCP tool definitions (protocol 2025-06-18 and later).
//!
//! MCP takes the canonical schema as it is: JSON Schema 2020-12 for our own tools, and a
//! mounted tool's schema exactly as its server served it (its `$schema` included), so a
//! gateway lists what its servers list. A tool without arguments keeps
//! `{"type":"object","properties":{},"additionalProperties":false}`, which accepts the
//! same as the `{"type":"object","additionalProperties":false}` the specification
//! suggests. One detail: an output schema must describe an object, because
//! `structuredContent` is one.

use serde_json::{Map, Value, json};

use super::tree::has_type;
use super::{Definition, SchemaIssue};
use crate::spec::{ToolAnnotations, ToolSpec, header_argument};

/// The `Tool` object of `tools/list`.
pub(super) fn definition(spec: &ToolSpec, definition: &mut Definition) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), json!(spec.meta.name));
    if let Some(title) = spec.title() {
        tool.insert("title".into(), json!(title));
    }
    tool.insert("description".into(), json!(spec.meta.description));
    let input_schema = match spec.meta.header_arguments.is_empty() {
        true => spec.input_schema.clone(),
        false => header_argument::annotate(&spec.input_schema, &spec.meta.header_arguments),
    };
    tool.insert("inputSchema".into(), input_schema);
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
    if let Some(annotations) = annotations(&spec.meta.annotations) {
        tool.insert("annotations".into(), annotations);
    }
    Value::Object(tool)
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
    use crate::spec::ToolMeta;

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
    fn schemas_as_given_and_non_object_output() {
        // A mounted server's schema for a tool without arguments, in its own dialect.
        let served = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {},
        });
        let spec = ToolMeta::new("now", "The time.").into_spec(
            served.clone(),
            Some(json!({"type": "array", "items": {"type": "string"}})),
        );
        let mut definition = Definition::new(Value::Null);
        let value = super::definition(&spec, &mut definition);
        assert_eq!(value["inputSchema"], served);
        assert!(value.get("outputSchema").is_none());
        assert!(value.get("annotations").is_none());
        assert_eq!(definition.fallbacks.len(), 1);
    }
}
