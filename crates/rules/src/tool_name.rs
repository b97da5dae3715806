//! The tool-name rule: `^[a-zA-Z0-9_-]{1,64}$`, the names every provider accepts.
//!
//! Registration enforces it (`agent_tools_core::tool::validate_tool_name`), `#[tool]` turns a bad
//! `name = "…"` into a compile error on the string with it, and `agent-tools-core`'s dialects
//! check their own variants of it with [`check_characters`]. Both show a
//! [`ToolNameError`] as it is, so its `Display` is the wording users see at compile time
//! and at run time.

use std::fmt;

/// Why a tool name was rejected. `Display` says what is wrong, in a sentence that reads
/// after "invalid tool name `…`: ".
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolNameError {
    /// The name is empty.
    Empty,
    /// The name is longer than the rule allows.
    TooLong {
        /// The most characters the rule allows.
        max: usize,
        /// How many the name has.
        len: usize,
    },
    /// The name contains a character the rule does not allow.
    Character {
        /// The first character that is not allowed.
        character: char,
        /// What the rule allows besides ASCII letters, digits, `_` and `-` (`.` for MCP).
        also_allowed: &'static [char],
    },
    /// The name does not start with a letter or `_`, which Gemini requires.
    GeminiFirstCharacter {
        /// The rejected name.
        name: String,
    },
}

impl fmt::Display for ToolNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("a tool name must not be empty"),
            Self::TooLong { max, len } => {
                write!(f, "a tool name has at most {max} characters, this one has {len}")
            }
            Self::Character {
                character,
                also_allowed,
            } => {
                write!(f, "{character:?} is not allowed; use only ASCII letters, digits")?;
                for allowed in *also_allowed {
                    write!(f, ", `{allowed}`")?;
                }
                f.write_str(", `_` and `-`")
            }
            Self::GeminiFirstCharacter { name } => {
                write!(f, "Gemini names start with a letter or `_`; `{name}` does not")
            }
        }
    }
}

impl std::error::Error for ToolNameError {}

/// Checks a tool name against `^[a-zA-Z0-9_-]{1,64}$`, the rule all providers accept;
/// the error says what is wrong with it.
///
/// The `#[tool]` macro applies the same rule at compile time.
pub fn validate_tool_name(name: &str) -> Result<(), ToolNameError> {
    check_characters(name, 64, &[])
}

/// Checks that `name` has 1 to `max` characters, each an ASCII letter, a digit, `_`, `-`
/// or one of `also_allowed` (the variants of the rule some providers have).
pub fn check_characters(name: &str, max: usize, also_allowed: &'static [char]) -> Result<(), ToolNameError> {
    if name.is_empty() {
        return Err(ToolNameError::Empty);
    }
    // Bytes: every allowed character is one byte, so for any name the check below lets
    // through, bytes and characters are the same count.
    if name.len() > max {
        return Err(ToolNameError::TooLong { max, len: name.len() });
    }
    let allowed = |c: &char| c.is_ascii_alphanumeric() || *c == '_' || *c == '-' || also_allowed.contains(c);
    match name.chars().find(|c| !allowed(c)) {
        Some(character) => Err(ToolNameError::Character {
            character,
            also_allowed,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_what_is_wrong_as_before() {
        assert_eq!(
            validate_tool_name("").unwrap_err().to_string(),
            "a tool name must not be empty"
        );
        assert_eq!(
            validate_tool_name(&"a".repeat(65)).unwrap_err(),
            ToolNameError::TooLong { max: 64, len: 65 }
        );
        assert_eq!(
            validate_tool_name(&"a".repeat(65)).unwrap_err().to_string(),
            "a tool name has at most 64 characters, this one has 65"
        );
        assert_eq!(
            validate_tool_name("read file").unwrap_err().to_string(),
            "' ' is not allowed; use only ASCII letters, digits, `_` and `-`"
        );
        assert_eq!(
            check_characters("a b", 64, &['.', ':']).unwrap_err().to_string(),
            "' ' is not allowed; use only ASCII letters, digits, `.`, `:`, `_` and `-`"
        );
        assert!(validate_tool_name("fs-Read_2").is_ok());
    }
}
