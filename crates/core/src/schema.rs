//! The canonical JSON Schema of a tool's arguments.
//!
//! Generated once per argument type with schemars (draft 2020-12), then normalized so that
//! every provider starts from the same shape:
//!
//! - the root is an object schema with `properties` (a tool without arguments gets
//!   `{"type":"object","properties":{}}`), without the `title` and `$schema` schemars adds
//!   and without a `description`: the tool's description tells the model what the call
//!   does, and the argument struct's doc comment is for Rust readers (field doc comments
//!   do become the argument descriptions);
//! - objects that list their `properties` reject unknown ones (`additionalProperties:
//!   false`), so a misspelled argument is an error the model sees instead of a value serde
//!   silently drops. A struct opts out with
//!   `#[schemars(extend("additionalProperties" = true))]`.
//!
//! Provider dialects are transformations of this schema.

use schemars::generate::SchemaSettings;
use schemars::transform::{Transform, transform_subschemas};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

use crate::error::SchemaError;

/// The canonical input schema for an argument type.
pub fn input_schema_for<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12()
        .with_transform(CloseObjects)
        .with_transform(UnwrapDescriptions);
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    normalize_root(&mut value);
    value
}

/// The schema of a structured output type, with the root `title` and `$schema` removed.
pub fn output_schema_for<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Some(root) = value.as_object_mut() {
        remove_generator_metadata(root);
    }
    value
}

/// schemars names the root after the Rust type and the draft it follows; neither means
/// anything to a model.
fn remove_generator_metadata(root: &mut Map<String, Value>) {
    root.remove("title");
    root.remove("$schema");
}

/// The JSON Schema draft `schema` is written in: the one its root's `$schema` names,
/// else 2020-12, the draft MCP (SEP-1613) and this crate default to.
///
/// MCP lets a schema name its dialect, and the official TypeScript servers declare
/// draft-07; such a schema is read, checked and validated under draft-07's rules (its
/// `items` arrays, `definitions`, `dependencies`). Drafts 4, 6, 7, 2019-09 and 2020-12
/// are known; any other `$schema` is refused, since checking it under another draft's
/// rules could accept what it forbids.
pub(crate) fn schema_draft(schema: &Value) -> Result<jsonschema::Draft, SchemaError> {
    let draft = jsonschema::Draft::Draft202012.detect(schema);
    if draft != jsonschema::Draft::Unknown {
        return Ok(draft);
    }
    let declared = schema.get("$schema").cloned().unwrap_or(Value::Null);
    Err(SchemaError::UnknownDraft { declared })
}

/// Checks that a schema can describe tool arguments: it must be an object schema.
pub fn check_input_schema(schema: &Value) -> Result<(), SchemaError> {
    let Some(root) = schema.as_object() else {
        return Err(SchemaError::NotAnObject {
            found: crate::validation::json_type_name(schema),
        });
    };
    match root.get("type") {
        Some(Value::String(kind)) if kind == "object" => Ok(()),
        Some(other) => Err(SchemaError::RootNotObject { found: other.clone() }),
        None => Err(SchemaError::RootTypeMissing),
    }
}

fn normalize_root(schema: &mut Value) {
    let Some(root) = schema.as_object_mut() else {
        return;
    };
    remove_generator_metadata(root);
    root.remove("description");
    // An enum of struct variants is an object too; say so at the root, which providers
    // require.
    if !root.contains_key("type") && all_variants_are_objects(root) {
        root.insert("type".into(), "object".into());
    }
    let is_object = root.get("type").and_then(Value::as_str) == Some("object");
    if is_object && !root.contains_key("properties") && !has_composition(root) {
        root.insert("properties".into(), Value::Object(Map::new()));
    }
}

fn all_variants_are_objects(schema: &Map<String, Value>) -> bool {
    ["oneOf", "anyOf"].iter().any(|keyword| {
        schema
            .get(*keyword)
            .and_then(Value::as_array)
            .is_some_and(|variants| {
                !variants.is_empty()
                    && variants
                        .iter()
                        .all(|v| v.get("type").and_then(Value::as_str) == Some("object"))
            })
    })
}

fn has_composition(schema: &Map<String, Value>) -> bool {
    ["allOf", "anyOf", "oneOf", "$ref", "if"]
        .iter()
        .any(|keyword| schema.contains_key(*keyword))
}

/// Adds `additionalProperties: false` to every object schema that lists its properties and
/// says nothing about others.
///
/// Objects combined with `allOf`/`anyOf`/`oneOf`/`$ref` are left open: their properties
/// are spread over subschemas, and `additionalProperties` only sees its own siblings.
#[derive(Debug, Clone, Copy)]
struct CloseObjects;

impl Transform for CloseObjects {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        if object.contains_key("properties")
            && !object.contains_key("additionalProperties")
            && !object.contains_key("unevaluatedProperties")
            && !has_composition(object)
        {
            object.insert("additionalProperties".into(), Value::Bool(false));
        }
    }
}

/// Rejoins the lines of doc-comment descriptions (see [`crate::soft_breaks`]).
#[derive(Debug, Clone, Copy)]
struct UnwrapDescriptions;

impl Transform for UnwrapDescriptions {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        if let Some(Value::String(description)) = schema.get_mut("description") {
            *description = crate::soft_breaks::unwrap_soft_breaks(description);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    /// Arguments of a test tool.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct ReadArgs {
        /// Path of the file.
        path: String,
        /// First line, 1-based.
        offset: Option<u32>,
        inner: Inner,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        flag: bool,
    }

    #[derive(Deserialize, JsonSchema)]
    #[schemars(extend("additionalProperties" = true))]
    #[allow(dead_code)]
    struct Open {
        a: i32,
    }

    #[derive(Deserialize, JsonSchema)]
    struct Empty {}

    #[derive(Deserialize, JsonSchema)]
    #[serde(tag = "op", rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Edit {
        Replace { old: String, new: String },
        Delete { line: u32 },
    }

    #[test]
    fn struct_schema_is_closed_and_described() {
        let schema = input_schema_for::<ReadArgs>();
        assert_eq!(schema["type"], "object");
        assert!(schema.get("title").is_none());
        assert!(schema.get("$schema").is_none());
        assert!(
            schema.get("description").is_none(),
            "the struct's doc comment stays in Rust"
        );
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["properties"]["path"]["description"], "Path of the file.");
        assert_eq!(schema["required"], json!(["path", "inner"]));
        let inner = &schema["$defs"]["Inner"];
        assert_eq!(inner["additionalProperties"], false);
        check_input_schema(&schema).unwrap();
    }

    #[test]
    fn opt_out_keeps_objects_open() {
        let schema = input_schema_for::<Open>();
        assert_eq!(schema["additionalProperties"], true);
    }

    #[test]
    fn empty_struct_has_empty_properties() {
        let schema = input_schema_for::<Empty>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"], json!({}));
    }

    #[test]
    fn tagged_enum_root_is_an_object() {
        let schema = input_schema_for::<Edit>();
        assert_eq!(schema["type"], "object");
        check_input_schema(&schema).unwrap();
        for variant in schema["oneOf"].as_array().unwrap() {
            assert_eq!(variant["additionalProperties"], false);
        }
    }

    #[test]
    fn non_object_roots_are_rejected_with_a_reason() {
        let error = check_input_schema(&input_schema_for::<String>()).unwrap_err();
        assert!(matches!(error, SchemaError::RootNotObject { .. }), "{error:?}");
        assert_eq!(
            error.to_string(),
            "the root must have `\"type\": \"object\"` (tool arguments are named fields), \
             got `\"type\": \"string\"`; wrap the value in a struct"
        );
        assert_eq!(
            check_input_schema(&json!(true)).unwrap_err().to_string(),
            "the schema must be a JSON object, got `boolean`"
        );
        assert_eq!(
            check_input_schema(&json!({"properties": {}}))
                .unwrap_err()
                .to_string(),
            "the root must have `\"type\": \"object\"` (tool arguments are named fields); \
             use a struct, or an enum whose variants are all structs"
        );
    }
}
