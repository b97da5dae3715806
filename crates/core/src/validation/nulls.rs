//! `null` for an optional argument means "not given".
//!
//! OpenAI strict mode needs every property in `required`, so the strict dialect declares
//! optional ones nullable and the model sends `null` for each one it leaves out. A field
//! like `#[serde(default)] limit: u32` does not accept `null`, though, and neither does
//! the canonical schema. So before validation, a `null` is removed wherever the canonical
//! schema does not accept `null` for that property: the property counts as absent, and
//! serde gives it `None` or its default. Where `null` is accepted (an `Option` field), it
//! stays and means `None` anyway.

use serde_json::Value;

use crate::dialect::{accepts_null, resolve};

/// How many `$ref`s deep a lookup follows; deeper chains are cycles in practice.
const MAX_REF_DEPTH: usize = 32;

/// Removes the `null`s the canonical `schema` does not accept for optional properties.
pub(crate) fn drop_optional_nulls(schema: &Value, arguments: &mut Value) {
    if contains_null(arguments) {
        let candidates = expand(schema, schema);
        strip(schema, &candidates, arguments);
    }
}

fn contains_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(contains_null),
        Value::Object(map) => map.values().any(contains_null),
        _ => false,
    }
}

/// `schema` and every schema it defers to (`$ref` targets, `anyOf`/`oneOf`/`allOf`
/// branches): any of them may be the one that describes a value.
fn expand<'a>(root: &'a Value, schema: &'a Value) -> Vec<&'a Value> {
    let mut found = Vec::new();
    collect(root, schema, 0, &mut found);
    found
}

fn collect<'a>(root: &'a Value, schema: &'a Value, depth: usize, found: &mut Vec<&'a Value>) {
    if depth > MAX_REF_DEPTH || found.iter().any(|seen| std::ptr::eq(*seen, schema)) {
        return;
    }
    found.push(schema);
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| resolve(root, r))
    {
        collect(root, target, depth + 1, found);
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        for branch in schema
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect(root, branch, depth + 1, found);
        }
    }
}

fn strip(root: &Value, candidates: &[&Value], value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|name, value| {
                let schemas = child_schemas(root, candidates, |schema| schema.get("properties")?.get(name));
                let unwanted =
                    value.is_null() && !schemas.is_empty() && !schemas.iter().any(|s| accepts_null(s));
                if !unwanted {
                    strip(root, &schemas, value);
                }
                !unwanted
            });
        }
        Value::Array(items) => {
            let schemas = child_schemas(root, candidates, |schema| schema.get("items"));
            for item in items {
                strip(root, &schemas, item);
            }
        }
        _ => {}
    }
}

/// The expanded schemas `pick` finds in any candidate.
fn child_schemas<'a>(
    root: &'a Value,
    candidates: &[&'a Value],
    pick: impl Fn(&'a Value) -> Option<&'a Value>,
) -> Vec<&'a Value> {
    let mut found = Vec::new();
    for child in candidates.iter().filter_map(|schema| pick(schema)) {
        collect(root, child, 0, &mut found);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stripped(schema: Value, mut arguments: Value) -> Value {
        drop_optional_nulls(&schema, &mut arguments);
        arguments
    }

    #[test]
    fn nulls_for_fields_that_reject_null_are_removed() {
        let schema = json!({
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "default": 10},
                "name": {"type": ["string", "null"]},
                "inner": {"$ref": "#/$defs/Inner"},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Inner"}}
            },
            "$defs": {"Inner": {"type": "object", "properties": {"flag": {"type": "boolean"}, "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}}
        });
        let arguments = json!({
            "limit": null, "name": null, "inner": {"flag": null, "note": null},
            "list": [{"flag": null}, {"flag": true}], "unknown": null
        });
        assert_eq!(
            stripped(schema, arguments),
            json!({"name": null, "inner": {"note": null}, "list": [{}, {"flag": true}], "unknown": null})
        );
    }

    #[test]
    fn variants_are_all_considered() {
        let schema = json!({
            "type": "object",
            "oneOf": [
                {"properties": {"op": {"const": "replace"}, "old": {"type": "string"}}},
                {"properties": {"op": {"const": "delete"}, "line": {"type": "integer"}}}
            ]
        });
        let arguments = json!({"op": "delete", "old": null, "line": 3});
        assert_eq!(stripped(schema, arguments), json!({"op": "delete", "line": 3}));
    }

    #[test]
    fn arguments_without_nulls_are_untouched() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        assert_eq!(stripped(schema, json!({"a": 1})), json!({"a": 1}));
    }
}
