//! One object at the root, for providers that reject a root `oneOf`/`anyOf`.
//!
//! An argument type that is an enum of struct variants (`#[serde(tag = "op")] enum Edit {
//! Replace { old, new }, Delete { line } }`) has a canonical schema whose root is a
//! `oneOf` of objects. Anthropic rejects `oneOf`/`anyOf`/`allOf` at the top of
//! `input_schema`, OpenAI strict wants a plain object at the root, and Gemini's parameters
//! must be an object. So the dialects get one object with every variant's properties (a
//! tag's values combined into one `enum`), only the properties every variant requires
//! marked required, and a description of the forms. The registry still validates calls
//! against the canonical schema, so a call mixing two forms is rejected with a message.

use serde_json::{Map, Value, json};

use super::SchemaIssue;
use super::describe::append_to_description;
use super::tree::{reference, resolve};

/// Rewrites a root union of object variants as one object; other roots are left alone.
pub(crate) fn flatten_root_union(schema: &mut Value) -> Result<(), SchemaIssue> {
    if schema.get("oneOf").is_none() && schema.get("anyOf").is_none() {
        return Ok(());
    }
    let root_copy = schema.clone();
    let Some(root) = schema.as_object_mut() else {
        return Ok(());
    };
    let Some((keyword, Value::Array(variants))) = ["oneOf", "anyOf"]
        .iter()
        .find_map(|keyword| root.get(*keyword).map(|variants| (*keyword, variants)))
    else {
        return Ok(());
    };
    let variants: Vec<Map<String, Value>> = variants
        .iter()
        .map(|variant| resolved_object(&root_copy, variant))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            SchemaIssue::new(
                format!("/{keyword}"),
                "the arguments are a choice between shapes that are not all objects",
            )
        })?;
    root.remove(keyword);
    let merged = merge_variants(&variants);
    root.insert("type".into(), "object".into());
    root.insert("properties".into(), Value::Object(merged.properties));
    if !merged.required.is_empty() {
        root.insert("required".into(), json!(merged.required));
    }
    if merged.closed {
        root.insert("additionalProperties".into(), Value::Bool(false));
    }
    append_to_description(root, &forms(&variants));
    Ok(())
}

/// A variant as an object schema (its `$ref` followed), or `None` if it is not one.
fn resolved_object(root: &Value, variant: &Value) -> Option<Map<String, Value>> {
    let node = variant.as_object()?;
    let node = match reference(node) {
        Some(target) => resolve(root, target)?.as_object()?,
        None => node,
    };
    node.contains_key("properties").then(|| node.clone())
}

struct Merged {
    properties: Map<String, Value>,
    required: Vec<String>,
    closed: bool,
}

fn merge_variants(variants: &[Map<String, Value>]) -> Merged {
    // Each property with the distinct schemas the variants give it, in first-seen order.
    let mut choices: Vec<(&String, Vec<Value>)> = Vec::new();
    for variant in variants {
        for (name, schema) in properties(variant) {
            match choices.iter_mut().find(|(seen, _)| *seen == name) {
                Some((_, schemas)) if !schemas.contains(schema) => schemas.push(schema.clone()),
                Some(_) => {}
                None => choices.push((name, vec![schema.clone()])),
            }
        }
    }
    let properties = choices
        .into_iter()
        .map(|(name, schemas)| (name.clone(), merge_property(schemas)))
        .collect();
    let first_required = variants.first().map(required).unwrap_or_default();
    let required = first_required
        .into_iter()
        .filter(|name| variants.iter().all(|variant| required(variant).contains(name)))
        .collect();
    let closed = variants
        .iter()
        .all(|variant| variant.get("additionalProperties") == Some(&Value::Bool(false)));
    Merged {
        properties,
        required,
        closed,
    }
}

fn properties(variant: &Map<String, Value>) -> impl Iterator<Item = (&String, &Value)> {
    variant
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

fn required(variant: &Map<String, Value>) -> Vec<String> {
    let names = variant
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    names.filter_map(Value::as_str).map(str::to_owned).collect()
}

/// One schema for a property that variants declare differently: tags (fixed strings)
/// combine into one `enum`, anything else into an `anyOf`.
fn merge_property(mut schemas: Vec<Value>) -> Value {
    if schemas.len() == 1 {
        return schemas.remove(0);
    }
    let tags: Option<Vec<Vec<Value>>> = schemas.iter().map(tag_values).collect();
    match tags {
        Some(tags) => {
            let mut values: Vec<Value> = Vec::new();
            for value in tags.into_iter().flatten() {
                if !values.contains(&value) {
                    values.push(value);
                }
            }
            let mut merged = json!({"type": "string", "enum": values});
            if let Some(description) = schemas.iter().find_map(|schema| schema.get("description")) {
                merged["description"] = description.clone();
            }
            merged
        }
        None => json!({ "anyOf": schemas }),
    }
}

/// The fixed string values a tag property allows (`const` or a string `enum`).
fn tag_values(schema: &Value) -> Option<Vec<Value>> {
    if let Some(value @ Value::String(_)) = schema.get("const") {
        return Some(vec![value.clone()]);
    }
    let values = schema.get("enum")?.as_array()?;
    values.iter().all(Value::is_string).then(|| values.clone())
}

/// "One of these forms: (1) …; (2) …", naming each variant's fixed values and fields.
fn forms(variants: &[Map<String, Value>]) -> String {
    let forms: Vec<String> = variants
        .iter()
        .enumerate()
        .map(|(index, variant)| format!("({}) {}", index + 1, form(variant)))
        .collect();
    format!("send exactly one of these forms: {}", forms.join("; "))
}

fn form(variant: &Map<String, Value>) -> String {
    let required = required(variant);
    let fields: Vec<String> = properties(variant)
        .map(|(name, schema)| match tag_values(schema) {
            Some(values) if values.len() == 1 => format!("{name} = {}", values[0]),
            _ if required.contains(name) => name.clone(),
            _ => format!("{name} (optional)"),
        })
        .collect();
    let summary = fields.join(", ");
    match variant.get("description").and_then(Value::as_str) {
        Some(description) => format!("{}: {summary}", description.trim_end_matches('.')),
        None => summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tagged_variants_become_one_object() {
        let mut schema = json!({
            "type": "object",
            "oneOf": [
                {"description": "Replace text.", "type": "object",
                 "properties": {"op": {"type": "string", "const": "replace"}, "old": {"type": "string"}, "new": {"type": "string"}},
                 "required": ["op", "old", "new"], "additionalProperties": false},
                {"type": "object",
                 "properties": {"op": {"type": "string", "const": "delete"}, "line": {"type": "integer"}, "note": {"type": "string"}},
                 "required": ["op", "line"], "additionalProperties": false}
            ]
        });
        flatten_root_union(&mut schema).unwrap();
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": ["replace", "delete"]},
                    "old": {"type": "string"},
                    "new": {"type": "string"},
                    "line": {"type": "integer"},
                    "note": {"type": "string"}
                },
                "required": ["op"],
                "additionalProperties": false,
                "description": "Send exactly one of these forms: (1) Replace text: op = \"replace\", old, new; (2) op = \"delete\", line, note (optional)"
            })
        );
    }

    #[test]
    fn differing_property_schemas_become_a_choice() {
        let mut schema = json!({"anyOf": [
            {"properties": {"x": {"type": "string"}}},
            {"properties": {"x": {"type": "integer"}}}
        ]});
        flatten_root_union(&mut schema).unwrap();
        assert_eq!(
            schema["properties"]["x"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
        );
        assert!(schema.get("additionalProperties").is_none());
    }

    #[test]
    fn non_object_variants_cannot_be_flattened() {
        let mut schema = json!({"oneOf": [{"type": "string"}, {"properties": {}}]});
        let issue = flatten_root_union(&mut schema).unwrap_err();
        assert_eq!(issue.path, "/oneOf");
    }

    #[test]
    fn plain_objects_are_untouched() {
        let mut schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let before = schema.clone();
        flatten_root_union(&mut schema).unwrap();
        assert_eq!(schema, before);
    }
}
