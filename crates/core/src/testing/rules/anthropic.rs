//! Anthropic Messages API tools, and strict tool use.
//!
//! Written from Anthropic's "Define tools" page (the tool's fields, the name pattern, an
//! `input_schema` of type object), the API's rejection of `oneOf`, `anyOf` and `allOf` at
//! the top level of `input_schema`, and, for `strict: true`, "Strict tool use" with the
//! Structured Outputs "JSON Schema limitations" it refers to.

use serde_json::{Map, Value};

use super::walk;
use super::{
    Kind, NAME_64, Violations, as_object, check_closed, check_format, check_name, check_object_root,
    disallowed_keys, expect, forbidden_keys,
};

/// The fields of a tool.
const FIELDS: [&str; 7] = [
    "name",
    "defer_loading",
    "description",
    "input_schema",
    "strict",
    "cache_control",
    "input_examples",
];

/// Combinators the API rejects at the top level of `input_schema`.
const ROOT_COMBINATORS: [&str; 3] = ["oneOf", "anyOf", "allOf"];

/// Keywords strict mode does not support.
const STRICT_UNSUPPORTED: [&str; 11] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
    "contains",
    "oneOf",
];

/// The string formats strict mode supports.
const FORMATS: [&str; 10] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Checks an Anthropic tool: `{name, description, input_schema, strict?, ...}`.
pub(super) fn check(definition: &Value, found: &mut Violations) {
    let Some(fields) = as_object(definition, "", found) else {
        return;
    };
    disallowed_keys(fields, "", &FIELDS, "is not a field of an Anthropic tool", found);
    check_name(fields, "", &NAME_64, found);
    expect(fields, "", "description", Kind::String, false, found);
    expect(fields, "", "strict", Kind::Bool, false, found);
    expect(fields, "", "cache_control", Kind::Object, false, found);
    expect(fields, "", "input_examples", Kind::Array, false, found);
    super::tool_search::check_defer_loading(fields, found);
    let Some(schema) = fields.get("input_schema") else {
        return found.add("", "`input_schema` is required");
    };
    check_object_root(schema, "input_schema", found);
    if let Some(root) = schema.as_object() {
        let why = "is not allowed at the top level of `input_schema`";
        forbidden_keys(root, "input_schema", &ROOT_COMBINATORS, why, found);
    }
    if fields.get("strict") == Some(&Value::Bool(true)) {
        check_strict(schema, found);
    }
}

/// Checks `input_schema` against the limits of strict tool use.
fn check_strict(schema: &Value, found: &mut Violations) {
    for node in walk::subschemas(schema, "input_schema") {
        if let Some(keywords) = node.keywords() {
            check_strict_node(schema, keywords, &node.path, found);
        }
    }
    for node in walk::recursive_refs(schema, "input_schema") {
        found.add(
            &node.path,
            "this `$ref` makes the schema recursive, which strict mode does not support",
        );
    }
}

fn check_strict_node(root: &Value, keywords: &Map<String, Value>, path: &str, found: &mut Violations) {
    if walk::is_object_schema(keywords) {
        check_closed(keywords, path, found);
    }
    forbidden_keys(
        keywords,
        path,
        &STRICT_UNSUPPORTED,
        "is not supported in strict mode",
        found,
    );
    if keywords
        .get("minItems")
        .is_some_and(|min| !matches!(min.as_u64(), Some(0 | 1)))
    {
        found.add(path, "`minItems` may only be 0 or 1 in strict mode");
    }
    let values = keywords
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    for value in values.filter(|value| value.is_array() || value.is_object()) {
        found.add(
            path,
            format!("enum value {value} is not a primitive, which strict mode requires"),
        );
    }
    check_format(keywords, path, &FORMATS, found);
    if let Some(problem) = walk::ref_problem(root, keywords) {
        found.add(path, problem);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testing::rules::tests::{mentions, run};

    fn check_tool(definition: &Value) -> Vec<String> {
        run(check, definition)
    }

    /// A strict tool with one property `x` of `schema`.
    fn strict_x(schema: Value) -> Vec<String> {
        check_tool(&json!({ "name": "t", "strict": true, "input_schema": {
            "type": "object", "properties": { "x": schema }, "additionalProperties": false,
        } }))
    }

    #[test]
    fn a_valid_strict_tool_passes() {
        let definition = json!({
            "name": "get_weather", "description": "Weather", "strict": true,
            "cache_control": { "type": "ephemeral" }, "input_examples": [{ "city": "Paris" }],
            "input_schema": {
                "type": "object",
                "properties": {
                    "city": { "type": "string", "format": "uri" },
                    "days": { "type": "array", "items": { "$ref": "#/$defs/Day" }, "minItems": 1 },
                    "unit": { "anyOf": [{ "enum": ["C", "F"] }, { "type": "null" }] },
                },
                "required": ["city"],
                "additionalProperties": false,
                "$defs": { "Day": { "type": "string", "enum": ["mon", 1, null] } },
            },
        });
        assert_eq!(check_tool(&definition), Vec::<String>::new());
    }

    #[test]
    fn without_strict_constraints_are_allowed() {
        let definition = json!({ "name": "t", "input_schema": {
            "type": "object", "properties": { "x": { "type": "string", "minLength": 1, "oneOf": [] } },
        } });
        assert_eq!(check_tool(&definition), Vec::<String>::new());
    }

    #[test]
    fn fields_are_checked() {
        let found = check_tool(&json!({
            "name": "a.b", "description": [], "strict": 1, "cache_control": "x", "input_examples": {},
            "parameters": {},
        }));
        assert!(mentions(&found, "name", "is not 1 to 64"));
        assert!(mentions(&found, "description", "must be a string"));
        assert!(mentions(&found, "strict", "must be a boolean"));
        assert!(mentions(&found, "cache_control", "must be an object"));
        assert!(mentions(&found, "input_examples", "must be an array"));
        assert!(mentions(&found, "(definition)", "`parameters` is not a field"));
        assert!(mentions(&found, "(definition)", "`input_schema` is required"));
    }

    #[test]
    fn the_root_is_a_plain_object() {
        let found = check_tool(&json!({ "name": "t", "input_schema": { "type": "string", "anyOf": [] } }));
        assert!(mentions(&found, "input_schema", "\"type\": \"object\""));
        assert!(mentions(
            &found,
            "input_schema",
            "`anyOf` is not allowed at the top level"
        ));
        let found = check_tool(
            &json!({ "name": "t", "input_schema": { "type": "object", "oneOf": [], "allOf": [] } }),
        );
        assert_eq!(found.len(), 2, "{found:?}");
    }

    #[test]
    fn strict_objects_are_closed() {
        let found = strict_x(json!({ "type": "object", "properties": {} }));
        assert_eq!(
            found,
            ["input_schema/properties/x: an object needs `additionalProperties: false` in strict mode"]
        );
    }

    #[test]
    fn strict_rejects_numeric_and_length_bounds() {
        let found = strict_x(json!({ "type": "integer", "minimum": 0, "maximum": 9, "multipleOf": 3 }));
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(mentions(
            &found,
            "input_schema/properties/x",
            "`minimum` is not supported"
        ));
        let found = strict_x(json!({ "type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1 }));
        assert_eq!(found.len(), 2, "{found:?}");
        let found = strict_x(json!({ "type": "string", "minLength": 1, "maxLength": 2 }));
        assert!(mentions(&found, "input_schema/properties/x", "`maxLength`"));
        assert_eq!(found.len(), 2, "{found:?}");
    }

    #[test]
    fn strict_limits_array_constraints() {
        assert!(
            strict_x(json!({ "type": "array", "items": { "type": "string" }, "minItems": 0 })).is_empty()
        );
        let found = strict_x(json!({ "type": "array", "minItems": 2, "maxItems": 3, "uniqueItems": true }));
        assert!(mentions(
            &found,
            "input_schema/properties/x",
            "`minItems` may only be 0 or 1"
        ));
        assert!(mentions(&found, "input_schema/properties/x", "`maxItems`"));
        assert!(mentions(&found, "input_schema/properties/x", "`uniqueItems`"));
        let found = strict_x(json!({ "type": "array", "contains": { "type": "string" } }));
        assert!(mentions(&found, "input_schema/properties/x", "`contains`"));
    }

    #[test]
    fn strict_rejects_one_of_but_not_any_of_or_all_of() {
        let found = strict_x(json!({ "oneOf": [{ "type": "string" }], "anyOf": [{}], "allOf": [{}] }));
        assert_eq!(
            found,
            ["input_schema/properties/x: `oneOf` is not supported in strict mode"]
        );
    }

    #[test]
    fn strict_enums_hold_primitives() {
        let found = strict_x(json!({ "enum": ["a", [1], { "b": 2 }] }));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(mentions(
            &found,
            "input_schema/properties/x",
            "[1] is not a primitive"
        ));
    }

    #[test]
    fn strict_limits_formats() {
        let found = strict_x(json!({ "type": "string", "format": "ipv4" }));
        assert!(found.is_empty());
        let found = strict_x(json!({ "type": "string", "format": "regex" }));
        assert!(mentions(
            &found,
            "input_schema/properties/x",
            "`format` \"regex\""
        ));
    }

    #[test]
    fn strict_refs_are_local_and_resolve() {
        let found = strict_x(json!({ "items": { "$ref": "#/definitions/Gone" } }));
        assert!(mentions(
            &found,
            "input_schema/properties/x/items",
            "does not resolve"
        ));
        let found = strict_x(json!({ "$ref": "other.json" }));
        assert!(mentions(
            &found,
            "input_schema/properties/x",
            "not a local reference"
        ));
    }

    #[test]
    fn strict_rejects_recursion() {
        let found = check_tool(&json!({ "name": "t", "strict": true, "input_schema": {
            "type": "object", "properties": { "root": { "$ref": "#/$defs/Node" } }, "additionalProperties": false,
            "$defs": { "Node": {
                "type": "object", "additionalProperties": false,
                "properties": { "next": { "anyOf": [{ "$ref": "#/$defs/Node" }, { "type": "null" }] } },
            } },
        } }));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(mentions(
            &found,
            "input_schema/$defs/Node/properties/next/anyOf/0",
            "recursive"
        ));
    }
}
