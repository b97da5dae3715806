//! The restricted schema of an elicitation form, from a Rust type.
//!
//! MCP lets a server ask for a flat object only: each property a string (optionally a
//! `format` of `email`, `uri`, `date` or `date-time`), a number or integer, a boolean, a
//! single-select enum or a multi-select array of enum values — with titles, descriptions,
//! bounds and defaults (SEP-1034). Enums come in the shapes of SEP-1330: `enum` for
//! untitled values, `oneOf` of `{const, title}` for titled ones, and for multi-select an
//! `array` whose `items` hold either shape.
//!
//! schemars describes a Rust type more richly (references to `$defs`, `null` for
//! `Option`, `oneOf` with descriptions for documented enum variants), so the schema is
//! translated property by property, and a type the form cannot express (a nested struct,
//! a map, an enum with data) is refused with the field named, before anything is sent.

use schemars::JsonSchema;
use serde_json::{Map, Value, json};

use super::CallerError;

/// Keywords kept on every property.
const COMMON: &[&str] = &["title", "description", "default"];
/// Keywords kept for each primitive type, beyond [`COMMON`].
const STRING: &[&str] = &["minLength", "maxLength", "format", "enumNames"];
const NUMBER: &[&str] = &["minimum", "maximum"];
const ARRAY: &[&str] = &["minItems", "maxItems"];
/// The string formats a form may ask for.
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// The elicitation form for `T`: a flat object schema that MCP clients can show, or an
/// error naming the field that cannot be a form field.
///
/// Defaults (`#[serde(default)]`, on the struct or a field) are shown pre-filled; schemars
/// writes them by serializing them, so a field's type must implement `Serialize` for its
/// default to appear.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Confirm {
///     /// Proceed with the deletion?
///     proceed: bool,
///     #[serde(default)]
///     reason: Option<String>,
/// }
///
/// let form = agent_tools_core::caller::form_schema_for::<Confirm>().unwrap();
/// assert_eq!(form["properties"]["proceed"]["type"], "boolean");
/// assert_eq!(form["required"], serde_json::json!(["proceed"]));
/// ```
pub fn form_schema_for<T: JsonSchema>() -> Result<Value, CallerError> {
    let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    form_schema(&schema)
}

/// The form for an already generated schema (draft 2020-12, `$defs` at the root).
pub(crate) fn form_schema(schema: &Value) -> Result<Value, CallerError> {
    let defs = schema.get("$defs").and_then(Value::as_object);
    let root = resolve(schema, defs);
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err(unsupported("the form must be a struct with named fields"));
    }
    let mut properties = Map::new();
    if let Some(fields) = root.get("properties").and_then(Value::as_object) {
        for (name, field) in fields {
            let property =
                form_property(field, defs).map_err(|why| unsupported(format!("field `{name}` {why}")))?;
            properties.insert(name.clone(), property);
        }
    }
    let mut form = json!({"type": "object", "properties": properties});
    if let Some(required) = root.get("required").filter(|required| !is_empty_array(required)) {
        form["required"] = required.clone();
    }
    Ok(form)
}

/// One property of the form, or why it cannot be one.
fn form_property(field: &Value, defs: Option<&Map<String, Value>>) -> Result<Value, String> {
    let field = without_null(resolve(field, defs), defs);
    let mut property = Map::new();
    copy(&field, &mut property, COMMON);
    if let Some(choices) = titled_choices(&field, defs) {
        property.insert("type".into(), "string".into());
        property.insert("oneOf".into(), Value::Array(choices));
        return Ok(Value::Object(property));
    }
    let kind = single_type(&field)
        .ok_or("has no single type (a form field is a string, number, boolean or enum)")?;
    property.insert("type".into(), kind.into());
    match kind {
        "string" => {
            copy(&field, &mut property, STRING);
            copy(&field, &mut property, &["enum"]);
            if let Some(format) = property.get("format").and_then(Value::as_str)
                && !FORMATS.contains(&format)
            {
                property.remove("format");
            }
        }
        "number" | "integer" => copy(&field, &mut property, NUMBER),
        "boolean" => {}
        "array" => {
            copy(&field, &mut property, ARRAY);
            property.insert("items".into(), multi_select_items(&field, defs)?);
        }
        other => return Err(format!("is {other}, which a form cannot ask for")),
    }
    Ok(Value::Object(property))
}

/// The `items` of a multi-select: untitled (`enum`) or titled (`anyOf` of const/title).
fn multi_select_items(
    field: &Map<String, Value>,
    defs: Option<&Map<String, Value>>,
) -> Result<Value, String> {
    const NOT_ENUM: &str = "is a list of something other than enum values, which a form cannot ask for";
    let items = field.get("items").ok_or(NOT_ENUM)?;
    let items = resolve(items, defs);
    if let Some(choices) = titled_choices(&items, defs) {
        return Ok(json!({"anyOf": choices}));
    }
    match (single_type(&items), items.get("enum")) {
        (Some("string"), Some(values)) => Ok(json!({"type": "string", "enum": values})),
        _ => Err(NOT_ENUM.to_owned()),
    }
}

/// `oneOf`/`anyOf` of string constants as `{const, title}` (a documented variant's
/// description becomes its title; an undocumented one is titled by its value), or `None`
/// when the field is not such an enum.
fn titled_choices(field: &Map<String, Value>, defs: Option<&Map<String, Value>>) -> Option<Vec<Value>> {
    let variants = field
        .get("oneOf")
        .or_else(|| field.get("anyOf"))
        .and_then(Value::as_array)?;
    variants
        .iter()
        .map(|variant| {
            let variant = resolve(variant, defs);
            let value = variant.get("const").and_then(Value::as_str)?;
            let title = variant
                .get("title")
                .or_else(|| variant.get("description"))
                .and_then(Value::as_str)
                .unwrap_or(value);
            Some(json!({"const": value, "title": title}))
        })
        .collect()
}

/// Follows a `$ref` into the root's `$defs`, keeping the referring schema's own
/// keywords (schemars puts a field's description and default next to its `$ref`).
fn resolve(schema: &Value, defs: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut own = schema.as_object().cloned().unwrap_or_default();
    let Some(reference) = own.remove("$ref") else {
        return own;
    };
    let target = reference
        .as_str()
        .and_then(|path| path.strip_prefix("#/$defs/"))
        .and_then(|name| defs?.get(name));
    let mut resolved = target.map(|target| resolve(target, defs)).unwrap_or_default();
    resolved.extend(own);
    resolved
}

/// An `Option<T>` field without its `null`: `type: [T, "null"]` becomes `type: T`, and
/// `anyOf: [S, {type: null}]` becomes `S` (with the field's own keywords).
fn without_null(mut field: Map<String, Value>, defs: Option<&Map<String, Value>>) -> Map<String, Value> {
    if let Some(Value::Array(types)) = field.get("type") {
        let kept: Vec<Value> = types.iter().filter(|kind| *kind != "null").cloned().collect();
        if kept.len() == 1 {
            field.insert("type".into(), kept[0].clone());
        }
    }
    if let Some(Value::Array(variants)) = field.get("anyOf") {
        let kept: Vec<&Value> = variants
            .iter()
            .filter(|variant| !is_null_schema(variant))
            .collect();
        if kept.len() == 1 && kept.len() < variants.len() {
            let inner = resolve(kept[0], defs);
            field.remove("anyOf");
            let mut merged = without_null(inner, defs);
            merged.extend(field);
            return merged;
        }
    }
    if let Some(Value::Array(values)) = field.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
    field
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null") || schema.get("const") == Some(&Value::Null)
}

fn single_type(schema: &Map<String, Value>) -> Option<&str> {
    schema.get("type").and_then(Value::as_str)
}

fn copy(from: &Map<String, Value>, to: &mut Map<String, Value>, keywords: &[&str]) {
    for keyword in keywords {
        if let Some(value) = from.get(*keyword) {
            to.insert((*keyword).to_owned(), value.clone());
        }
    }
}

fn is_empty_array(value: &Value) -> bool {
    value.as_array().is_some_and(Vec::is_empty)
}

fn unsupported(why: impl Into<String>) -> CallerError {
    CallerError::UnsupportedForm(why.into())
}

#[cfg(test)]
mod tests;
