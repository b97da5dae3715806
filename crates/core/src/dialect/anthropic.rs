//! Anthropic tool definitions (`input_schema`) and the strict form of a schema.
//!
//! Anthropic's strict tool use supports optional properties, so unlike OpenAI nothing
//! becomes nullable; what it lacks are numeric and length bounds (described instead),
//! `minItems` above 1, and recursive types (no strict form: the definition falls back).

use serde_json::{Value, json};

use super::SchemaIssue;
use super::keywords::{KeywordRules, WELL_KNOWN_FORMATS};
use super::refs::{prune_unused_definitions, recursive_refs};
use super::strict::rewrite;
use super::tree::{for_each_child, join};
use crate::spec::ToolSpec;

const RULES: KeywordRules = KeywordRules {
    provider: "Anthropic",
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
        "allOf",
        "$ref",
        "$defs",
        "definitions",
        "pattern",
        "default",
    ],
    described: &[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "examples",
    ],
    formats: WELL_KNOWN_FORMATS,
    max_min_items: Some(1),
};

/// The definition in Messages API shape; `strict` appears only when set.
pub(super) fn definition(spec: &ToolSpec, input_schema: Value, strict: bool) -> Value {
    let mut definition = json!({
        "name": spec.meta.name,
        "description": spec.meta.description,
        "input_schema": input_schema,
    });
    if strict {
        definition["strict"] = Value::Bool(true);
    }
    definition
}

/// The strict form of a (root-flattened) schema, or why there is none.
pub(super) fn strict_schema(schema: &Value) -> Result<Value, Vec<SchemaIssue>> {
    let mut issues: Vec<SchemaIssue> = recursive_refs(schema)
        .into_iter()
        .map(|target| {
            SchemaIssue::new(
                "",
                format!("`{target}` is recursive; Anthropic strict mode has no recursive schemas"),
            )
        })
        .collect();
    let mut schema = schema.clone();
    // Recursion is judged from the root; a definition nothing uses could still loop.
    prune_unused_definitions(&mut schema);
    issues.extend(rewrite(&mut schema, &RULES));
    complex_enum_values(&schema, "", &mut issues);
    if issues.is_empty() {
        Ok(schema)
    } else {
        Err(issues)
    }
}

/// Strict enums hold strings, numbers, booleans and null only.
fn complex_enum_values(schema: &Value, path: &str, issues: &mut Vec<SchemaIssue>) {
    let values = schema.get("enum").and_then(Value::as_array).into_iter().flatten();
    if values
        .into_iter()
        .any(|value| value.is_array() || value.is_object())
    {
        let message =
            "has arrays or objects among its `enum` values; Anthropic strict mode allows only scalars";
        issues.push(SchemaIssue::new(path, message));
    }
    for_each_child(schema, |segment, child| {
        complex_enum_values(child, &join(path, segment), issues)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_move_into_descriptions_and_optionals_stay_optional() {
        let schema = json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "one": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]}
            },
            "required": ["count"],
            "additionalProperties": false
        });
        let schema = strict_schema(&schema).unwrap();
        assert_eq!(schema["required"], json!(["count"]));
        assert_eq!(
            schema["properties"]["count"],
            json!({"type": "integer", "description": "At least 0; at most 255"})
        );
        assert_eq!(schema["properties"]["tags"]["description"], "At least 2 items");
        assert_eq!(schema["properties"]["one"]["minItems"], 1);
        assert_eq!(
            schema["properties"]["kind"],
            json!({"anyOf": [{"const": "a"}, {"const": "b"}]})
        );
    }

    #[test]
    fn recursion_has_no_strict_form() {
        let schema = json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "required": ["node"],
            "additionalProperties": false,
            "$defs": {"Node": {"type": "object", "properties": {"next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}}, "additionalProperties": false}}
        });
        let issues = strict_schema(&schema).unwrap_err();
        assert!(issues[0].message.contains("recursive"), "{issues:?}");
    }

    #[test]
    fn unused_definitions_are_dropped() {
        // Found by the `dialects` fuzz target: an unused definition that refers to itself
        // stayed in a strict schema, which then was recursive after all.
        let schema = json!({
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": false,
            "$defs": {"Loop": {"$ref": "#/$defs/Loop"}, "Unused": {"type": "string"}}
        });
        let strict = strict_schema(&schema).unwrap();
        assert_eq!(strict.get("$defs"), None, "{strict}");
        let spec = ToolSpec::new("t", "Test.", schema);
        let definition = crate::dialect::DefinitionOptions::new(crate::dialect::Dialect::Anthropic)
            .strict(crate::dialect::Strict::Always)
            .render(&spec);
        assert!(definition.strict);
        let violations =
            crate::testing::provider_rule_violations(crate::dialect::Dialect::Anthropic, &definition.value);
        assert!(violations.is_empty(), "{violations:?}");
    }

    #[test]
    fn shape() {
        let spec = ToolSpec::new("echo", "Repeat.", json!({"type": "object"}));
        assert_eq!(
            definition(&spec, json!({"type": "object"}), false),
            json!({"name": "echo", "description": "Repeat.", "input_schema": {"type": "object"}})
        );
        assert_eq!(definition(&spec, json!({}), true)["strict"], true);
    }
}
