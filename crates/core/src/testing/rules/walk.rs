//! Every subschema of a JSON Schema with its path, and local `$ref` resolution.
//!
//! Each provider's rules apply to every subschema, wherever it sits: under `properties`,
//! `items`, `anyOf`, `$defs` and so on. The checkers share this one walk so that none of
//! them misses a place a subschema can hide.

use std::ptr;

use serde_json::{Map, Value};

use super::join;

/// Keywords whose value is one subschema (`items` also may be a list, draft 4 style).
const SINGLE: [&str; 9] = [
    "items",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
];

/// Keywords whose value is a subschema when an object, and usually the boolean `false`.
const OBJECT_ONLY: [&str; 2] = ["additionalProperties", "unevaluatedProperties"];

/// Keywords whose value is a list of subschemas.
const LISTS: [&str; 5] = ["items", "prefixItems", "anyOf", "oneOf", "allOf"];

/// Keywords whose value maps names to subschemas.
const MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// Keywords holding schemas that apply only where a `$ref` names them.
const DEFINITIONS: [&str; 2] = ["$defs", "definitions"];

/// One subschema met by the walk.
#[derive(Debug)]
pub(super) struct Node<'a> {
    /// Slash path from the definition's top.
    pub path: String,
    /// The subschema: normally an object or a boolean.
    pub schema: &'a Value,
    /// Object schemas from the walk's start down to this node, this one included.
    pub object_depth: usize,
}

impl<'a> Node<'a> {
    /// The subschema's keywords, unless it is not an object.
    pub(super) fn keywords(&self) -> Option<&'a Map<String, Value>> {
        self.schema.as_object()
    }
}

/// `schema` and every subschema inside it, parents before children, paths under `path`.
pub(super) fn subschemas<'a>(schema: &'a Value, path: &str) -> Vec<Node<'a>> {
    let mut nodes = Vec::new();
    collect(schema, path.to_owned(), 0, true, &mut nodes);
    nodes
}

/// Like [`subschemas`], without the contents of `$defs` and `definitions`: the schemas
/// that apply to an instance without following a `$ref`.
fn applied_subschemas(schema: &Value) -> Vec<Node<'_>> {
    let mut nodes = Vec::new();
    collect(schema, String::new(), 0, false, &mut nodes);
    nodes
}

fn collect<'a>(schema: &'a Value, path: String, depth: usize, definitions: bool, nodes: &mut Vec<Node<'a>>) {
    let depth = depth + usize::from(schema.as_object().is_some_and(is_object_schema));
    let children = schema.as_object().map(|keywords| children(keywords, definitions));
    nodes.push(Node {
        path: path.clone(),
        schema,
        object_depth: depth,
    });
    for (relative, child) in children.into_iter().flatten() {
        collect(child, join(&path, &relative), depth, definitions, nodes);
    }
}

/// The direct subschemas of `keywords` with their paths relative to it.
fn children(keywords: &Map<String, Value>, definitions: bool) -> Vec<(String, &Value)> {
    let mut found = Vec::new();
    for (key, value) in keywords {
        let key = key.as_str();
        if !definitions && DEFINITIONS.contains(&key) {
            continue;
        }
        match value {
            Value::Array(list) if LISTS.contains(&key) => {
                found.extend(
                    list.iter()
                        .enumerate()
                        .map(|(i, item)| (format!("{key}/{i}"), item)),
                );
            }
            Value::Object(map) if MAPS.contains(&key) => {
                found.extend(map.iter().map(|(name, item)| (format!("{key}/{name}"), item)));
            }
            Value::Object(_) if OBJECT_ONLY.contains(&key) => found.push((key.to_owned(), value)),
            _ if SINGLE.contains(&key) => found.push((key.to_owned(), value)),
            _ => {}
        }
    }
    found
}

/// The names in the schema's `type`, whether a single string or a list.
pub(super) fn types(keywords: &Map<String, Value>) -> Vec<&str> {
    match keywords.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The names under the schema's `properties`.
pub(super) fn property_names(keywords: &Map<String, Value>) -> Vec<&str> {
    keywords
        .get("properties")
        .and_then(Value::as_object)
        .map_or_else(Vec::new, |properties| {
            properties.keys().map(String::as_str).collect()
        })
}

/// The names listed in the schema's `required`.
pub(super) fn required_names(keywords: &Map<String, Value>) -> Vec<&str> {
    keywords
        .get("required")
        .and_then(Value::as_array)
        .map_or_else(Vec::new, |names| names.iter().filter_map(Value::as_str).collect())
}

/// Whether the schema describes objects: its `type` includes `object`, or it has `properties`.
pub(super) fn is_object_schema(keywords: &Map<String, Value>) -> bool {
    types(keywords).contains(&"object") || keywords.contains_key("properties")
}

/// The schema a local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any `#/` pointer) names
/// inside `root`, or `None` when it is not local or names nothing.
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    match reference.strip_prefix('#')? {
        "" => Some(root),
        pointer => root.pointer(pointer),
    }
}

/// What is wrong with the `$ref` of `keywords`, if it has one that is not a string, not
/// local, or names nothing in `root`.
pub(super) fn ref_problem(root: &Value, keywords: &Map<String, Value>) -> Option<String> {
    let reference = keywords.get("$ref")?;
    let Some(text) = reference.as_str() else {
        return Some(format!("`$ref` {reference} is not a string"));
    };
    if !text.starts_with('#') {
        return Some(format!(
            "`$ref` {text:?} is not a local reference (starting with `#`)"
        ));
    }
    resolve(root, text)
        .is_none()
        .then(|| format!("`$ref` {text:?} does not resolve"))
}

/// The target of `schema`'s `$ref` inside `root`, if it has a local one that resolves.
fn target<'a>(root: &'a Value, schema: &Value) -> Option<&'a Value> {
    resolve(root, schema.get("$ref")?.as_str()?)
}

/// The subschemas of `root` (paths under `path`) whose `$ref` leads, through the schemas it
/// names, back to that same `$ref`: where the schema is recursive.
pub(super) fn recursive_refs<'a>(root: &'a Value, path: &str) -> Vec<Node<'a>> {
    let leads_back = |node: &Node<'a>| {
        target(root, node.schema).is_some_and(|start| reaches(root, start, node.schema, &mut Vec::new()))
    };
    subschemas(root, path).into_iter().filter(leads_back).collect()
}

/// Whether `needle` applies somewhere within `from`, following `$ref`s (each target once).
fn reaches(root: &Value, from: &Value, needle: &Value, seen: &mut Vec<*const Value>) -> bool {
    for node in applied_subschemas(from) {
        if ptr::eq(node.schema, needle) {
            return true;
        }
        let Some(next) = target(root, node.schema) else {
            continue;
        };
        if !seen.contains(&ptr::from_ref(next)) {
            seen.push(ptr::from_ref(next));
            if reaches(root, next, needle, seen) {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn paths(schema: &Value) -> Vec<String> {
        subschemas(schema, "p")
            .into_iter()
            .map(|node| node.path)
            .collect()
    }

    #[test]
    fn walks_every_place_a_subschema_sits() {
        let schema = json!({
            "properties": { "a": { "items": { "type": "string" } } },
            "prefixItems": [true],
            "anyOf": [{}], "oneOf": [{}], "allOf": [{}],
            "$defs": { "D": {} }, "definitions": { "E": {} },
            "additionalProperties": { "not": {} },
            "if": {}, "then": {}, "else": {},
        });
        let expected = [
            "p",
            "p/properties/a",
            "p/properties/a/items",
            "p/prefixItems/0",
            "p/anyOf/0",
            "p/oneOf/0",
            "p/allOf/0",
            "p/$defs/D",
            "p/definitions/E",
            "p/additionalProperties",
            "p/additionalProperties/not",
            "p/if",
            "p/then",
            "p/else",
        ];
        assert_eq!(paths(&schema), expected);
    }

    #[test]
    fn a_boolean_additional_properties_is_not_a_subschema() {
        assert_eq!(paths(&json!({ "additionalProperties": false })), ["p"]);
    }

    #[test]
    fn counts_object_nesting() {
        let schema = json!({ "type": "object", "properties": { "a": { "properties": { "b": {} } } } });
        let depths: Vec<usize> = subschemas(&schema, "")
            .iter()
            .map(|node| node.object_depth)
            .collect();
        assert_eq!(depths, [1, 2, 2]);
    }

    #[test]
    fn resolves_local_references_only() {
        let root = json!({ "$defs": { "X": { "type": "string" } }, "definitions": { "Y": {} } });
        assert_eq!(resolve(&root, "#"), Some(&root));
        assert_eq!(resolve(&root, "#/$defs/X"), Some(&json!({ "type": "string" })));
        assert_eq!(resolve(&root, "#/definitions/Y"), Some(&json!({})));
        assert_eq!(resolve(&root, "#/$defs/Z"), None);
        assert_eq!(resolve(&root, "other.json#/X"), None);
    }

    #[test]
    fn finds_ref_problems() {
        let root = json!({});
        let problem =
            |reference: Value| ref_problem(&root, json!({ "$ref": reference }).as_object().unwrap());
        assert_eq!(problem(json!("#")), None);
        assert!(
            problem(json!("#/$defs/Gone"))
                .unwrap()
                .contains("does not resolve")
        );
        assert!(problem(json!("https://x/y")).unwrap().contains("not a local"));
        assert!(problem(json!(1)).unwrap().contains("not a string"));
    }

    #[test]
    fn finds_recursion_but_not_shared_definitions() {
        let root = json!({
            "properties": { "tree": { "$ref": "#/$defs/Node" }, "leaf": { "$ref": "#/$defs/Leaf" } },
            "$defs": {
                "Node": { "properties": { "children": { "items": { "$ref": "#/$defs/Node" } } } },
                "Leaf": {},
            },
        });
        let found: Vec<String> = recursive_refs(&root, "s")
            .into_iter()
            .map(|node| node.path)
            .collect();
        assert_eq!(found, ["s/$defs/Node/properties/children/items"]);
    }

    #[test]
    fn a_reference_to_the_root_from_inside_it_is_recursive() {
        let root = json!({ "properties": { "again": { "$ref": "#" } } });
        assert_eq!(recursive_refs(&root, "").len(), 1);
    }
}
