//! Model Context Protocol tools (specification 2025-06-18 and later).
//!
//! Written from the MCP specification's `Tool` (schema.ts and "Server features → Tools"):
//! its fields, the tool-name rule (1 to 128 of `[A-Za-z0-9_.-]`), `inputSchema` and
//! `outputSchema` as JSON Schema objects with `"type": "object"`, the `ToolAnnotations`
//! hints, and JSON Schema 2020-12 as the default dialect. SEP-1613 lets a schema name
//! another dialect with `$schema` at its root (the official TypeScript servers declare
//! draft-07); drafts 4, 6, 7 and 2019-09 are accepted, any other is reported. A schema is
//! checked against its draft's meta-schema and must compile on its own, without fetching
//! anything: a client cannot be counted on to resolve remote references.

use jsonschema::Draft;
use serde_json::Value;

use super::walk;
use super::{
    Kind, NameRule, Violations, as_object, check_name, check_object_root, disallowed_keys, expect, join,
};
use crate::schema::schema_draft;

/// The fields of a tool.
const FIELDS: [&str; 8] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "_meta",
    "icons",
];

/// The fields of `annotations`: a title, then the boolean hints.
const ANNOTATION_FIELDS: [&str; 5] = [
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// 1 to 128 characters of letters, digits, `_`, `.` and `-`.
const NAME: NameRule = NameRule {
    max_len: 128,
    first: |_| true,
    allowed: |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'),
    described: "1 to 128 characters of [A-Za-z0-9_.-]",
};

/// Checks an MCP tool: `{name, title?, description?, inputSchema, outputSchema?, annotations?}`.
pub(super) fn check(definition: &Value, found: &mut Violations) {
    let Some(fields) = as_object(definition, "", found) else {
        return;
    };
    disallowed_keys(fields, "", &FIELDS, "is not a field of an MCP tool", found);
    check_name(fields, "", &NAME, found);
    expect(fields, "", "title", Kind::String, false, found);
    expect(fields, "", "description", Kind::String, false, found);
    expect(fields, "", "_meta", Kind::Object, false, found);
    expect(fields, "", "icons", Kind::Array, false, found);
    match fields.get("inputSchema") {
        Some(schema) => check_schema(schema, "inputSchema", found),
        None => found.add("", "`inputSchema` is required"),
    }
    if let Some(schema) = fields.get("outputSchema") {
        check_schema(schema, "outputSchema", found);
    }
    if let Some(annotations) = fields.get("annotations") {
        check_annotations(annotations, found);
    }
}

fn check_annotations(annotations: &Value, found: &mut Violations) {
    let Some(fields) = as_object(annotations, "annotations", found) else {
        return;
    };
    disallowed_keys(
        fields,
        "annotations",
        &ANNOTATION_FIELDS,
        "is not a tool annotation",
        found,
    );
    expect(fields, "annotations", "title", Kind::String, false, found);
    for hint in &ANNOTATION_FIELDS[1..] {
        expect(fields, "annotations", hint, Kind::Bool, false, found);
    }
}

/// Checks `inputSchema` or `outputSchema`: an object schema in the JSON Schema draft it
/// declares (2020-12 when it declares none).
fn check_schema(schema: &Value, path: &str, found: &mut Violations) {
    check_object_root(schema, path, found);
    let draft = match schema_draft(schema) {
        Ok(draft) => draft,
        Err(unknown) => return found.add(path, unknown.to_string()),
    };
    for node in walk::subschemas(schema, path) {
        let Some(keywords) = node.keywords() else {
            continue;
        };
        if keywords.contains_key("nullable") {
            found.add(
                &node.path,
                "`nullable` is OpenAPI, not JSON Schema: use a `\"null\"` type",
            );
        }
        // Below the root, a `$schema` may only repeat the root's: a subschema in another
        // dialect is a resource of its own, which clients need not support.
        if node.path != path
            && let Some(declared) = keywords.get("$schema")
            && schema_draft(node.schema).ok() != Some(draft)
        {
            found.add(
                &node.path,
                format!("`$schema` {declared} differs from the root's; one schema, one dialect"),
            );
        }
    }
    check_valid(schema, draft, path, found);
}

/// Checks `schema` against its draft's meta-schema, then that it compiles self-contained.
fn check_valid(schema: &Value, draft: Draft, path: &str, found: &mut Violations) {
    let name = draft_name(draft);
    let meta = match draft {
        Draft::Draft4 => jsonschema::draft4::meta::validator(),
        Draft::Draft6 => jsonschema::draft6::meta::validator(),
        Draft::Draft7 => jsonschema::draft7::meta::validator(),
        Draft::Draft201909 => jsonschema::draft201909::meta::validator(),
        _ => jsonschema::draft202012::meta::validator(),
    };
    let mut valid = true;
    for error in meta.iter_errors(schema) {
        valid = false;
        let at = join(path, error.instance_path().as_str().trim_start_matches('/'));
        found.add(
            at.trim_end_matches('/'),
            format!("not valid JSON Schema {name}: {error}"),
        );
    }
    if valid && let Err(error) = jsonschema::options().with_draft(draft).build(schema) {
        found.add(
            path,
            format!("does not compile as a self-contained JSON Schema {name}: {error}"),
        );
    }
}

fn draft_name(draft: Draft) -> &'static str {
    match draft {
        Draft::Draft4 => "draft-04",
        Draft::Draft6 => "draft-06",
        Draft::Draft7 => "draft-07",
        Draft::Draft201909 => "2019-09",
        _ => "2020-12",
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

    /// A tool whose `inputSchema` has one property `x` of `schema`.
    fn input_x(schema: Value) -> Vec<String> {
        check_tool(
            &json!({ "name": "t", "inputSchema": { "type": "object", "properties": { "x": schema } } }),
        )
    }

    #[test]
    fn a_valid_tool_passes() {
        let definition = json!({
            "name": "files.read_v2", "title": "Read", "description": "Reads a file",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "path": { "type": "string", "minLength": 1 },
                    "mode": { "oneOf": [{ "const": "text" }, { "$ref": "#/$defs/Mode" }] },
                    "limit": { "type": ["integer", "null"], "default": null },
                },
                "required": ["path"],
                "$defs": { "Mode": { "enum": ["bytes"] } },
            },
            "outputSchema": { "type": "object", "properties": { "text": { "type": "string" } } },
            "annotations": { "title": "Read", "readOnlyHint": true, "openWorldHint": false },
            "_meta": { "x": 1 }, "icons": [],
        });
        assert_eq!(check_tool(&definition), Vec::<String>::new());
    }

    #[test]
    fn fields_are_checked() {
        let found = check_tool(&json!({
            "name": "t", "title": 1, "description": false, "_meta": [], "icons": {}, "input_schema": {},
        }));
        assert!(mentions(&found, "title", "must be a string"));
        assert!(mentions(&found, "description", "must be a string"));
        assert!(mentions(&found, "_meta", "must be an object"));
        assert!(mentions(&found, "icons", "must be an array"));
        assert!(mentions(&found, "(definition)", "`input_schema` is not a field"));
        assert!(mentions(&found, "(definition)", "`inputSchema` is required"));
    }

    #[test]
    fn names_follow_the_rule() {
        let name = |name: String| check_tool(&json!({ "name": name, "inputSchema": { "type": "object" } }));
        assert!(name("a".repeat(128)).is_empty());
        assert!(mentions(&name("a".repeat(129)), "name", "1 to 128"));
        assert!(mentions(&name("ns:tool".into()), "name", "[A-Za-z0-9_.-]"));
        assert!(mentions(&name(String::new()), "name", "1 to 128"));
    }

    #[test]
    fn schemas_are_objects_of_type_object() {
        let found =
            check_tool(&json!({ "name": "t", "inputSchema": { "type": "string" }, "outputSchema": [] }));
        assert!(mentions(&found, "inputSchema", "\"type\": \"object\""));
        assert!(mentions(&found, "outputSchema", "must be a JSON object"));
    }

    #[test]
    fn annotations_are_checked() {
        let found = check_tool(
            &json!({ "name": "t", "inputSchema": { "type": "object" }, "annotations": {
            "title": 2, "readOnlyHint": "yes", "destructiveHint": true, "costly": true,
        } }),
        );
        assert!(mentions(&found, "annotations/title", "must be a string"));
        assert!(mentions(&found, "annotations/readOnlyHint", "must be a boolean"));
        assert!(mentions(
            &found,
            "annotations",
            "`costly` is not a tool annotation"
        ));
        assert_eq!(found.len(), 3, "{found:?}");
    }

    #[test]
    fn nullable_is_not_json_schema() {
        let found = input_x(json!({ "type": "array", "items": { "type": "string", "nullable": true } }));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(mentions(
            &found,
            "inputSchema/properties/x/items",
            "`nullable` is OpenAPI"
        ));
    }

    #[test]
    fn a_declared_draft_is_checked_under_its_own_rules() {
        // What the TypeScript SDK's servers send: draft-07, tuple `items`, `definitions`.
        let draft_07 = json!({ "name": "t", "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {
                "pair": { "type": "array", "items": [{ "type": "string" }, { "type": "number" }] },
                "node": { "$ref": "#/definitions/Node" },
            },
            "definitions": { "Node": { "type": "object" } },
        } });
        assert_eq!(check_tool(&draft_07), Vec::<String>::new());
        // `exclusiveMinimum` is a boolean in draft-04 and a number from draft-06 on.
        let found = check_tool(&json!({ "name": "t", "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": { "n": { "type": "number", "minimum": 0, "exclusiveMinimum": true } },
        } }));
        assert!(
            mentions(&found, "inputSchema/properties/n/exclusiveMinimum", "draft-07"),
            "{found:?}"
        );
    }

    #[test]
    fn unknown_and_mixed_dialects_are_reported() {
        let found = check_tool(&json!({ "name": "t", "inputSchema": {
            "$schema": "https://example.com/my-dialect", "type": "object",
        } }));
        assert!(
            mentions(&found, "inputSchema", "a dialect this library does not know"),
            "{found:?}"
        );
        let found = check_tool(&json!({ "name": "t", "inputSchema": {
            "type": "object",
            "properties": { "x": { "$schema": "http://json-schema.org/draft-07/schema#" } },
        } }));
        assert!(
            mentions(&found, "inputSchema/properties/x", "differs from the root's"),
            "{found:?}"
        );
    }

    #[test]
    fn schemas_are_valid_json_schema() {
        let found = input_x(json!({ "type": "text", "minLength": -1 }));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(mentions(
            &found,
            "inputSchema/properties/x/type",
            "not valid JSON Schema 2020-12"
        ));
        assert!(mentions(
            &found,
            "inputSchema/properties/x/minLength",
            "not valid JSON Schema 2020-12"
        ));
    }

    #[test]
    fn schemas_compile_without_fetching_anything() {
        let found = input_x(json!({ "$ref": "#/$defs/Gone" }));
        assert!(mentions(&found, "inputSchema", "does not compile"), "{found:?}");
        let found = input_x(json!({ "type": "string", "pattern": "(" }));
        assert!(mentions(&found, "inputSchema", "does not compile"), "{found:?}");
    }
}
