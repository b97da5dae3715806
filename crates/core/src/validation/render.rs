//! Turns one `jsonschema` error into sentences for a model.
//!
//! The crate's own messages are written for developers (`"pth" was unexpected`); a model
//! does better with the location, what was expected, what it sent, and for unknown
//! properties the names it could have meant.

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use super::json_type_name;
use crate::suggest::similar_names;

/// At most this many characters of an offending value are quoted back.
const PREVIEW_CHARS: usize = 60;

/// The sentences describing one validation error (usually one; one per unknown property).
pub(super) fn describe(error: &ValidationError<'_>, schema: &Value) -> Vec<String> {
    let path = error.instance_path().as_str();
    let instance = error.instance();
    let at = location(path);
    let sentence = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            format!("`{path}/{name}`: required property is missing")
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let allowed = allowed_properties(schema, error.schema_path().as_str());
            return unexpected
                .iter()
                .map(|name| unknown_property(path, name, &allowed))
                .collect();
        }
        ValidationErrorKind::Type { kind } => {
            format!(
                "{at}expected {}, got {}",
                expected_types(kind),
                describe_value(instance)
            )
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("{at}{} is greater than the maximum of {limit}", preview(instance))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("{at}{} must be less than {limit}", preview(instance))
        }
        ValidationErrorKind::Minimum { limit } => {
            format!("{at}{} is less than the minimum of {limit}", preview(instance))
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("{at}{} must be greater than {limit}", preview(instance))
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("{at}{} is not a multiple of {multiple_of}", preview(instance))
        }
        ValidationErrorKind::MaxLength { limit } => format!(
            "{at}text is too long ({} characters, at most {limit} allowed)",
            char_count(instance)
        ),
        ValidationErrorKind::MinLength { limit } => format!(
            "{at}text is too short ({} characters, at least {limit} required)",
            char_count(instance)
        ),
        ValidationErrorKind::MaxItems { limit } => format!(
            "{at}too many items ({}, at most {limit} allowed)",
            item_count(instance)
        ),
        ValidationErrorKind::MinItems { limit } => format!(
            "{at}too few items ({}, at least {limit} required)",
            item_count(instance)
        ),
        ValidationErrorKind::MaxProperties { limit } => {
            format!("{at}too many properties (at most {limit} allowed)")
        }
        ValidationErrorKind::MinProperties { limit } => {
            format!("{at}too few properties (at least {limit} required)")
        }
        ValidationErrorKind::Enum { options } => {
            format!(
                "{at}{} is not one of: {}",
                preview(instance),
                list_options(options)
            )
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("{at}must be exactly {}", preview(expected_value))
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("{at}{} does not match the pattern `{pattern}`", preview(instance))
        }
        ValidationErrorKind::Format { format } => {
            format!("{at}{} is not a valid {format}", preview(instance))
        }
        ValidationErrorKind::UniqueItems => format!("{at}items must be unique"),
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            return no_variant_matches(&at, path, instance, context, schema);
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            format!("{at}matches more than one of the allowed shapes; make it match exactly one")
        }
        _ => format!("{at}{error}"),
    };
    vec![sentence]
}

/// Groups errors for reporting: values (0), missing properties (1), unknown ones (2).
pub(super) fn rank(error: &ValidationError<'_>) -> u8 {
    match error.kind() {
        ValidationErrorKind::Required { .. } => 1,
        ValidationErrorKind::AdditionalProperties { .. }
        | ValidationErrorKind::UnevaluatedProperties { .. } => 2,
        _ => 0,
    }
}

/// `` `/a/b`: `` for nested locations; nothing for the arguments object itself.
fn location(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("`{path}`: ")
    }
}

fn unknown_property(path: &str, name: &str, allowed: &[String]) -> String {
    let prefix = location(path);
    if allowed.is_empty() {
        return format!("{prefix}unknown property `{name}` (no properties are accepted here)");
    }
    let closest = similar_names(name, allowed.iter().map(String::as_str));
    let expected = allowed.join(", ");
    match closest.first() {
        Some(suggestion) => format!(
            "{prefix}unknown property `{name}` (did you mean `{suggestion}`? expected one of: {expected})"
        ),
        None => format!("{prefix}unknown property `{name}` (expected one of: {expected})"),
    }
}

/// The property names declared next to the failing `additionalProperties` keyword.
///
/// The error's schema path is a JSON pointer into the schema document ending in the
/// keyword, so its parent is the object schema that declares the properties.
fn allowed_properties(schema: &Value, keyword_path: &str) -> Vec<String> {
    let parent = keyword_path
        .rsplit_once('/')
        .map_or("", |(parent, _keyword)| parent);
    schema
        .pointer(parent)
        .and_then(|object| object.get("properties"))
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// For `anyOf`/`oneOf`: report the variant that came closest, so the model learns what
/// to change rather than just "no variant matched".
fn no_variant_matches(
    at: &str,
    path: &str,
    instance: &Value,
    variants: &[Vec<ValidationError<'static>>],
    schema: &Value,
) -> Vec<String> {
    // An enum whose variants have doc comments is a `oneOf` of `const`s: name them all,
    // as for a plain `enum`, rather than the first variant's value.
    if let Some(options) = allowed_values(path, variants) {
        return vec![format!("{at}{} is not one of: {options}", preview(instance))];
    }
    // The types a variant expected of the value itself (not of something inside it).
    let expected_here = |error: &ValidationError<'static>| match error.kind() {
        ValidationErrorKind::Type { kind } if error.instance_path().as_str() == path => {
            Some(expected_types(kind))
        }
        _ => None,
    };
    // A variant whose type did not even match is a worse guess than one that failed
    // deeper inside; among the rest, fewer errors is closer.
    let score = |errors: &Vec<ValidationError<'static>>| {
        let type_mismatch = errors.iter().any(|error| expected_here(error).is_some());
        (type_mismatch, errors.len())
    };
    let closest = variants.iter().min_by_key(|errors| score(errors));
    match closest {
        Some(errors) if !errors.is_empty() && !score(errors).0 => {
            let mut problems = Vec::new();
            for error in errors {
                problems.extend(describe(error, schema));
            }
            problems
        }
        _ => {
            let mut expected: Vec<String> = Vec::new();
            for types in variants.iter().flatten().filter_map(expected_here) {
                if !expected.contains(&types) {
                    expected.push(types);
                }
            }
            if expected.is_empty() {
                vec![format!("{at}does not match any of the allowed shapes")]
            } else {
                vec![format!(
                    "{at}expected {}, got {}",
                    expected.join(" or "),
                    describe_value(instance)
                )]
            }
        }
    }
}

/// The values the variants allow, when every variant is only a `const` or an `enum` of
/// the value at `path` (and so failed for that alone).
fn allowed_values(path: &str, variants: &[Vec<ValidationError<'static>>]) -> Option<String> {
    let mut values = Vec::new();
    for errors in variants {
        let [error] = errors.as_slice() else {
            return None;
        };
        if error.instance_path().as_str() != path {
            return None;
        }
        match error.kind() {
            ValidationErrorKind::Constant { expected_value } => values.push(preview(expected_value)),
            ValidationErrorKind::Enum { options } => values.push(list_options(options)),
            _ => return None,
        }
    }
    (!values.is_empty()).then(|| values.join(", "))
}

fn expected_types(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(single) => single.to_string(),
        TypeKind::Multiple(set) => {
            let names: Vec<String> = set.iter().map(|t| t.to_string()).collect();
            names.join(" or ")
        }
    }
}

/// "string \"5\"", "array", "null": the type, with the value when short and scalar.
fn describe_value(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Array(_) | Value::Object(_) => format!("an {}", json_type_name(value)),
        _ => format!("{} {}", json_type_name(value), preview(value)),
    }
}

/// Compact JSON, cut at [`PREVIEW_CHARS`] characters.
fn preview(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= PREVIEW_CHARS {
        return text;
    }
    let cut: String = text.chars().take(PREVIEW_CHARS).collect();
    format!("{cut}…")
}

fn list_options(options: &Value) -> String {
    match options.as_array() {
        Some(values) => values.iter().map(preview).collect::<Vec<_>>().join(", "),
        None => preview(options),
    }
}

fn char_count(value: &Value) -> usize {
    value.as_str().map_or(0, |text| text.chars().count())
}

fn item_count(value: &Value) -> usize {
    value.as_array().map_or(0, Vec::len)
}
