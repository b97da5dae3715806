//! OpenAI function definitions (Chat Completions and Responses) and the strict form of a
//! schema (Structured Outputs).
//!
//! Strict mode needs every property in `required`, so an optional field becomes a
//! required one that may be `null` (`["integer","null"]`, or an `anyOf` with `null` for a
//! reference). The registry treats such a `null` as "not given" before validating, so it
//! deserializes to `None` or the field's default.

use serde_json::{Map, Value, json};

use super::keywords::KeywordRules;
use super::refs::{Inline, inline_refs};
use super::strict::rewrite;
use super::tree::{accepts_null, for_each_child, for_each_child_mut, is_object_schema, join};
use super::{Dialect, SchemaIssue};
use crate::spec::{FreeformFormat, ToolSpec};

const RULES: KeywordRules = KeywordRules {
    provider: "OpenAI",
    kept: &[
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
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "maxItems",
    ],
    described: &[
        "minLength",
        "maxLength",
        "default",
        "examples",
        "uniqueItems",
        "minProperties",
        "maxProperties",
    ],
    formats: &[
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    ],
    max_min_items: None,
};

/// Documented limits of a strict schema.
const MAX_DEPTH: usize = 10;
const MAX_PROPERTIES: usize = 5000;
const MAX_ENUM_VALUES: usize = 1000;
const MAX_TOTAL_STRING: usize = 120_000;
/// An enum with more values than this has a limit on its total length.
const LARGE_ENUM: usize = 250;
const MAX_LARGE_ENUM_STRING: usize = 15_000;

/// The definition in Chat Completions or Responses shape.
pub(super) fn definition(spec: &ToolSpec, dialect: Dialect, parameters: Value, strict: bool) -> Value {
    if dialect == Dialect::OpenAiResponses {
        // Responses makes a tool strict when `strict` is left out, so it is always said.
        return json!({
            "type": "function",
            "name": spec.meta.name,
            "description": spec.meta.description,
            "parameters": parameters,
            "strict": strict,
        });
    }
    let mut function = json!({
        "name": spec.meta.name,
        "description": spec.meta.description,
        "parameters": parameters,
    });
    if strict {
        function["strict"] = Value::Bool(true);
    }
    json!({"type": "function", "function": function})
}

/// The custom-tool definition of a tool with a freeform form, in Chat Completions or
/// Responses shape (OpenAI nests a grammar one level deeper in Chat Completions).
pub(super) fn custom_definition(spec: &ToolSpec, dialect: Dialect) -> Value {
    let format = match spec.meta.freeform.as_ref().map(|freeform| &freeform.format) {
        Some(FreeformFormat::Lark(grammar)) => Some(("lark", grammar)),
        Some(FreeformFormat::Regex(pattern)) => Some(("regex", pattern)),
        _ => None,
    };
    let format = match (format, dialect) {
        (None, _) => json!({"type": "text"}),
        (Some((syntax, definition)), Dialect::OpenAiResponses) => {
            json!({"type": "grammar", "syntax": syntax, "definition": definition})
        }
        (Some((syntax, definition)), _) => {
            json!({"type": "grammar", "grammar": {"syntax": syntax, "definition": definition}})
        }
    };
    let custom = json!({
        "name": spec.meta.name,
        "description": spec.meta.description,
        "format": format,
    });
    if dialect == Dialect::OpenAiResponses {
        let mut tool = json!({"type": "custom"});
        if let (Value::Object(tool), Value::Object(custom)) = (&mut tool, custom) {
            tool.extend(custom);
        }
        return tool;
    }
    json!({"type": "custom", "custom": custom})
}

/// The strict form of a (root-flattened) schema, or why there is none.
pub(super) fn strict_schema(schema: &Value) -> Result<Value, Vec<SchemaIssue>> {
    let mut schema = schema.clone();
    let mut issues = Vec::new();
    inline_refs(&mut schema, Inline::WithSiblings, &mut issues);
    issues.extend(rewrite(&mut schema, &RULES));
    require_everything(&mut schema);
    if schema.get("anyOf").is_some() {
        issues.push(SchemaIssue::new(
            "",
            "the root is a choice (`anyOf`); OpenAI strict needs an object",
        ));
    }
    issues.extend(check_limits(&schema));
    if issues.is_empty() {
        Ok(schema)
    } else {
        Err(issues)
    }
}

/// Makes every property of every object required, optional ones nullable.
fn require_everything(schema: &mut Value) {
    if let Value::Object(node) = schema
        && is_object_schema(node)
    {
        require_all_properties(node);
    }
    for_each_child_mut(schema, |_, child| require_everything(child));
}

fn require_all_properties(node: &mut Map<String, Value>) {
    let required: Vec<Value> = node
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let Some(Value::Object(properties)) = node.get_mut("properties") else {
        return;
    };
    let mut all = Vec::with_capacity(properties.len());
    for (name, schema) in properties.iter_mut() {
        let name = Value::String(name.clone());
        if !required.contains(&name) {
            make_nullable(schema);
        }
        all.push(name);
    }
    node.insert("required".into(), Value::Array(all));
}

/// Lets a schema also accept `null`, in the form strict mode understands.
fn make_nullable(schema: &mut Value) {
    if accepts_null(schema) {
        return;
    }
    let Value::Object(node) = schema else { return };
    if let Some(kind) = node.get_mut("type") {
        match kind {
            Value::String(name) => *kind = json!([name, "null"]),
            Value::Array(names) => names.push("null".into()),
            _ => {}
        }
        if let Some(Value::Array(values)) = node.get_mut("enum") {
            values.push(Value::Null);
        }
        if let Some(value) = node.remove("const") {
            node.insert("enum".into(), json!([value, null]));
        }
    } else if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
    } else if let Some(Value::Array(values)) = node.get_mut("enum") {
        values.push(Value::Null);
    } else {
        let description = node.remove("description");
        let inner = Value::Object(std::mem::take(node));
        node.insert("anyOf".into(), json!([inner, {"type": "null"}]));
        if let Some(description) = description {
            node.insert("description".into(), description);
        }
    }
}

/// Sizes a strict schema may not exceed.
#[derive(Default)]
struct Sizes {
    depth: usize,
    properties: usize,
    enum_values: usize,
    string_length: usize,
    issues: Vec<SchemaIssue>,
}

fn check_limits(schema: &Value) -> Vec<SchemaIssue> {
    let mut sizes = Sizes::default();
    measure(schema, "", 0, &mut sizes);
    let totals = [
        (sizes.properties, MAX_PROPERTIES, "properties"),
        (sizes.enum_values, MAX_ENUM_VALUES, "enum values"),
        (
            sizes.string_length,
            MAX_TOTAL_STRING,
            "characters in names and enum values",
        ),
    ];
    for (size, limit, what) in totals {
        if size > limit {
            let message = format!("has {size} {what}; OpenAI strict allows at most {limit}");
            sizes.issues.push(SchemaIssue::new("", message));
        }
    }
    if sizes.depth > MAX_DEPTH {
        let message = format!(
            "nests objects {} levels deep; OpenAI strict allows {MAX_DEPTH}",
            sizes.depth
        );
        sizes.issues.push(SchemaIssue::new("", message));
    }
    sizes.issues
}

fn measure(schema: &Value, path: &str, depth: usize, sizes: &mut Sizes) {
    let Some(node) = schema.as_object() else { return };
    sizes.depth = sizes.depth.max(depth);
    if let Some(properties) = node.get("properties").and_then(Value::as_object) {
        sizes.properties += properties.len();
        sizes.string_length += properties.keys().map(String::len).sum::<usize>();
    }
    for keyword in ["$defs", "definitions"] {
        let names = node.get(keyword).and_then(Value::as_object).into_iter().flatten();
        sizes.string_length += names.map(|(name, _)| name.len()).sum::<usize>();
    }
    measure_values(node, path, sizes);
    for_each_child(schema, |segment, child| {
        let nested = usize::from(segment.starts_with("properties/"));
        measure(child, &join(path, segment), depth + nested, sizes);
    });
}

fn measure_values(node: &Map<String, Value>, path: &str, sizes: &mut Sizes) {
    let string_length = |value: &Value| value.as_str().map_or(0, str::len);
    if let Some(value) = node.get("const") {
        sizes.string_length += string_length(value);
    }
    let Some(values) = node.get("enum").and_then(Value::as_array) else {
        return;
    };
    let length: usize = values.iter().map(string_length).sum();
    sizes.enum_values += values.len();
    sizes.string_length += length;
    if values.len() > LARGE_ENUM && length > MAX_LARGE_ENUM_STRING {
        let message = format!(
            "an enum of {} values has {length} characters; OpenAI strict allows {MAX_LARGE_ENUM_STRING} above {LARGE_ENUM} values",
            values.len()
        );
        sizes.issues.push(SchemaIssue::new(path, message));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_fields_become_required_and_nullable() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "limit": {"type": "integer", "format": "uint32", "minimum": 0},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "inner": {"$ref": "#/$defs/Inner"},
                "maybe": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}]}
            },
            "required": ["path"],
            "additionalProperties": false,
            "$defs": {"Inner": {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"], "additionalProperties": false}}
        });
        let schema = strict_schema(&schema).unwrap();
        assert_eq!(
            schema["required"],
            json!(["path", "limit", "mode", "inner", "maybe"])
        );
        assert_eq!(
            schema["properties"]["limit"],
            json!({"type": ["integer", "null"], "minimum": 0})
        );
        assert_eq!(
            schema["properties"]["mode"],
            json!({"type": ["string", "null"], "enum": ["a", "b", null]})
        );
        assert_eq!(
            schema["properties"]["inner"],
            json!({"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}]})
        );
        assert_eq!(
            schema["properties"]["maybe"],
            json!({"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}]})
        );
    }

    #[test]
    fn unsupported_keywords_move_into_the_description() {
        let schema = json!({
            "type": "object",
            "properties": {"name": {"type": "string", "description": "Who.", "minLength": 1, "format": "uri", "default": "x"}},
            "required": ["name"],
            "additionalProperties": false
        });
        let schema = strict_schema(&schema).unwrap();
        assert_eq!(
            schema["properties"]["name"],
            json!({"type": "string", "description": "Who. (at least 1 character; format: uri; default: \"x\")"})
        );
    }

    #[test]
    fn maps_and_any_values_cannot_be_strict() {
        let schema = json!({
            "type": "object",
            "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}, "data": true},
            "required": ["env", "data"],
            "additionalProperties": false
        });
        let issues = strict_schema(&schema).unwrap_err();
        let paths: Vec<&str> = issues.iter().map(|issue| issue.path.as_str()).collect();
        assert_eq!(paths, ["/properties/env", "/properties/data"]);
    }

    #[test]
    fn one_of_becomes_any_of_and_ref_siblings_are_inlined() {
        let schema = json!({
            "type": "object",
            "properties": {"edit": {"$ref": "#/$defs/Edit", "description": "The edit."}},
            "required": ["edit"],
            "additionalProperties": false,
            "$defs": {"Edit": {"oneOf": [{"type": "string", "const": "undo"}, {"type": "integer"}]}}
        });
        let schema = strict_schema(&schema).unwrap();
        assert_eq!(
            schema["properties"]["edit"],
            json!({"anyOf": [{"type": "string", "const": "undo"}, {"type": "integer"}], "description": "The edit."})
        );
    }

    #[test]
    fn limits_are_checked() {
        let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
        let schema = json!({
            "type": "object",
            "properties": {"v": {"type": "string", "enum": values}},
            "required": ["v"],
            "additionalProperties": false
        });
        let issues = strict_schema(&schema).unwrap_err();
        assert!(issues[0].message.contains("1001 enum values"), "{issues:?}");
        let mut deep = json!({"type": "string"});
        for _ in 0..11 {
            deep = json!({"type": "object", "properties": {"x": deep}, "required": ["x"], "additionalProperties": false});
        }
        let issues = strict_schema(&deep).unwrap_err();
        assert!(issues[0].message.contains("11 levels"), "{issues:?}");
    }

    #[test]
    fn shapes() {
        let spec = ToolSpec::new("echo", "Repeat.", json!({"type": "object"}));
        let chat = definition(&spec, Dialect::OpenAiChat, json!({}), false);
        assert_eq!(
            chat,
            json!({"type": "function", "function": {"name": "echo", "description": "Repeat.", "parameters": {}}})
        );
        let chat = definition(&spec, Dialect::OpenAiChat, json!({}), true);
        assert_eq!(chat["function"]["strict"], true);
        let responses = definition(&spec, Dialect::OpenAiResponses, json!({}), false);
        assert_eq!(
            responses,
            json!({"type": "function", "name": "echo", "description": "Repeat.", "parameters": {}, "strict": false})
        );
    }
}
