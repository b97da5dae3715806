use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::*;

/// The SEP-1034 form: a default for every primitive type.
#[derive(Deserialize, JsonSchema)]
#[serde(default)]
#[allow(dead_code)]
struct Profile {
    name: String,
    age: i64,
    score: f64,
    status: Status,
    verified: bool,
}

impl Default for Profile {
    fn default() -> Self {
        Self {
            name: "John Doe".into(),
            age: 30,
            score: 95.5,
            status: Status::Active,
            verified: true,
        }
    }
}

// `Serialize`, because schemars writes a default by serializing it.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Status {
    Active,
    Inactive,
    Pending,
}

#[test]
fn defaults_of_every_primitive_type_reach_the_form() {
    let form = form_schema_for::<Profile>().unwrap();
    let properties = &form["properties"];
    assert_eq!(
        properties["name"],
        json!({"type": "string", "default": "John Doe"})
    );
    assert_eq!(properties["age"]["type"], "integer");
    assert_eq!(properties["age"]["default"], 30);
    assert_eq!(properties["score"], json!({"type": "number", "default": 95.5}));
    assert_eq!(
        properties["status"],
        json!({"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"})
    );
    assert_eq!(
        properties["verified"],
        json!({"type": "boolean", "default": true})
    );
    assert!(
        form.get("required").is_none(),
        "every field has a default: {form}"
    );
}

/// The SEP-1330 enum shapes, from Rust enums.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Choices {
    untitled_single: Plain,
    titled_single: Titled,
    untitled_multi: Vec<Plain>,
    titled_multi: Vec<Titled>,
    maybe: Option<Titled>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Plain {
    Option1,
    Option2,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Titled {
    /// First Option
    #[serde(rename = "value1")]
    Value1,
    #[schemars(title = "Second Option")]
    #[serde(rename = "value2")]
    Value2,
}

#[test]
fn enums_take_the_shapes_of_sep_1330() {
    let form = form_schema_for::<Choices>().unwrap();
    let properties = &form["properties"];
    assert_eq!(
        properties["untitled_single"],
        json!({"type": "string", "enum": ["option1", "option2"]})
    );
    let titled = json!([
        {"const": "value1", "title": "First Option"},
        {"const": "value2", "title": "Second Option"}
    ]);
    assert_eq!(
        properties["titled_single"],
        json!({"type": "string", "oneOf": titled})
    );
    assert_eq!(
        properties["untitled_multi"],
        json!({"type": "array", "items": {"type": "string", "enum": ["option1", "option2"]}})
    );
    assert_eq!(
        properties["titled_multi"],
        json!({"type": "array", "items": {"anyOf": titled}})
    );
    assert_eq!(properties["maybe"]["oneOf"], titled, "an Option loses its null");
    let required = form["required"].as_array().unwrap();
    assert!(!required.contains(&json!("maybe")));
    assert!(required.contains(&json!("titled_multi")));
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Documented {
    /// Your email address.
    #[schemars(email, length(max = 80))]
    email: String,
    #[schemars(range(min = 1, max = 10))]
    rating: u8,
}

#[test]
fn descriptions_formats_and_bounds_are_kept() {
    let form = form_schema_for::<Documented>().unwrap();
    let email = &form["properties"]["email"];
    assert_eq!(email["description"], "Your email address.");
    assert_eq!(email["format"], "email");
    assert_eq!(email["maxLength"], 80);
    let rating = &form["properties"]["rating"];
    assert_eq!(
        (rating["minimum"].clone(), rating["maximum"].clone()),
        (json!(1), json!(10))
    );
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Nested {
    inner: Documented,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WithList {
    names: Vec<String>,
}

#[test]
fn what_a_form_cannot_ask_for_is_refused_with_the_field_named() {
    let error = form_schema_for::<Nested>().unwrap_err().to_string();
    assert!(
        error.contains("field `inner`") && error.contains("object"),
        "{error}"
    );
    let error = form_schema_for::<WithList>().unwrap_err().to_string();
    assert!(
        error.contains("field `names`") && error.contains("enum values"),
        "{error}"
    );
    let error = form_schema_for::<String>().unwrap_err().to_string();
    assert!(error.contains("struct with named fields"), "{error}");
}
