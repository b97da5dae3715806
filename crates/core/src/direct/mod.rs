//! Arguments deserialized straight from the JSON text, for the tools whose schema says
//! nothing their argument type does not.
//!
//! The registry's usual path parses a call's JSON text into a [`Value`], drops optional
//! `null`s, validates the value against the tool's compiled schema and then deserializes
//! it into the tool's argument type (`registry/arguments.rs`, `validation/`,
//! [`ToolArgs::from_arguments`](crate::tool::ToolArgs::from_arguments)). For most tools
//! the detour is necessary: the schema can say more than the type (`#[schemars(range)]`,
//! `#[serde(deserialize_with)]`, a hand-written `JsonSchema`). For one kind it is not,
//! and skipping it is most of what a call costs over calling the function:
//!
//! - the argument struct is the one `#[tool]` generates from the function's plain
//!   parameters (`async fn echo(message: String)`), so it denies unknown fields and reads
//!   a missing `Option` as `None`, exactly what the schema says;
//! - no parameter has a `#[serde]` or `#[schemars]` attribute of its own;
//! - every parameter's type is one of [`plain`]'s: `String`, `bool`, the integers up to
//!   64 bits, `f32`, `f64`, and `Option<T>`, `Vec<T>` and `Option<Vec<T>>` of those. For
//!   each, serde accepts a subset of what the schema accepts (an integer in the type's
//!   range, a string, an array of those, `null` only for an `Option`) and reads it as
//!   deserializing the parsed [`Value`] would: the same parser reads the numbers and
//!   strings either way.
//!
//! `#[tool]` states the first two and asks [`plain`] about the types, in a constant
//! (`TypedTool::__DIRECT_ARGUMENTS`). Left out: `u128`/`i128` (a [`Value`] cannot hold
//! them, so the usual path refuses what serde would read), `serde_json::Value` (its
//! schema, `true`, lets the usual path drop a `null` the type would keep), nested
//! options, maps, and every user type.
//!
//! Deserializing straight from the text is only ever a shortcut: [`from_json_text`]
//! answers `None` for anything short of a clean success (a top level that is not an
//! object — serde's structs would read an array —, a duplicate or unknown key, a number
//! out of range or in the wrong form, a missing argument, text that is not JSON), and
//! the registry then runs the usual path from the same text, so a refused call gets the
//! same message naming every problem. The registry decides when nothing else in the call
//! needs the parsed value (`registry/direct/`).

mod call;
pub(crate) mod plain;

pub use call::DirectCall;

use serde::de::DeserializeOwned;
use serde_json::Value;

/// `T` read from `text` when the text is one JSON object that `T` reads without an error;
/// `None` for anything else, which the usual path then reports.
pub(crate) fn from_json_text<T: DeserializeOwned>(text: &str) -> Option<T> {
    // JSON's own whitespace: `str::trim_start` would skip more than the parser does.
    let start = text.trim_start_matches([' ', '\t', '\n', '\r']);
    if !start.starts_with('{') {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// Whether `serde_json` keeps numbers as their text (its `arbitrary_precision` feature,
/// which any crate of a program can turn on). Then a [`Value`]'s numbers are converted by
/// other code than the parser's, so the two paths could read a float differently, and
/// the direct one is not taken. Asked once.
pub(crate) fn numbers_keep_their_text() -> bool {
    static KEEPS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *KEEPS.get_or_init(|| {
        let number = serde_json::from_str::<Value>("1.50").unwrap_or_default();
        serde_json::to_string(&number).is_ok_and(|text| text == "1.50")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Two {
        a: u32,
        b: Option<String>,
    }

    #[test]
    fn only_an_object_read_cleanly_is_taken() {
        assert_eq!(
            from_json_text::<Two>(" \n{\"a\": 1}"),
            Some(Two { a: 1, b: None })
        );
        // serde's structs read arrays too; a tool's arguments are an object.
        assert_eq!(from_json_text::<Two>("[1, \"x\"]"), None);
        assert_eq!(from_json_text::<Two>(r#"{"a": 1, "a": 2}"#), None);
        assert_eq!(from_json_text::<Two>(r#"{"a": 1, "c": 2}"#), None);
        assert_eq!(from_json_text::<Two>(r#"{"a": 1.0}"#), None);
        assert_eq!(from_json_text::<Two>(""), None);
        assert_eq!(from_json_text::<Two>("null"), None);
        assert_eq!(from_json_text::<Two>(r#""{\"a\": 1}""#), None);
        assert_eq!(from_json_text::<Two>("\u{a0}{\"a\": 1}"), None);
    }

    #[test]
    fn this_build_parses_numbers() {
        assert!(!numbers_keep_their_text());
    }
}
