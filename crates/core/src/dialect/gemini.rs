//! Gemini function declarations: `parameters` in Gemini's OpenAPI 3.0 subset, or
//! `parametersJsonSchema` when that subset cannot say what the arguments are.
//!
//! The OpenAPI subset has no references, no `additionalProperties`, no `const`, no
//! `oneOf`, no null type (`nullable: true` instead), string-only enums, and objects must
//! name at least one property. Most argument types fit after rewriting: references are
//! inlined, `["T","null"]` and `anyOf [T, null]` become `nullable`, `const` becomes a
//! one-value `enum`. Recursive types and maps do not fit; for those the declaration
//! carries `parametersJsonSchema` (a JSON Schema subset with `$ref` and
//! `additionalProperties`), unless the caller asked for OpenAPI only.

use serde_json::{Map, Value, json};

use super::flatten::flatten_root_union;
use super::keywords::{KeywordRules, WELL_KNOWN_FORMATS};
use super::refs::{Inline, inline_refs};
use super::tree::{for_each_child, for_each_child_mut, has_type, join};
use super::{Definition, GeminiSchema, SchemaIssue};
use crate::spec::ToolSpec;

const OPENAPI: KeywordRules = KeywordRules {
    provider: "Gemini",
    kept: &[
        "type",
        "format",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    ],
    described: &[
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "uniqueItems",
        "examples",
    ],
    formats: &["date-time", "enum"],
    max_min_items: None,
};

const JSON_SCHEMA: KeywordRules = KeywordRules {
    provider: "Gemini",
    kept: &[
        "$id",
        "$defs",
        "$ref",
        "$anchor",
        "type",
        "format",
        "title",
        "description",
        "enum",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "anyOf",
        "oneOf",
        "properties",
        "additionalProperties",
        "required",
        "propertyOrdering",
    ],
    described: &[
        "minLength",
        "maxLength",
        "pattern",
        "default",
        "examples",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "uniqueItems",
        "minProperties",
        "maxProperties",
    ],
    formats: WELL_KNOWN_FORMATS,
    max_min_items: None,
};

/// The function declaration; a tool without arguments has no parameters at all (Gemini
/// rejects an object with no properties).
pub(super) fn definition(spec: &ToolSpec, mode: GeminiSchema, definition: &mut Definition) -> Value {
    let mut declaration = json!({"name": spec.meta.name, "description": spec.meta.description});
    let mut schema = spec.input_schema.clone();
    if let Err(issue) = flatten_root_union(&mut schema) {
        definition.problems.push(issue);
    }
    if takes_no_arguments(&schema) {
        return declaration;
    }
    let (key, schema) = match mode {
        GeminiSchema::OpenApi => ("parameters", openapi(&schema, &mut definition.problems)),
        GeminiSchema::JsonSchema => (
            "parametersJsonSchema",
            json_schema(&schema, &mut definition.problems),
        ),
        GeminiSchema::Auto => {
            let mut issues = Vec::new();
            let parameters = openapi(&schema, &mut issues);
            if issues.is_empty() {
                ("parameters", parameters)
            } else {
                definition.fallbacks.extend(issues);
                (
                    "parametersJsonSchema",
                    json_schema(&schema, &mut definition.problems),
                )
            }
        }
    };
    declaration[key] = schema;
    declaration
}

fn takes_no_arguments(schema: &Value) -> bool {
    let properties = schema.get("properties").and_then(Value::as_object);
    properties.is_none_or(Map::is_empty) && schema.get("anyOf").is_none()
}

/// The schema in Gemini's OpenAPI subset; what it cannot say goes to `issues`.
fn openapi(schema: &Value, issues: &mut Vec<SchemaIssue>) -> Value {
    let mut schema = schema.clone();
    inline_refs(&mut schema, Inline::All, issues);
    openapi_node(&mut schema, "", issues);
    only_null(&schema, "", issues);
    schema
}

/// Nodes that still accept only `null` (a field of type `()`; `null` branches of a
/// choice became `nullable`): OpenAPI has no null type, and `nullable` needs a type.
fn only_null(schema: &Value, path: &str, issues: &mut Vec<SchemaIssue>) {
    if schema.get("type").is_some_and(|kind| kind == "null") {
        issues.push(SchemaIssue::new(
            path,
            "accepts only `null`; Gemini has no null type",
        ));
    }
    for_each_child(schema, |segment, child| {
        only_null(child, &join(path, segment), issues)
    });
}

fn openapi_node(schema: &mut Value, path: &str, issues: &mut Vec<SchemaIssue>) {
    let Value::Object(node) = schema else {
        issues.push(SchemaIssue::new(
            path,
            "accepts any JSON value; Gemini needs a type",
        ));
        return;
    };
    if node.contains_key("$ref") {
        // Left in place by the inliner, which reported the recursion.
        return;
    }
    node.remove("title");
    if let Some(branches) = node.remove("oneOf") {
        node.insert("anyOf".into(), branches);
    }
    const_to_enum(node);
    let free_form = node
        .remove("additionalProperties")
        .is_some_and(|value| value != Value::Bool(false));
    let impossible = OPENAPI.sort(node);
    if !impossible.is_empty() {
        issues.push(SchemaIssue::new(
            path,
            OPENAPI.unsupported("parameters", &impossible),
        ));
    }
    for_each_child_mut(schema, |segment, child| {
        openapi_node(child, &join(path, segment), issues)
    });
    let Value::Object(node) = schema else { return };
    split_null_type(node);
    simplify_any_of(node);
    string_enum(node);
    if let Some(message) = shape_problem(node, free_form) {
        issues.push(SchemaIssue::new(path, message));
    }
}

fn const_to_enum(node: &mut Map<String, Value>) {
    if let Some(value) = node.remove("const") {
        node.insert("enum".into(), json!([value]));
    }
}

/// `"type": ["T", "null"]` → `"type": "T", "nullable": true`.
fn split_null_type(node: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = node.get("type") else {
        return;
    };
    let nullable = types.iter().any(|kind| kind == "null");
    let others: Vec<Value> = types.iter().filter(|kind| *kind != "null").cloned().collect();
    match others.as_slice() {
        [single] => {
            node.insert("type".into(), single.clone());
        }
        _ => {
            node.remove("type");
            let branches = others.into_iter().map(|kind| json!({"type": kind})).collect();
            node.insert("anyOf".into(), Value::Array(branches));
        }
    }
    if nullable {
        node.insert("nullable".into(), Value::Bool(true));
    }
}

/// A `null` branch becomes `nullable`; a choice between fixed strings (a Rust enum of
/// unit variants) becomes one string `enum`; one remaining branch is merged into the
/// node; several stay an `anyOf`, alone on its node (the description moves into the
/// branches).
fn simplify_any_of(node: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = node.remove("anyOf") else {
        return;
    };
    let (nulls, mut rest): (Vec<Value>, Vec<Value>) = branches.into_iter().partition(is_null_schema);
    let nullable = !nulls.is_empty() || node.remove("nullable").is_some();
    if let Some((choice, variant_docs)) = string_choice(&rest) {
        rest = vec![choice];
        super::describe::append_to_description(node, &variant_docs);
    }
    if rest.len() == 1 {
        if let Value::Object(branch) = rest.remove(0) {
            merge_branch(node, branch);
        }
        if nullable {
            node.insert("nullable".into(), Value::Bool(true));
        }
        // The branch may itself have been a choice.
        return simplify_any_of(node);
    }
    let description = node.get("description").cloned();
    for branch in rest.iter_mut().filter_map(Value::as_object_mut) {
        if let Some(description) = &description {
            branch.entry("description").or_insert_with(|| description.clone());
        }
        if nullable {
            branch.insert("nullable".into(), Value::Bool(true));
        }
    }
    node.clear();
    node.insert("anyOf".into(), Value::Array(rest));
}

/// Merges a choice's only branch into its node. The node's keywords win, except that
/// both descriptions are kept: the node's says what the field is for, the branch's what
/// its type is (e.g. a documented enum's variants).
fn merge_branch(node: &mut Map<String, Value>, branch: Map<String, Value>) {
    for (keyword, value) in branch {
        match (node.get_mut(&keyword), value) {
            (Some(Value::String(mine)), Value::String(theirs))
                if keyword == "description" && *mine != theirs =>
            {
                *mine = format!("{} {theirs}", mine.trim_end());
            }
            (Some(_), _) => {}
            (None, value) => {
                node.insert(keyword, value);
            }
        }
    }
}

/// Branches that each allow one fixed string, as one string `enum`, with the branches'
/// descriptions as `value: description` text.
fn string_choice(branches: &[Value]) -> Option<(Value, String)> {
    let mut values = Vec::new();
    let mut docs = Vec::new();
    for branch in branches {
        let [value @ Value::String(text)] = branch.get("enum")?.as_array()?.as_slice() else {
            return None;
        };
        values.push(value.clone());
        if let Some(description) = branch.get("description").and_then(Value::as_str) {
            docs.push(format!("{text}: {}", description.trim_end_matches('.')));
        }
    }
    (values.len() > 1).then(|| (json!({"type": "string", "enum": values}), docs.join("; ")))
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").is_some_and(|kind| kind == "null") || schema.get("enum") == Some(&json!([null]))
}

/// Gemini enum values are strings: `null` becomes `nullable`; numbers are written as
/// strings under `format: enum`, which makes Gemini send the numbers; other values
/// (booleans) are described.
fn string_enum(node: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = node.get_mut("enum") else {
        return;
    };
    if values.contains(&Value::Null) {
        values.retain(|value| !value.is_null());
        node.insert("nullable".into(), Value::Bool(true));
    }
    let values = node
        .get("enum")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let kind = type_of(&values);
    if kind != "mixed" {
        node.entry("type").or_insert_with(|| kind.into());
    }
    match kind {
        "string" => {}
        "integer" | "number" => {
            let strings = values
                .iter()
                .map(|value| Value::String(value.to_string()))
                .collect();
            node.insert("enum".into(), Value::Array(strings));
            node.insert("format".into(), "enum".into());
        }
        _ => super::describe::move_to_description(node, &["enum"]),
    }
}

/// The JSON type all `values` share: `string`, `integer`, `number`, or `mixed`.
fn type_of(values: &[Value]) -> &'static str {
    let all = |test: fn(&Value) -> bool| values.iter().all(test);
    if all(Value::is_string) {
        "string"
    } else if all(|value| value.is_i64() || value.is_u64()) {
        "integer"
    } else if all(Value::is_number) {
        "number"
    } else if all(Value::is_boolean) {
        "boolean"
    } else {
        "mixed"
    }
}

/// What Gemini cannot accept about a node's shape after the rewrites.
fn shape_problem(node: &mut Map<String, Value>, free_form: bool) -> Option<&'static str> {
    if node.contains_key("anyOf") {
        return None;
    }
    if !node.contains_key("type") {
        return Some("accepts any JSON value; Gemini needs a type");
    }
    if has_type(node, "object") {
        let names: Vec<Value> = match node.get("properties").and_then(Value::as_object) {
            Some(properties) if !properties.is_empty() => {
                properties.keys().cloned().map(Value::String).collect()
            }
            _ if free_form => {
                return Some("is a map with free-form keys; Gemini objects need named properties");
            }
            _ => return Some("is an object without properties; Gemini objects need at least one"),
        };
        if let Some(Value::Array(required)) = node.get_mut("required") {
            required.retain(|name| names.contains(name));
        }
    }
    if has_type(node, "array") && !node.contains_key("items") {
        return Some("is an array without `items`; Gemini arrays need an item type");
    }
    None
}

/// The schema for `parametersJsonSchema`; what it cannot say goes to `issues`.
fn json_schema(schema: &Value, issues: &mut Vec<SchemaIssue>) -> Value {
    let mut schema = schema.clone();
    // Merges `allOf` branches, which this subset lacks.
    inline_refs(&mut schema, Inline::WithSiblings, issues);
    json_schema_node(&mut schema, "", issues);
    schema
}

fn json_schema_node(schema: &mut Value, path: &str, issues: &mut Vec<SchemaIssue>) {
    let Value::Object(node) = schema else { return };
    const_to_enum(node);
    let impossible = JSON_SCHEMA.sort(node);
    if !impossible.is_empty() {
        issues.push(SchemaIssue::new(
            path,
            JSON_SCHEMA.unsupported("parametersJsonSchema", &impossible),
        ));
    }
    if let Some(Value::Array(values)) = node.get_mut("enum") {
        // `null` is allowed by the `type` list, and enums hold strings and numbers.
        values.retain(|value| !value.is_null());
        if !values.iter().all(|value| value.is_string() || value.is_number()) {
            super::describe::move_to_description(node, &["enum"]);
        }
    }
    for_each_child_mut(schema, |segment, child| {
        json_schema_node(child, &join(path, segment), issues)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(schema: Value, mode: GeminiSchema) -> (Value, Definition) {
        let spec = ToolSpec::new("t", "Test.", schema);
        let mut definition = Definition::new(Value::Null);
        let value = super::definition(&spec, mode, &mut definition);
        (value, definition)
    }

    #[test]
    fn references_are_inlined_and_nulls_become_nullable() {
        let schema = json!({
            "type": "object",
            "properties": {
                "inner": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}], "description": "Inner."},
                "name": {"type": ["string", "null"], "title": "x"},
                "mode": {"type": "string", "const": "fast"},
                "level": {"enum": [1, 2, null]},
                "count": {"type": "integer", "format": "uint8", "minimum": 0, "exclusiveMaximum": 10}
            },
            "required": ["inner"],
            "additionalProperties": false,
            "$defs": {"Inner": {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"], "additionalProperties": false}}
        });
        let (value, definition) = render(schema, GeminiSchema::Auto);
        assert!(
            definition.fallbacks.is_empty() && definition.problems.is_empty(),
            "{definition:?}"
        );
        assert_eq!(
            value["parameters"],
            json!({
                "type": "object",
                "properties": {
                    "inner": {"description": "Inner.", "type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"], "nullable": true},
                    "name": {"type": "string", "nullable": true},
                    "mode": {"type": "string", "enum": ["fast"]},
                    "level": {"type": "integer", "nullable": true, "enum": ["1", "2"], "format": "enum"},
                    "count": {"type": "integer", "minimum": 0, "description": "Less than 10"}
                },
                "required": ["inner"]
            })
        );
    }

    #[test]
    fn choices_stand_alone() {
        let schema = json!({
            "type": "object",
            "properties": {"v": {"description": "V.", "anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}},
            "additionalProperties": false
        });
        let (value, _) = render(schema, GeminiSchema::OpenApi);
        assert_eq!(
            value["parameters"]["properties"]["v"],
            json!({"anyOf": [
                {"type": "string", "description": "V.", "nullable": true},
                {"type": "integer", "description": "V.", "nullable": true}
            ]})
        );
    }

    #[test]
    fn maps_and_recursion_fall_back_to_json_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "env": {"type": "object", "additionalProperties": {"type": "string"}},
                "tree": {"$ref": "#/$defs/Node"}
            },
            "required": ["env", "tree"],
            "additionalProperties": false,
            "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "uniqueItems": true}}, "required": ["kids"]}}
        });
        let (value, definition) = render(schema.clone(), GeminiSchema::Auto);
        assert!(value.get("parameters").is_none());
        assert_eq!(definition.fallbacks.len(), 2, "{:?}", definition.fallbacks);
        assert!(definition.problems.is_empty(), "{:?}", definition.problems);
        let parameters = &value["parametersJsonSchema"];
        assert_eq!(
            parameters["properties"]["env"]["additionalProperties"],
            json!({"type": "string"})
        );
        assert_eq!(
            parameters["$defs"]["Node"]["properties"]["kids"]["description"],
            "Items must be unique"
        );

        let (_, definition) = render(schema, GeminiSchema::OpenApi);
        assert_eq!(definition.problems.len(), 2);
    }

    #[test]
    fn a_null_only_field_falls_back_to_json_schema() {
        // Found by the `dialects` fuzz target: a field of type `()` (`"type": "null"`)
        // went into `parameters`, which has no null type.
        let schema = json!({
            "type": "object",
            "properties": {"unit": {"type": "null"}, "path": {"type": "string"}},
            "additionalProperties": false
        });
        let (value, definition) = render(schema.clone(), GeminiSchema::Auto);
        assert!(value.get("parameters").is_none(), "{value}");
        assert_eq!(definition.fallbacks.len(), 1, "{:?}", definition.fallbacks);
        assert!(definition.problems.is_empty(), "{:?}", definition.problems);
        let violations = crate::testing::provider_rule_violations(crate::dialect::Dialect::Gemini, &value);
        assert!(violations.is_empty(), "{violations:?}");
        let (_, definition) = render(schema, GeminiSchema::OpenApi);
        assert_eq!(definition.problems.len(), 1, "{:?}", definition.problems);
    }

    #[test]
    fn no_arguments_no_parameters() {
        let (value, _) = render(json!({"type": "object", "properties": {}}), GeminiSchema::Auto);
        assert_eq!(value, json!({"name": "t", "description": "Test."}));
    }
}
