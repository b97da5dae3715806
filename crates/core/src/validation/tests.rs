use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::*;
use crate::schema::input_schema_for;

/// Arguments of `read_file`.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct ReadFileArgs {
    /// Path of the file.
    path: String,
    /// First line to read.
    #[schemars(range(min = 1))]
    offset: Option<u32>,
    /// How many lines.
    #[schemars(range(max = 2000))]
    limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Nested {
    mode: Mode,
    options: Options,
    tags: Vec<String>,
    #[schemars(length(min = 3, max = 5))]
    code: String,
    #[schemars(email)]
    contact: Option<String>,
    choice: Option<Options>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Mode {
    Overwrite,
    Append,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Options {
    recursive: bool,
    depth: Option<u8>,
}

fn problems<T: JsonSchema>(arguments: serde_json::Value) -> Vec<String> {
    let validator = ArgValidator::new(&input_schema_for::<T>()).unwrap();
    validator.validate(&arguments).unwrap_err()
}

#[test]
fn valid_arguments_pass() {
    let validator = ArgValidator::new(&input_schema_for::<ReadFileArgs>()).unwrap();
    assert!(validator.validate(&json!({"path": "a.txt"})).is_ok());
    assert!(
        validator
            .validate(&json!({"path": "a.txt", "offset": 3, "limit": null}))
            .is_ok()
    );
}

#[test]
fn every_problem_is_reported_with_its_path() {
    let found = problems::<ReadFileArgs>(json!({"pth": "a.txt", "limit": 5000, "offset": 0}));
    assert_eq!(
        found,
        vec![
            "`/limit`: 5000 is greater than the maximum of 2000",
            "`/offset`: 0 is less than the minimum of 1",
            "`/path`: required property is missing",
            "unknown property `pth` (did you mean `path`? expected one of: path, offset, limit)",
        ],
        "{found:#?}"
    );
}

#[test]
fn the_rendered_block_names_the_tool() {
    let rendered =
        InvalidArguments::new("read_file", problems::<ReadFileArgs>(json!({"path": 7}))).to_string();
    assert_eq!(
        rendered,
        "invalid arguments for `read_file`:\n- `/path`: expected string, got integer 7"
    );
}

#[test]
fn nested_enum_length_format_and_type_problems_are_explained() {
    let found = problems::<Nested>(json!({
        "mode": "replace",
        "options": {"recursive": "yes", "depht": 2},
        "tags": "a,b",
        "code": "ab",
        "contact": "not-an-email",
    }));
    let expected = [
        "`/mode`: \"replace\" is not one of: \"overwrite\", \"append\"",
        "`/options/recursive`: expected boolean, got string \"yes\"",
        "`/options`: unknown property `depht` (did you mean `depth`? expected one of: recursive, depth)",
        "`/tags`: expected array, got string \"a,b\"",
        "`/code`: text is too short (2 characters, at least 3 required)",
        "`/contact`: \"not-an-email\" is not a valid email",
    ];
    for line in expected {
        assert!(found.iter().any(|p| p == line), "missing {line:?} in {found:#?}");
    }
    assert_eq!(found.len(), expected.len(), "{found:#?}");
}

/// An enum whose variants have doc comments: schemars makes it a `oneOf` of `const`s.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Format {
    /// Text as it is.
    Plain,
    /// Markdown.
    Markdown,
    /// HTML.
    Html,
}

/// Arguments with a documented enum.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Render {
    /// The output format.
    format: Format,
}

#[test]
fn a_documented_enum_names_every_value() {
    assert_eq!(
        problems::<Render>(json!({"format": "pdf"})),
        ["`/format`: \"pdf\" is not one of: \"plain\", \"markdown\", \"html\""]
    );
    // A value of another type still says which type was expected.
    assert_eq!(
        problems::<Render>(json!({"format": 3})),
        ["`/format`: expected string, got integer 3"]
    );
}

#[test]
fn optional_objects_report_the_inner_problem() {
    let found = problems::<Nested>(json!({
        "mode": "append", "options": {"recursive": true}, "tags": [], "code": "abc",
        "choice": {"recursive": 1},
    }));
    assert_eq!(
        found,
        vec!["`/choice/recursive`: expected boolean, got integer 1"],
        "{found:#?}"
    );
    let found = problems::<Nested>(json!({
        "mode": "append", "options": {"recursive": true}, "tags": [], "code": "abc",
        "choice": "deep",
    }));
    assert_eq!(
        found,
        vec!["`/choice`: expected object or null, got string \"deep\""],
        "{found:#?}"
    );
}

#[test]
fn long_values_are_cut_in_messages() {
    let long = "x".repeat(500);
    let found = problems::<Nested>(json!({
        "mode": long, "options": {"recursive": true}, "tags": [], "code": "abc",
    }));
    assert!(found[0].len() < 200 && found[0].contains('…'), "{found:#?}");
}

#[test]
fn unusable_schemas_are_rejected_when_compiled() {
    let error = ArgValidator::new(&json!({"type": "string"})).unwrap_err();
    assert!(matches!(error, SchemaError::RootNotObject { .. }), "{error:?}");
    assert!(error.to_string().contains("\"type\": \"object\""), "{error}");
    let error =
        ArgValidator::new(&json!({"type": "object", "properties": {"a": {"type": "strng"}}})).unwrap_err();
    assert!(matches!(error, SchemaError::Invalid { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.starts_with("not a valid JSON Schema: "), "{message}");
    // The validator's complaint is the source, and the message already says it.
    let source = std::error::Error::source(&error).expect("the validator's error");
    assert!(message.ends_with(&source.to_string()), "{message}");
    assert_eq!(crate::error::error_chain(&error), message);
}

#[test]
fn a_declared_draft_is_validated_under_its_own_rules() {
    // Draft-07, as the TypeScript SDK's servers declare: a tuple `items` and a
    // `definitions` reference, both meaningless (or invalid) under 2020-12.
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "number"}]},
            "node": {"$ref": "#/definitions/Node"},
        },
        "definitions": {"Node": {"type": "object", "required": ["id"]}},
    });
    let validator = ArgValidator::new(&schema).unwrap();
    assert!(
        validator
            .validate(&json!({"pair": ["a", 1], "node": {"id": 1}}))
            .is_ok()
    );
    let problems = validator
        .validate(&json!({"pair": [1, "a"], "node": {}}))
        .unwrap_err();
    assert_eq!(
        problems,
        [
            "`/pair/0`: expected string, got integer 1",
            "`/pair/1`: expected number, got string \"a\"",
            "`/node/id`: required property is missing",
        ]
    );
    let error =
        ArgValidator::new(&json!({"$schema": "https://example.com/mine", "type": "object"})).unwrap_err();
    assert!(matches!(error, SchemaError::UnknownDraft { .. }), "{error:?}");
    assert!(error.to_string().contains("https://example.com/mine"), "{error}");
}

/// Arguments that accept extra properties.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = true))]
#[allow(dead_code)]
struct OpenArgs {
    name: String,
}

#[test]
fn structs_that_opt_out_accept_unknown_properties() {
    let validator = ArgValidator::new(&input_schema_for::<OpenArgs>()).unwrap();
    assert!(validator.validate(&json!({"name": "a", "extra": 1})).is_ok());
    assert_eq!(
        validator.validate(&json!({"extra": 1})).unwrap_err(),
        vec!["`/name`: required property is missing"]
    );
}

#[test]
fn an_object_without_declared_properties_lists_none() {
    let schema = json!({"type": "object", "properties": {}, "additionalProperties": false});
    let validator = ArgValidator::new(&schema).unwrap();
    let found = validator.validate(&json!({"x": 1})).unwrap_err();
    assert_eq!(
        found,
        vec!["unknown property `x` (no properties are accepted here)"]
    );
}
