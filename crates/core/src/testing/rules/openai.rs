//! OpenAI function tools, for Chat Completions and Responses, and strict mode.
//!
//! Written from OpenAI's "Function calling" guide, the API reference of the `tools`
//! parameter of both APIs, and "Structured Outputs → Supported schemas", which is what
//! `strict: true` holds `parameters` to. Decided readings where the docs are loose:
//!
//! - Responses treats an omitted `strict` as `true`, so a definition must state it; its
//!   API reference also marks `parameters` required.
//! - Strict mode allows only the keywords the supported-schemas page lists; anything else,
//!   `oneOf` and `minLength` included, is a violation.
//! - A `$ref` has no sibling keywords; every schema has a `type`, `enum`, `const`, `anyOf`
//!   or `$ref` (so `true` and `{}` are violations).

use serde_json::{Map, Value};

use super::walk::{self, Node};
use super::{
    Kind, NAME_64, Violations, as_object, check_closed, check_format, check_name, check_object_root,
    check_required_exist, disallowed_keys, expect, join,
};

/// The fields of the `function` of a Chat Completions tool.
const FUNCTION_FIELDS: [&str; 4] = ["name", "description", "parameters", "strict"];

/// The fields of a Responses function tool.
const RESPONSES_FIELDS: [&str; 6] = [
    "type",
    "name",
    "description",
    "parameters",
    "strict",
    "defer_loading",
];

/// The keywords strict mode supports.
const STRICT_KEYWORDS: [&str; 22] = [
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// A schema needs one of these, or it accepts anything.
const CONSTRAINING: [&str; 5] = ["type", "enum", "const", "anyOf", "$ref"];

/// The string formats strict mode supports.
const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// The type names strict mode supports.
const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// At most this many levels of nested objects.
const MAX_DEPTH: usize = 10;
/// At most this many properties in the whole schema.
const MAX_PROPERTIES: usize = 5000;
/// At most this many enum values in the whole schema.
const MAX_ENUM_VALUES: usize = 1000;
/// An enum with more string values than this is held to [`MAX_LARGE_ENUM_CHARS`].
const LARGE_ENUM: usize = 250;
/// The most characters the string values of a large enum may have together.
const MAX_LARGE_ENUM_CHARS: usize = 15_000;
/// The most characters property names, definition names, enum and const values may have.
const MAX_TOTAL_CHARS: usize = 120_000;

/// Checks a Chat Completions tool: `{"type":"function","function":{...}}`.
pub(super) fn check_chat(definition: &Value, found: &mut Violations) {
    let Some(fields) = as_object(definition, "", found) else {
        return;
    };
    disallowed_keys(
        fields,
        "",
        &["type", "function"],
        "is not a field of a Chat Completions tool",
        found,
    );
    check_type_function(fields, found);
    let Some(function) = fields.get("function") else {
        return found.add("", "`function` is required");
    };
    let Some(function) = as_object(function, "function", found) else {
        return;
    };
    disallowed_keys(
        function,
        "function",
        &FUNCTION_FIELDS,
        "is not a field of a function",
        found,
    );
    check_function(function, "function", false, found);
}

/// Checks a Responses function tool: `{"type":"function",name,description,parameters,strict}`.
pub(super) fn check_responses(definition: &Value, found: &mut Violations) {
    let Some(fields) = as_object(definition, "", found) else {
        return;
    };
    disallowed_keys(
        fields,
        "",
        &RESPONSES_FIELDS,
        "is not a field of a Responses function tool",
        found,
    );
    check_type_function(fields, found);
    check_function(fields, "", true, found);
    super::tool_search::check_defer_loading(fields, found);
}

fn check_type_function(fields: &Map<String, Value>, found: &mut Violations) {
    if fields.get("type").and_then(Value::as_str) != Some("function") {
        found.add("", "`type` must be \"function\"");
    }
}

/// The fields both APIs share; Responses requires `strict` and `parameters`.
fn check_function(fields: &Map<String, Value>, base: &str, responses: bool, found: &mut Violations) {
    check_name(fields, base, &NAME_64, found);
    expect(fields, base, "description", Kind::String, false, found);
    expect(fields, base, "strict", Kind::Bool, responses, found);
    let Some(parameters) = fields.get("parameters") else {
        if responses {
            found.add(base, "`parameters` is required");
        }
        return;
    };
    let path = join(base, "parameters");
    check_object_root(parameters, &path, found);
    if fields.get("strict") == Some(&Value::Bool(true)) {
        check_strict(parameters, &path, found);
    }
}

/// Checks `schema` (at `path`) against the rules of strict mode.
fn check_strict(schema: &Value, path: &str, found: &mut Violations) {
    if schema.get("anyOf").is_some() {
        found.add(path, "the root must not be an `anyOf` in strict mode");
    }
    for node in walk::subschemas(schema, path) {
        check_strict_node(schema, &node, found);
    }
    check_limits(schema, path, found);
}

fn check_strict_node(root: &Value, node: &Node<'_>, found: &mut Violations) {
    let path = node.path.as_str();
    let Some(keywords) = node.keywords() else {
        return found.add(
            path,
            format!("`{}` is not a schema strict mode supports", node.schema),
        );
    };
    disallowed_keys(
        keywords,
        path,
        &STRICT_KEYWORDS,
        "is not supported in strict mode",
        found,
    );
    if !CONSTRAINING.iter().any(|key| keywords.contains_key(*key)) {
        found.add(
            path,
            "accepts anything: strict mode needs `type`, `enum`, `const`, `anyOf` or `$ref`",
        );
    }
    check_format(keywords, path, &FORMATS, found);
    check_types(keywords, path, found);
    check_ref(root, keywords, path, found);
    if walk::is_object_schema(keywords) {
        check_strict_object(keywords, path, found);
        if node.object_depth == MAX_DEPTH + 1 {
            found.add(
                path,
                format!("objects are nested more than {MAX_DEPTH} levels deep"),
            );
        }
    }
}

fn check_types(keywords: &Map<String, Value>, path: &str, found: &mut Violations) {
    let Some(declared) = keywords.get("type") else {
        return;
    };
    let names = match declared {
        Value::String(_) => vec![declared],
        Value::Array(names) => names.iter().collect(),
        _ => vec![declared],
    };
    for name in names {
        if !name.as_str().is_some_and(|name| TYPES.contains(&name)) {
            found.add(path, format!("`type` {name} is not one of {}", TYPES.join(", ")));
        }
    }
}

fn check_ref(root: &Value, keywords: &Map<String, Value>, path: &str, found: &mut Violations) {
    if !keywords.contains_key("$ref") {
        return;
    }
    if keywords.len() > 1 {
        found.add(path, "a `$ref` must have no sibling keywords in strict mode");
    }
    if let Some(problem) = walk::ref_problem(root, keywords) {
        found.add(path, problem);
    }
}

/// Every object is closed and requires exactly its properties.
fn check_strict_object(keywords: &Map<String, Value>, path: &str, found: &mut Violations) {
    check_closed(keywords, path, found);
    check_required_exist(keywords, path, found);
    let required = walk::required_names(keywords);
    for name in walk::property_names(keywords) {
        if !required.contains(&name) {
            found.add(
                path,
                format!("property `{name}` must be listed in `required` in strict mode"),
            );
        }
    }
}

/// The sizes strict mode limits, summed over the whole schema.
#[derive(Debug, Default)]
struct Totals {
    properties: usize,
    enum_values: usize,
    chars: usize,
}

fn check_limits(schema: &Value, path: &str, found: &mut Violations) {
    let mut totals = Totals::default();
    for node in walk::subschemas(schema, path) {
        if let Some(keywords) = node.keywords() {
            add_totals(keywords, &node.path, &mut totals, found);
        }
    }
    let limits = [
        (totals.properties, MAX_PROPERTIES, "properties"),
        (totals.enum_values, MAX_ENUM_VALUES, "enum values"),
        (
            totals.chars,
            MAX_TOTAL_CHARS,
            "characters of names, enum and const values",
        ),
    ];
    for (total, limit, what) in limits.into_iter().filter(|(total, limit, _)| total > limit) {
        found.add(
            path,
            format!("{total} {what} in total; strict mode allows at most {limit}"),
        );
    }
}

fn add_totals(keywords: &Map<String, Value>, path: &str, totals: &mut Totals, found: &mut Violations) {
    let properties = walk::property_names(keywords);
    totals.properties += properties.len();
    totals.chars += properties.iter().map(|name| name.chars().count()).sum::<usize>();
    for key in ["$defs", "definitions"] {
        let names = keywords
            .get(key)
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(Map::keys);
        totals.chars += names.map(|name| name.chars().count()).sum::<usize>();
    }
    if let Some(values) = keywords.get("enum").and_then(Value::as_array) {
        totals.enum_values += values.len();
        totals.chars += values.iter().map(value_chars).sum::<usize>();
        check_large_enum(values, path, found);
    }
    totals.chars += keywords.get("const").map_or(0, value_chars);
}

fn check_large_enum(values: &[Value], path: &str, found: &mut Violations) {
    let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
    let chars: usize = strings.iter().map(|value| value.chars().count()).sum();
    if strings.len() > LARGE_ENUM && chars > MAX_LARGE_ENUM_CHARS {
        found.add(
            path,
            format!(
                "an enum of {} strings has {chars} characters; over {LARGE_ENUM} values allows at most \
                 {MAX_LARGE_ENUM_CHARS}",
                strings.len()
            ),
        );
    }
}

/// The length of an enum or const value: a string's characters, else its JSON text.
fn value_chars(value: &Value) -> usize {
    value
        .as_str()
        .map_or_else(|| value.to_string().len(), |text| text.chars().count())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testing::rules::tests::{mentions, run};

    fn chat(definition: &Value) -> Vec<String> {
        run(check_chat, definition)
    }

    fn responses(definition: &Value) -> Vec<String> {
        run(check_responses, definition)
    }

    /// A strict Chat Completions tool with these parameters.
    fn strict(parameters: Value) -> Vec<String> {
        chat(
            &json!({ "type": "function", "function": { "name": "f", "strict": true, "parameters": parameters } }),
        )
    }

    /// A strict root object with one property `x` of `schema`.
    fn strict_x(schema: Value) -> Vec<String> {
        strict(json!({
            "type": "object", "properties": { "x": schema }, "required": ["x"], "additionalProperties": false,
        }))
    }

    fn good_parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": { "type": "string", "description": "City", "pattern": "^[A-Z]" },
                "unit": { "type": ["string", "null"], "enum": ["C", "F", null] },
                "when": { "anyOf": [{ "type": "string", "format": "date" }, { "$ref": "#/$defs/Day" }] },
                "tags": { "type": "array", "items": { "type": "string" }, "minItems": 1, "maxItems": 3 },
            },
            "required": ["city", "unit", "when", "tags"],
            "additionalProperties": false,
            "$defs": { "Day": { "type": "integer", "minimum": 0, "maximum": 6 } },
        })
    }

    #[test]
    fn a_valid_strict_chat_tool_passes() {
        assert_eq!(strict(good_parameters()), Vec::<String>::new());
    }

    #[test]
    fn a_valid_responses_tool_passes() {
        let definition = json!({
            "type": "function", "name": "get_weather", "description": "Weather",
            "parameters": good_parameters(), "strict": true,
        });
        assert_eq!(responses(&definition), Vec::<String>::new());
    }

    #[test]
    fn chat_needs_the_function_wrapper() {
        let found = chat(&json!({ "type": "tool", "name": "f", "function": { "name": "f" } }));
        assert!(mentions(&found, "(definition)", "`name` is not a field"));
        assert!(mentions(&found, "(definition)", "`type` must be \"function\""));
        assert!(mentions(
            &chat(&json!({ "type": "function" })),
            "(definition)",
            "`function` is required"
        ));
    }

    #[test]
    fn chat_function_fields_are_checked() {
        let found = chat(&json!({ "type": "function", "function": {
            "name": "bad name", "description": 1, "strict": "yes", "extra": 0, "parameters": { "type": "string" },
        } }));
        assert!(mentions(&found, "function/name", "is not 1 to 64"));
        assert!(mentions(&found, "function/description", "must be a string"));
        assert!(mentions(&found, "function/strict", "must be a boolean"));
        assert!(mentions(&found, "function", "`extra` is not a field"));
        assert!(mentions(&found, "function/parameters", "\"type\": \"object\""));
        assert_eq!(found.len(), 5, "{found:?}");
    }

    #[test]
    fn responses_must_state_strict_and_be_flat() {
        let found = responses(&json!({ "type": "function", "function": { "name": "f" } }));
        assert!(mentions(&found, "(definition)", "`function` is not a field"));
        assert!(mentions(&found, "(definition)", "`strict` is required"));
        assert!(mentions(&found, "(definition)", "`name` is required"));
        assert!(mentions(&found, "(definition)", "`parameters` is required"));
    }

    #[test]
    fn non_strict_tools_skip_the_strict_rules() {
        let parameters =
            json!({ "type": "object", "properties": { "x": { "type": "string", "minLength": 1 } } });
        let definition = json!({ "type": "function", "function": { "name": "f", "parameters": parameters } });
        assert_eq!(chat(&definition), Vec::<String>::new());
    }

    #[test]
    fn strict_objects_are_closed() {
        let found = strict(json!({ "type": "object", "properties": {} }));
        assert!(mentions(
            &found,
            "function/parameters",
            "`additionalProperties: false`"
        ));
    }

    #[test]
    fn strict_objects_require_every_property_and_nothing_else() {
        let found = strict(json!({
            "type": "object", "properties": { "a": { "type": "string" } }, "required": ["b"],
            "additionalProperties": false,
        }));
        assert!(mentions(
            &found,
            "function/parameters",
            "property `a` must be listed in `required`"
        ));
        assert!(mentions(&found, "function/parameters", "`required` lists `b`"));
    }

    #[test]
    fn strict_rejects_unsupported_keywords_wherever_they_are() {
        let found = strict_x(json!({ "type": "string", "minLength": 1 }));
        assert_eq!(
            found,
            ["function/parameters/properties/x: `minLength` is not supported in strict mode"]
        );
        let found = strict_x(json!({ "anyOf": [{ "type": "string", "default": "a" }, { "type": "null" }] }));
        assert!(mentions(
            &found,
            "function/parameters/properties/x/anyOf/0",
            "`default`"
        ));
        for keyword in [
            "allOf",
            "oneOf",
            "not",
            "uniqueItems",
            "prefixItems",
            "nullable",
            "$schema",
        ] {
            let found = strict_x(json!({ "type": "string", (keyword): [] }));
            assert!(
                mentions(&found, "function/parameters/properties/x", keyword),
                "{keyword}"
            );
        }
    }

    #[test]
    fn strict_limits_formats() {
        assert!(strict_x(json!({ "type": "string", "format": "uuid" })).is_empty());
        let found = strict_x(json!({ "type": "string", "format": "uri" }));
        assert!(mentions(
            &found,
            "function/parameters/properties/x",
            "`format` \"uri\""
        ));
    }

    #[test]
    fn strict_types_are_json_schema_types() {
        let found = strict_x(json!({ "type": ["string", "float"] }));
        assert!(mentions(
            &found,
            "function/parameters/properties/x",
            "`type` \"float\""
        ));
    }

    #[test]
    fn strict_rejects_schemas_that_accept_anything() {
        assert!(mentions(
            &strict_x(json!({})),
            "function/parameters/properties/x",
            "accepts anything"
        ));
        assert!(mentions(
            &strict_x(json!(true)),
            "function/parameters/properties/x",
            "`true`"
        ));
        let found = strict_x(json!({ "type": "array", "items": { "description": "any" } }));
        assert!(mentions(
            &found,
            "function/parameters/properties/x/items",
            "accepts anything"
        ));
    }

    #[test]
    fn strict_refs_stand_alone_and_resolve() {
        let found = strict_x(json!({ "$ref": "#/$defs/Missing", "description": "d" }));
        assert!(mentions(
            &found,
            "function/parameters/properties/x",
            "no sibling keywords"
        ));
        assert!(mentions(
            &found,
            "function/parameters/properties/x",
            "does not resolve"
        ));
        let found = strict_x(json!({ "$ref": "https://example.com/s.json" }));
        assert!(mentions(
            &found,
            "function/parameters/properties/x",
            "not a local reference"
        ));
    }

    #[test]
    fn strict_root_is_not_an_any_of() {
        let found =
            strict(json!({ "type": "object", "anyOf": [], "properties": {}, "additionalProperties": false }));
        assert!(mentions(&found, "function/parameters", "must not be an `anyOf`"));
    }

    #[test]
    fn strict_checks_definitions_too() {
        let mut parameters = good_parameters();
        parameters["$defs"]["Day"] = json!({ "type": "object" });
        let found = strict(parameters);
        assert!(mentions(
            &found,
            "function/parameters/$defs/Day",
            "`additionalProperties: false`"
        ));
    }

    fn nested(levels: usize) -> Value {
        (1..levels).fold(json!({ "type": "string" }), |inner, _| {
            json!({ "type": "object", "properties": { "a": inner }, "required": ["a"], "additionalProperties": false })
        })
    }

    #[test]
    fn strict_limits_nesting() {
        assert!(strict(nested(11)).is_empty());
        let found = strict(nested(12));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("nested more than 10 levels"));
    }

    fn many_properties(count: usize, name_len: usize) -> Value {
        let names: Vec<String> = (0..count).map(|i| format!("{i:0name_len$}")).collect();
        let properties: Map<String, Value> = names
            .iter()
            .map(|n| (n.clone(), json!({ "type": "string" })))
            .collect();
        json!({ "type": "object", "properties": properties, "required": names, "additionalProperties": false })
    }

    #[test]
    fn strict_limits_the_number_of_properties() {
        assert!(strict(many_properties(5000, 4)).is_empty());
        let found = strict(many_properties(5001, 4));
        assert!(mentions(
            &found,
            "function/parameters",
            "5001 properties in total"
        ));
    }

    #[test]
    fn strict_limits_the_number_of_enum_values() {
        let values: Vec<usize> = (0..1001).collect();
        let found = strict_x(json!({ "type": "integer", "enum": values }));
        assert!(mentions(
            &found,
            "function/parameters",
            "1001 enum values in total"
        ));
    }

    #[test]
    fn strict_limits_the_length_of_large_string_enums() {
        let values: Vec<String> = (0..251).map(|i| format!("{i:060}")).collect();
        let found = strict_x(json!({ "type": "string", "enum": values }));
        assert!(mentions(
            &found,
            "function/parameters/properties/x",
            "an enum of 251 strings"
        ));
        let short: Vec<String> = (0..251).map(|i| i.to_string()).collect();
        assert!(strict_x(json!({ "type": "string", "enum": short })).is_empty());
    }

    #[test]
    fn strict_limits_the_total_length_of_names_and_values() {
        let found = strict(many_properties(4000, 31));
        assert!(mentions(&found, "function/parameters", "124000 characters"));
    }
}
