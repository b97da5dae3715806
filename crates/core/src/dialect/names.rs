//! Which tool names each provider accepts.
//!
//! The registry accepts `^[a-zA-Z0-9_-]{1,64}$` (every provider takes those, with one
//! exception below); these checks say what a given provider allows, for names built at
//! run time and for [`testing`](crate::testing).

use agent_tools_rules::check_characters;

use super::Dialect;
use crate::spec::ToolNameError;

impl Dialect {
    /// Checks a tool name against this provider's rule:
    ///
    /// - OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`;
    /// - Gemini: at most 64 of `a-z A-Z 0-9 _ . : -`, starting with a letter or `_`;
    /// - MCP: 1 to 128 of `A-Z a-z 0-9 _ - .`.
    pub fn check_name(self, name: &str) -> Result<(), ToolNameError> {
        match self {
            Dialect::OpenAiChat | Dialect::OpenAiResponses | Dialect::Anthropic => {
                crate::spec::validate_tool_name(name)
            }
            Dialect::Gemini => {
                check_characters(name, 64, &['.', ':'])?;
                match name.chars().next() {
                    Some(first) if first.is_ascii_alphabetic() || first == '_' => Ok(()),
                    _ => Err(ToolNameError::GeminiFirstCharacter {
                        name: name.to_owned(),
                    }),
                }
            }
            Dialect::Mcp => check_characters(name, 128, &['.']),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_provider_has_its_rule() {
        assert!(Dialect::OpenAiChat.check_name("read_file").is_ok());
        assert!(Dialect::Anthropic.check_name("fs.read").is_err());
        assert!(Dialect::Gemini.check_name("fs.read:v2").is_ok());
        assert_eq!(
            Dialect::Gemini.check_name("3d_print").unwrap_err().to_string(),
            "Gemini names start with a letter or `_`; `3d_print` does not"
        );
        assert!(Dialect::Gemini.check_name("_private").is_ok());
        assert!(Dialect::Gemini.check_name(&"a".repeat(65)).is_err());
        assert!(Dialect::Mcp.check_name("fs.read").is_ok());
        assert!(Dialect::Mcp.check_name(&"a".repeat(128)).is_ok());
        assert!(Dialect::Mcp.check_name(&"a".repeat(129)).is_err());
        assert_eq!(
            Dialect::Mcp.check_name("a b").unwrap_err().to_string(),
            "' ' is not allowed; use only ASCII letters, digits, `.`, `_` and `-`"
        );
        assert!(Dialect::Mcp.check_name("").is_err());
    }
}
