//! Keeping what a provider cannot enforce in front of the model, as words.
//!
//! When a dialect drops a keyword its provider rejects (`minLength` under OpenAI strict,
//! `maximum` under Anthropic strict, `exclusiveMinimum` for Gemini), the constraint still
//! holds: the registry validates every call against the canonical schema. Moving it into
//! the description as text lets the model see it and get the call right the first time.

use serde_json::{Map, Value};

/// Formats schemars writes for Rust number types. Their ranges are already in
/// `minimum`/`maximum` or implied by the type and enforced when the value is
/// deserialized; as text they would only be noise.
const NUMBER_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "int128", "int", "uint8", "uint16", "uint32", "uint64", "uint128",
    "uint", "float", "double",
];

/// Whether `format` only restates a Rust number type.
pub(crate) fn is_number_format(format: &str) -> bool {
    NUMBER_FORMATS.contains(&format)
}

/// Removes `keywords` from `node` and appends what they said to its description.
pub(crate) fn move_to_description(node: &mut Map<String, Value>, keywords: &[&str]) {
    let phrases: Vec<String> = keywords
        .iter()
        .filter_map(|keyword| {
            let value = node.remove(*keyword)?;
            phrase(keyword, &value)
        })
        .collect();
    append_to_description(node, &phrases.join("; "));
}

/// Appends a sentence fragment to the node's description, in parentheses when the node
/// already has one.
pub(crate) fn append_to_description(node: &mut Map<String, Value>, text: &str) {
    if text.is_empty() {
        return;
    }
    let description = match node.get("description").and_then(Value::as_str) {
        Some(existing) if !existing.trim().is_empty() => format!("{} ({text})", existing.trim_end()),
        _ => capitalize(text),
    };
    node.insert("description".into(), Value::String(description));
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// How a constraint reads in a description, e.g. `at most 100 characters`.
fn phrase(keyword: &str, value: &Value) -> Option<String> {
    let count = |unit: &str| {
        let plural = if value.as_u64() == Some(1) { "" } else { "s" };
        format!("{value} {unit}{plural}")
    };
    Some(match keyword {
        "minLength" => format!("at least {}", count("character")),
        "maxLength" => format!("at most {}", count("character")),
        "pattern" => format!(
            "matching the regular expression `{}`",
            value.as_str().unwrap_or_default()
        ),
        "format" => match value.as_str() {
            Some(format) if is_number_format(format) => return None,
            Some(format) => format!("format: {format}"),
            None => return None,
        },
        "minimum" => format!("at least {value}"),
        "maximum" => format!("at most {value}"),
        "exclusiveMinimum" => format!("greater than {value}"),
        "exclusiveMaximum" => format!("less than {value}"),
        "multipleOf" => format!("a multiple of {value}"),
        "minItems" => format!("at least {}", count("item")),
        "maxItems" => format!("at most {}", count("item")),
        "uniqueItems" if value == &Value::Bool(true) => "items must be unique".to_owned(),
        "minProperties" => format!("at least {}", count("entry")),
        "maxProperties" => format!("at most {}", count("entry")),
        "default" => format!("default: {value}"),
        "examples" => format!("for example: {}", list(value)),
        "enum" => format!("one of: {}", list(value)),
        "const" => format!("always {value}"),
        _ => return None,
    })
}

fn list(value: &Value) -> String {
    match value {
        Value::Array(items) => items.iter().map(Value::to_string).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn moved(node: Value, keywords: &[&str]) -> Value {
        let mut node = node.as_object().cloned().unwrap_or_default();
        move_to_description(&mut node, keywords);
        Value::Object(node)
    }

    #[test]
    fn constraints_join_the_description() {
        let node = moved(
            json!({"type": "string", "description": "The name.", "minLength": 1, "maxLength": 40, "default": "x"}),
            &["minLength", "maxLength", "default"],
        );
        assert_eq!(
            node,
            json!({"type": "string", "description": "The name. (at least 1 character; at most 40 characters; default: \"x\")"})
        );
    }

    #[test]
    fn without_a_description_the_constraints_become_one() {
        let node = moved(
            json!({"type": "integer", "exclusiveMinimum": 0}),
            &["exclusiveMinimum"],
        );
        assert_eq!(node, json!({"type": "integer", "description": "Greater than 0"}));
    }

    #[test]
    fn number_formats_are_dropped_silently() {
        let node = moved(json!({"type": "integer", "format": "uint8"}), &["format"]);
        assert_eq!(node, json!({"type": "integer"}));
        let node = moved(json!({"type": "string", "format": "uri"}), &["format", "absent"]);
        assert_eq!(node, json!({"type": "string", "description": "Format: uri"}));
    }
}
