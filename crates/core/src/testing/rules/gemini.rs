//! Google Gemini function declarations.
//!
//! Written from the Gemini API reference: `FunctionDeclaration` (its fields, the name
//! rule, `parameters` and `parametersJsonSchema` being mutually exclusive, as are
//! `response` and `responseJsonSchema`), `Schema` (the OpenAPI 3.0 subset `parameters`
//! and `response` use) and the JSON Schema subset `parametersJsonSchema` accepts.
//! Decided readings where the docs are loose or disagree:
//!
//! - `Schema` fields are those in [`SCHEMA_FIELDS`]; `title` is not among them.
//! - `type` names are lowercase as in OpenAPI, or uppercase as in the API's `Type` enum;
//!   `"null"` is not a type: nullability is `nullable: true`.
//! - `enum` belongs to strings only; an object needs non-empty `properties`; a node with
//!   `anyOf` has nothing else.

use serde_json::{Map, Value};

use super::walk;
use super::{
    Kind, NameRule, Violations, as_object, check_name, check_object_root, check_required_exist,
    disallowed_keys, expect, forbidden_keys,
};

/// The fields of a function declaration.
const FIELDS: [&str; 7] = [
    "name",
    "description",
    "parameters",
    "parametersJsonSchema",
    "behavior",
    "response",
    "responseJsonSchema",
];

/// A letter or `_`, then letters, digits, `_`, `.`, `:` or `-`; at most 64 characters.
const NAME: NameRule = NameRule {
    max_len: 64,
    first: |c| c.is_ascii_alphabetic() || c == '_',
    allowed: |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'),
    described: "a letter or `_` followed by [a-zA-Z0-9_.:-], at most 64 characters",
};

/// The fields of a Gemini `Schema` (OpenAPI 3.0 subset).
const SCHEMA_FIELDS: [&str; 21] = [
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
];

/// The type names of a Gemini `Schema`.
const SCHEMA_TYPES: [&str; 6] = ["string", "number", "integer", "boolean", "array", "object"];

/// The keywords of the JSON Schema subset `parametersJsonSchema` accepts.
const JSON_KEYWORDS: [&str; 21] = [
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
];

/// Checks a Gemini function declaration.
pub(super) fn check(definition: &Value, found: &mut Violations) {
    let Some(fields) = as_object(definition, "", found) else {
        return;
    };
    disallowed_keys(
        fields,
        "",
        &FIELDS,
        "is not a field of a Gemini function declaration",
        found,
    );
    check_name(fields, "", &NAME, found);
    expect(fields, "", "description", Kind::String, false, found);
    expect(fields, "", "behavior", Kind::String, false, found);
    check_exclusive(fields, "parameters", "parametersJsonSchema", found);
    check_exclusive(fields, "response", "responseJsonSchema", found);
    if let Some(schema) = fields.get("parameters") {
        check_object_root(schema, "parameters", found);
        check_schema(schema, "parameters", found);
    }
    if let Some(schema) = fields.get("parametersJsonSchema") {
        check_object_root(schema, "parametersJsonSchema", found);
        check_json_subset(schema, "parametersJsonSchema", found);
    }
    if let Some(schema) = fields.get("response") {
        check_schema(schema, "response", found);
    }
    if let Some(schema) = fields.get("responseJsonSchema") {
        check_json_subset(schema, "responseJsonSchema", found);
    }
}

fn check_exclusive(fields: &Map<String, Value>, one: &str, other: &str, found: &mut Violations) {
    if fields.contains_key(one) && fields.contains_key(other) {
        found.add("", format!("`{one}` and `{other}` are mutually exclusive"));
    }
}

/// Checks a Gemini `Schema` (OpenAPI 3.0 subset) and every schema inside it.
fn check_schema(schema: &Value, path: &str, found: &mut Violations) {
    for node in walk::subschemas(schema, path) {
        match node.keywords() {
            Some(keywords) => check_schema_node(keywords, &node.path, found),
            None => found.add(
                &node.path,
                "must be a schema object (OpenAPI has no boolean schemas)",
            ),
        }
    }
}

fn check_schema_node(keywords: &Map<String, Value>, path: &str, found: &mut Violations) {
    disallowed_keys(
        keywords,
        path,
        &SCHEMA_FIELDS,
        "is not a field of a Gemini `Schema`",
        found,
    );
    if keywords.contains_key("anyOf") && keywords.len() > 1 {
        found.add(path, "a schema with `anyOf` must have no other fields");
    }
    let kind = schema_type(keywords, path, found);
    check_object_fields(keywords, kind, path, found);
    check_array_fields(keywords, kind, path, found);
    check_enum(keywords, kind, path, found);
}

/// The schema's type, lowercase, reporting a `type` Gemini does not know.
///
/// `type` is a required field of `Schema` (the API reference marks it "Required"); only a
/// node that is an `anyOf` goes without.
fn schema_type(keywords: &Map<String, Value>, path: &str, found: &mut Violations) -> Option<&'static str> {
    let Some(declared) = keywords.get("type") else {
        if !keywords.contains_key("anyOf") {
            found.add(path, "has no `type`, which a Gemini `Schema` requires");
        }
        return None;
    };
    let Some(name) = declared.as_str() else {
        found.add(
            path,
            format!("`type` {declared} must be one type name (use `nullable` for null)"),
        );
        return None;
    };
    let known = SCHEMA_TYPES
        .into_iter()
        .find(|known| name == *known || name == known.to_ascii_uppercase());
    if known.is_none() {
        let hint = if name.eq_ignore_ascii_case("null") {
            " (use `nullable: true`)"
        } else {
            ""
        };
        found.add(
            path,
            format!("`type` {name:?} is not one of {}{hint}", SCHEMA_TYPES.join(", ")),
        );
    }
    known
}

fn check_object_fields(
    keywords: &Map<String, Value>,
    kind: Option<&str>,
    path: &str,
    found: &mut Violations,
) {
    if kind != Some("object") {
        return forbidden_keys(
            keywords,
            path,
            &["properties", "required"],
            "needs `type: object`",
            found,
        );
    }
    if walk::property_names(keywords).is_empty() {
        found.add(path, "an object needs non-empty `properties`");
    }
    check_required_exist(keywords, path, found);
}

fn check_array_fields(keywords: &Map<String, Value>, kind: Option<&str>, path: &str, found: &mut Violations) {
    if kind != Some("array") {
        forbidden_keys(keywords, path, &["items"], "needs `type: array`", found);
    } else if !keywords.contains_key("items") {
        found.add(path, "an array needs `items`");
    }
}

fn check_enum(keywords: &Map<String, Value>, kind: Option<&str>, path: &str, found: &mut Violations) {
    let Some(values) = keywords.get("enum") else {
        return;
    };
    // Enum values are strings; a number enum says so with `format: enum` (the Vertex AI
    // `Schema` reference: `{type: INTEGER, format: enum, enum: ["101", "201"]}`).
    let number_enum = matches!(kind, Some("integer" | "number"))
        && keywords.get("format").and_then(Value::as_str) == Some("enum");
    if kind != Some("string") && !number_enum {
        found.add(
            path,
            "`enum` needs `type: string` (or a number type with `format: enum`)",
        );
    }
    let values = values.as_array().into_iter().flatten();
    for value in values.filter(|value| !value.is_string()) {
        found.add(path, format!("enum value {value} is not a string"));
    }
}

/// Checks a schema against the JSON Schema subset of `parametersJsonSchema`.
fn check_json_subset(schema: &Value, path: &str, found: &mut Violations) {
    for node in walk::subschemas(schema, path) {
        let Some(keywords) = node.keywords() else {
            continue;
        };
        let why = "is not in the JSON Schema subset Gemini supports";
        disallowed_keys(keywords, &node.path, &JSON_KEYWORDS, why, found);
        let values = keywords
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for value in values.filter(|value| !value.is_string() && !value.is_number()) {
            found.add(
                &node.path,
                format!("enum value {value} is not a string or a number"),
            );
        }
        if let Some(problem) = walk::ref_problem(schema, keywords) {
            found.add(&node.path, problem);
        }
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

    /// A declaration whose `parameters` has one property `x` of `schema`.
    fn param_x(schema: Value) -> Vec<String> {
        check_tool(&json!({ "name": "f", "parameters": { "type": "object", "properties": { "x": schema } } }))
    }

    /// A declaration whose `parametersJsonSchema` has one property `x` of `schema`.
    fn json_x(schema: Value) -> Vec<String> {
        let parameters = json!({ "type": "object", "properties": { "x": schema } });
        check_tool(&json!({ "name": "f", "parametersJsonSchema": parameters }))
    }

    #[test]
    fn a_valid_openapi_declaration_passes() {
        let definition = json!({
            "name": "get_weather", "description": "Weather", "behavior": "BLOCKING",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": { "type": "string", "nullable": true, "enum": ["Paris", "Rome"] },
                    "days": { "type": "ARRAY", "items": { "type": "integer", "minimum": 1 }, "maxItems": 3 },
                    "at": { "anyOf": [{ "type": "string", "format": "date-time" }, { "type": "number" }] },
                },
                "required": ["city"],
                "propertyOrdering": ["city", "days", "at"],
            },
            "response": { "type": "string" },
        });
        assert_eq!(check_tool(&definition), Vec::<String>::new());
    }

    #[test]
    fn a_valid_json_schema_declaration_passes() {
        let definition = json!({ "name": "ns:get.weather-1", "parametersJsonSchema": {
            "type": "object",
            "properties": {
                "unit": { "type": ["string", "null"], "enum": ["C", "F", 1] },
                "day": { "$ref": "#/$defs/Day" },
            },
            "additionalProperties": false,
            "required": ["unit"],
            "$defs": { "Day": { "oneOf": [{ "type": "integer" }] } },
        } });
        assert_eq!(check_tool(&definition), Vec::<String>::new());
    }

    #[test]
    fn a_tool_without_arguments_may_omit_parameters() {
        assert!(check_tool(&json!({ "name": "_now", "description": "The time" })).is_empty());
    }

    #[test]
    fn fields_are_checked() {
        let found = check_tool(&json!({
            "name": "f", "description": 3, "input_schema": {},
            "parameters": { "type": "object", "properties": { "a": { "type": "string" } } },
            "parametersJsonSchema": { "type": "object" },
            "response": { "type": "string" }, "responseJsonSchema": {},
        }));
        assert!(mentions(&found, "description", "must be a string"));
        assert!(mentions(&found, "(definition)", "`input_schema` is not a field"));
        assert!(mentions(
            &found,
            "(definition)",
            "`parameters` and `parametersJsonSchema` are mutually"
        ));
        assert!(mentions(
            &found,
            "(definition)",
            "`response` and `responseJsonSchema` are mutually"
        ));
        assert_eq!(found.len(), 4, "{found:?}");
    }

    #[test]
    fn names_start_with_a_letter_or_underscore() {
        let name = |name: &str| check_tool(&json!({ "name": name }));
        assert!(name("_a.b:c-d_9").is_empty());
        assert!(mentions(&name("9lives"), "name", "a letter or `_`"));
        assert!(mentions(&name("a/b"), "name", "[a-zA-Z0-9_.:-]"));
        assert_eq!(name(&"a".repeat(65)).len(), 1);
        assert!(mentions(
            &check_tool(&json!({})),
            "(definition)",
            "`name` is required"
        ));
    }

    #[test]
    fn parameters_root_is_an_object() {
        let found = check_tool(&json!({ "name": "f", "parameters": { "type": "string" } }));
        assert!(mentions(&found, "parameters", "\"type\": \"object\""));
        let found = check_tool(&json!({ "name": "f", "parametersJsonSchema": { "type": "array" } }));
        assert!(mentions(&found, "parametersJsonSchema", "\"type\": \"object\""));
    }

    #[test]
    fn schema_fields_are_the_openapi_subset() {
        for keyword in [
            "title",
            "examples",
            "exclusiveMinimum",
            "uniqueItems",
            "additionalProperties",
            "$ref",
        ] {
            let found = param_x(json!({ "type": "string", (keyword): 1 }));
            assert!(
                mentions(
                    &found,
                    "parameters/properties/x",
                    &format!("`{keyword}` is not a field")
                ),
                "{found:?}"
            );
        }
        for keyword in ["$schema", "$defs", "const", "oneOf", "allOf", "not"] {
            assert!(
                !param_x(json!({ "type": "string", (keyword): {} })).is_empty(),
                "{keyword}"
            );
        }
    }

    #[test]
    fn every_schema_has_a_type_unless_it_is_a_choice() {
        let found = param_x(json!({ "description": "anything" }));
        assert!(mentions(&found, "parameters/properties/x", "has no `type`"));
        assert!(param_x(json!({ "anyOf": [{ "type": "string" }, { "type": "integer" }] })).is_empty());
    }

    #[test]
    fn schema_types_are_single_and_not_null() {
        let found = param_x(json!({ "type": ["string", "null"] }));
        assert!(mentions(
            &found,
            "parameters/properties/x",
            "must be one type name"
        ));
        let found = param_x(json!({ "type": "null" }));
        assert!(mentions(
            &found,
            "parameters/properties/x",
            "use `nullable: true`"
        ));
        let found = param_x(json!({ "type": "String" }));
        assert!(mentions(&found, "parameters/properties/x", "`type` \"String\""));
    }

    #[test]
    fn properties_and_required_belong_to_objects() {
        let found = param_x(json!({ "type": "string", "properties": {}, "required": [] }));
        assert!(mentions(
            &found,
            "parameters/properties/x",
            "`properties` needs `type: object`"
        ));
        assert!(mentions(
            &found,
            "parameters/properties/x",
            "`required` needs `type: object`"
        ));
    }

    #[test]
    fn objects_have_properties_and_require_only_those() {
        let found = param_x(json!({ "type": "object", "properties": {}, "required": ["a"] }));
        assert!(mentions(
            &found,
            "parameters/properties/x",
            "non-empty `properties`"
        ));
        assert!(mentions(
            &found,
            "parameters/properties/x",
            "`required` lists `a`"
        ));
        let found = check_tool(&json!({ "name": "f", "parameters": { "type": "object" } }));
        assert!(mentions(&found, "parameters", "non-empty `properties`"));
    }

    #[test]
    fn arrays_and_only_arrays_have_items() {
        assert!(mentions(
            &param_x(json!({ "type": "array" })),
            "parameters/properties/x",
            "needs `items`"
        ));
        let found = param_x(json!({ "type": "string", "items": { "type": "string" } }));
        assert!(mentions(
            &found,
            "parameters/properties/x",
            "`items` needs `type: array`"
        ));
    }

    #[test]
    fn enums_are_strings_of_strings() {
        let found = param_x(json!({ "type": "integer", "enum": [1, 2] }));
        assert!(mentions(
            &found,
            "parameters/properties/x",
            "`enum` needs `type: string`"
        ));
        assert!(mentions(
            &found,
            "parameters/properties/x",
            "enum value 1 is not a string"
        ));
        assert_eq!(found.len(), 3, "{found:?}");
    }

    #[test]
    fn any_of_stands_alone() {
        let found = param_x(json!({ "anyOf": [{ "type": "string" }], "description": "d" }));
        assert!(mentions(
            &found,
            "parameters/properties/x",
            "`anyOf` must have no other fields"
        ));
        let found = param_x(json!({ "anyOf": [{ "type": "string", "title": "t" }] }));
        assert!(mentions(&found, "parameters/properties/x/anyOf/0", "`title`"));
    }

    #[test]
    fn response_schemas_are_checked_too() {
        let found = check_tool(&json!({ "name": "f", "response": { "type": "array" } }));
        assert!(mentions(&found, "response", "needs `items`"));
        let found = check_tool(&json!({ "name": "f", "responseJsonSchema": { "not": {} } }));
        assert!(mentions(&found, "responseJsonSchema", "`not`"));
    }

    #[test]
    fn json_schema_keywords_are_the_subset() {
        for keyword in [
            "minLength",
            "const",
            "allOf",
            "not",
            "exclusiveMinimum",
            "nullable",
            "$schema",
        ] {
            let found = json_x(json!({ "type": "string", (keyword): 1 }));
            assert!(
                mentions(&found, "parametersJsonSchema/properties/x", keyword),
                "{found:?}"
            );
        }
    }

    #[test]
    fn json_schema_enums_are_strings_or_numbers() {
        let found = json_x(json!({ "enum": ["a", 1.5, true, null] }));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(mentions(
            &found,
            "parametersJsonSchema/properties/x",
            "enum value true"
        ));
    }

    #[test]
    fn json_schema_refs_are_local_and_resolve() {
        let found = json_x(json!({ "items": { "$ref": "#/$defs/Gone" } }));
        assert!(mentions(
            &found,
            "parametersJsonSchema/properties/x/items",
            "does not resolve"
        ));
        let found = json_x(json!({ "$ref": "https://example.com/a" }));
        assert!(mentions(
            &found,
            "parametersJsonSchema/properties/x",
            "not a local reference"
        ));
    }
}
