//! Arguments a tool's callers also send as HTTP headers (MCP's `x-mcp-header`, SEP-2243),
//! so that a load balancer or gateway can route a call on them without reading its body.
//!
//! A declared argument is marked in the tool's MCP definition; a client on MCP
//! 2026-07-28 sends its value as `Mcp-Param-{header}`, and the server refuses a request
//! whose header disagrees with its body (HTTP 400, `-32020`). What is checked here is
//! that the declaration can be served: a header name that is an HTTP token, given once,
//! on a top-level argument of a single primitive type (the rule MCP clients apply before
//! they send such a header; a tool breaking it would not be callable from them).

use serde_json::Value;

/// Why a tool's header arguments cannot be served
/// ([`RegistryError::InvalidHeaderArgument`](crate::error::RegistryError::InvalidHeaderArgument)).
pub(crate) fn check(input_schema: &Value, headers: &[(String, String)]) -> Result<(), String> {
    let mut seen: Vec<String> = Vec::new();
    for (argument, header) in headers {
        if header.is_empty() || !header.chars().all(is_token_char) {
            return Err(format!(
                "argument `{argument}`: the header name `{header}` is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)"
            ));
        }
        let lowercase = header.to_ascii_lowercase();
        if seen.contains(&lowercase) {
            return Err(format!(
                "argument `{argument}`: the header `{header}` is declared twice (header names ignore case)"
            ));
        }
        seen.push(lowercase);
        let property = input_schema
            .get("properties")
            .and_then(|properties| properties.get(argument))
            .ok_or_else(|| {
                format!("argument `{argument}` is not a top-level property of the input schema")
            })?;
        match property.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            _ => {
                return Err(format!(
                    "argument `{argument}`: a header argument must be a string, an integer or a boolean (one type, not optional), its schema is {property}"
                ));
            }
        }
    }
    Ok(())
}

/// The input schema with each header argument's property marked `x-mcp-header`, as MCP
/// definitions carry it.
pub(crate) fn annotate(input_schema: &Value, headers: &[(String, String)]) -> Value {
    let mut schema = input_schema.clone();
    for (argument, header) in headers {
        if let Some(property) = schema
            .get_mut("properties")
            .and_then(|properties| properties.get_mut(argument))
            .and_then(Value::as_object_mut)
        {
            property.insert("x-mcp-header".to_owned(), Value::String(header.clone()));
        }
    }
    schema
}

/// RFC 9110 §5.6.2 `tchar`.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "region": {"type": "string"},
            "count": {"type": "integer"},
            "label": {"type": ["string", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}}
        }})
    }

    fn declared(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, h)| ((*a).to_owned(), (*h).to_owned()))
            .collect()
    }

    #[test]
    fn primitive_top_level_arguments_with_token_names_are_served() {
        assert_eq!(
            check(&schema(), &declared(&[("region", "Region"), ("count", "Count")])),
            Ok(())
        );
        let annotated = annotate(&schema(), &declared(&[("region", "Region")]));
        assert_eq!(annotated["properties"]["region"]["x-mcp-header"], "Region");
        assert!(annotated["properties"]["count"].get("x-mcp-header").is_none());
    }

    #[test]
    fn each_unservable_declaration_is_named() {
        let cases = [
            (declared(&[("region", "Re gion")]), "not an HTTP token"),
            (declared(&[("region", "")]), "not an HTTP token"),
            (declared(&[("region", "A"), ("count", "a")]), "declared twice"),
            (declared(&[("missing", "M")]), "not a top-level property"),
            (declared(&[("label", "Label")]), "one type, not optional"),
            (declared(&[("tags", "Tags")]), "must be a string"),
        ];
        for (headers, expected) in cases {
            let error = check(&schema(), &headers).expect_err(expected);
            assert!(error.contains(expected), "{error}");
        }
    }
}
