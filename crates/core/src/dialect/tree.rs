//! Walking and resolving the subschemas of a JSON Schema, shared by the dialect rewrites.

use serde_json::{Map, Value};

/// Keywords whose value is one subschema.
const SINGLE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is a list of subschemas.
const LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to subschemas. Definitions come first so that a
/// walk sees what a `$ref` points to in a stable order.
const NAMED: &[&str] = &[
    "$defs",
    "definitions",
    "properties",
    "patternProperties",
    "dependentSchemas",
];

/// The body of both walkers below, which differ only in `as_object` / `as_object_mut`
/// (and so in the reference type they hand out); one macro keeps the keyword logic in
/// one place.
macro_rules! visit_children {
    ($node:expr, $visit:expr, $object:ident, $array:ident, $iter:ident) => {{
        let Some(map) = $node.$object() else {
            return;
        };
        for (keyword, value) in map.$iter() {
            let keyword = keyword.as_str();
            if SINGLE.contains(&keyword) {
                $visit(keyword, value);
            } else if LISTS.contains(&keyword) {
                for (index, item) in value.$array().into_iter().flatten().enumerate() {
                    $visit(&format!("{keyword}/{index}"), item);
                }
            } else if NAMED.contains(&keyword) {
                for (name, item) in value.$object().into_iter().flatten() {
                    $visit(&format!("{keyword}/{}", escape(name)), item);
                }
            }
        }
    }};
}

/// Calls `visit` with the path segment (`properties/name`, `anyOf/0`, `items`) and value of
/// every direct subschema of `node`, boolean schemas included.
pub(crate) fn for_each_child_mut(node: &mut Value, mut visit: impl FnMut(&str, &mut Value)) {
    visit_children!(node, visit, as_object_mut, as_array_mut, iter_mut)
}

/// Read-only [`for_each_child_mut`].
pub(crate) fn for_each_child(node: &Value, mut visit: impl FnMut(&str, &Value)) {
    visit_children!(node, visit, as_object, as_array, iter)
}

/// A JSON Pointer segment for a property name.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// `path` extended by one segment.
pub(crate) fn join(path: &str, segment: &str) -> String {
    format!("{path}/{segment}")
}

/// The schema a local `$ref` (`#`, `#/$defs/Name`) points to within `root`.
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        Some(root)
    } else {
        root.pointer(pointer)
    }
}

/// The `$ref` of a node, if it has one.
pub(crate) fn reference(node: &Map<String, Value>) -> Option<&str> {
    node.get("$ref").and_then(Value::as_str)
}

/// Whether a node describes objects: `"type": "object"` (possibly among others) or a
/// `properties` list.
pub(crate) fn is_object_schema(node: &Map<String, Value>) -> bool {
    node.contains_key("properties") || has_type(node, "object")
}

/// Whether `type` is `kind` or a list containing it.
pub(crate) fn has_type(node: &Map<String, Value>, kind: &str) -> bool {
    match node.get("type") {
        Some(Value::String(name)) => name == kind,
        Some(Value::Array(names)) => names.iter().any(|name| name == kind),
        _ => false,
    }
}

/// Whether a schema accepts `null` on its own (without following `$ref`s): a `null` type, a
/// `null` in `enum`/`const`, a branch that does, or no constraint at all.
pub(crate) fn accepts_null(schema: &Value) -> bool {
    let node = match schema {
        Value::Bool(accepts) => return *accepts,
        Value::Object(node) => node,
        _ => return false,
    };
    if node.contains_key("type") {
        return has_type(node, "null");
    }
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        return values.contains(&Value::Null);
    }
    if let Some(value) = node.get("const") {
        return value.is_null();
    }
    let branches = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|keyword| node.get(*keyword).and_then(Value::as_array))
        .flatten();
    let mut constrained = node.contains_key("$ref") || node.contains_key("allOf");
    for branch in branches {
        constrained = true;
        if accepts_null(branch) {
            return true;
        }
    }
    !constrained
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn children_are_visited_with_their_paths() {
        let schema = json!({
            "$defs": {"A/B": {"type": "string"}},
            "properties": {"x": {"type": "integer"}},
            "anyOf": [{"type": "null"}],
            "items": true,
            "description": "not a schema",
        });
        let mut seen = Vec::new();
        for_each_child(&schema, |segment, _| seen.push(segment.to_owned()));
        assert_eq!(seen, ["$defs/A~1B", "properties/x", "anyOf/0", "items"]);
    }

    #[test]
    fn local_references_resolve() {
        let schema = json!({"$defs": {"Inner": {"type": "string"}}});
        assert_eq!(
            resolve(&schema, "#/$defs/Inner"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(resolve(&schema, "#"), Some(&schema));
        assert_eq!(resolve(&schema, "https://example.com/x"), None);
        assert_eq!(resolve(&schema, "#/$defs/Missing"), None);
    }

    #[test]
    fn null_acceptance() {
        assert!(accepts_null(&json!({"type": ["string", "null"]})));
        assert!(accepts_null(
            &json!({"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]})
        ));
        assert!(accepts_null(&json!({"enum": ["a", null]})));
        assert!(accepts_null(&json!({"description": "anything"})));
        assert!(accepts_null(&json!(true)));
        assert!(!accepts_null(&json!({"type": "string"})));
        assert!(!accepts_null(&json!({"$ref": "#/$defs/A"})));
        assert!(!accepts_null(&json!({"enum": ["a"]})));
        assert!(!accepts_null(&json!({"oneOf": [{"type": "string"}]})));
    }
}
