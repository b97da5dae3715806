//! Parsing a model's arguments, repairing the common mistakes that have only one meaning.
//!
//! Repairs are reported on the result and in the audit log, never silent:
//! - empty text or `null` for a tool's arguments means "no arguments": `{}`;
//! - a JSON *string* whose content is a JSON object (double-encoded arguments) is that
//!   object.
//!
//! Everything else that is not an object is rejected with a message saying what came in.

use serde_json::{Map, Value};

use super::ToolArguments;
use crate::validation::json_type_name;

/// Arguments ready for validation.
#[derive(Debug)]
pub(crate) struct ParsedArguments {
    pub(crate) value: Value,
    pub(crate) repairs: Vec<String>,
}

/// Arguments that cannot be made into an object, returned with what was sent (for the
/// audit log).
#[derive(Debug)]
pub(crate) struct Rejected {
    /// Completes the sentence "the arguments for `tool` …".
    pub(crate) problem: String,
    pub(crate) arguments: ToolArguments,
}

/// `freeform` is the argument a freeform call's text fills, for a tool that has that form.
pub(crate) fn parse(arguments: ToolArguments, freeform: Option<&str>) -> Result<ParsedArguments, Rejected> {
    let value = match arguments {
        ToolArguments::Value(value) => value,
        ToolArguments::Freeform(text) => {
            let Some(argument) = freeform else {
                return Err(Rejected {
                    problem: "are raw text (a custom tool call), but the tool takes a JSON object; \
                              call it as a function with its parameters"
                        .to_owned(),
                    arguments: ToolArguments::Freeform(text),
                });
            };
            let mut object = Map::new();
            object.insert(argument.to_owned(), Value::String(text));
            return Ok(ParsedArguments {
                value: Value::Object(object),
                repairs: Vec::new(),
            });
        }
        ToolArguments::Json(text) if text.trim().is_empty() => {
            return Ok(repaired(
                Value::Object(Map::new()),
                "empty arguments were read as `{}`",
            ));
        }
        ToolArguments::Json(text) => match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(error) => {
                return Err(Rejected {
                    problem: format!(
                        "are not valid JSON ({error}); send a single JSON object with the tool's parameters"
                    ),
                    arguments: ToolArguments::Json(text),
                });
            }
        },
    };
    match value {
        Value::Object(_) => Ok(ParsedArguments {
            value,
            repairs: Vec::new(),
        }),
        Value::Null => Ok(repaired(
            Value::Object(Map::new()),
            "`null` arguments were read as `{}`",
        )),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(inner @ Value::Object(_)) => Ok(repaired(
                inner,
                "the arguments were a JSON string containing an object; the object was used",
            )),
            _ => Err(not_an_object(Value::String(text))),
        },
        other => Err(not_an_object(other)),
    }
}

fn repaired(value: Value, repair: &str) -> ParsedArguments {
    ParsedArguments {
        value,
        repairs: vec![repair.to_owned()],
    }
}

fn not_an_object(value: Value) -> Rejected {
    let kind = json_type_name(&value);
    Rejected {
        problem: format!(
            "must be a JSON object with the tool's parameters as properties, got {} {kind}",
            article(kind)
        ),
        arguments: ToolArguments::Value(value),
    }
}

fn article(noun: &str) -> &'static str {
    if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse_text(text: &str) -> Result<ParsedArguments, Rejected> {
        parse(ToolArguments::Json(text.to_owned()), None)
    }

    #[test]
    fn objects_pass_unchanged() {
        let parsed = parse_text(r#"{"a": 1}"#).unwrap();
        assert_eq!(parsed.value, json!({"a": 1}));
        assert!(parsed.repairs.is_empty());
        let parsed = parse(ToolArguments::Value(json!({"b": 2})), None).unwrap();
        assert_eq!(parsed.value, json!({"b": 2}));
    }

    #[test]
    fn unambiguous_mistakes_are_repaired_and_reported() {
        for text in ["", "  ", "null"] {
            let parsed = parse_text(text).unwrap();
            assert_eq!(parsed.value, json!({}));
            assert_eq!(parsed.repairs.len(), 1);
        }
        let parsed = parse_text(r#""{\"path\": \"a.txt\"}""#).unwrap();
        assert_eq!(parsed.value, json!({"path": "a.txt"}));
        assert!(parsed.repairs[0].contains("JSON string"));
    }

    #[test]
    fn other_shapes_are_rejected_with_what_came_in() {
        let problem = parse_text("[1, 2]").unwrap_err();
        assert!(problem.problem.ends_with("got an array"), "{}", problem.problem);
        let problem = parse_text("42").unwrap_err();
        assert!(problem.problem.ends_with("got an integer"), "{}", problem.problem);
        let problem = parse_text(r#""just text""#).unwrap_err();
        assert!(problem.problem.ends_with("got a string"), "{}", problem.problem);
        let problem = parse_text(r#"{"path": "a.txt""#).unwrap_err();
        assert!(
            problem
                .problem
                .starts_with("are not valid JSON (EOF while parsing"),
            "{}",
            problem.problem
        );
    }
}
