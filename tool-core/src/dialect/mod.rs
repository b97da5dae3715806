//! Tool definitions in the request format of each provider.
//!
//! Every dialect is derived from the one canonical [`ToolSpec`]. Only OpenAI Chat
//! Completions is implemented so far.

use std::fmt;
use std::str::FromStr;

use serde_json::{Value, json};

use crate::ToolSpec;

/// A provider's tool definition format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions: `{"type":"function","function":{name,description,parameters,strict?}}`.
    OpenAiChat,
    /// OpenAI Responses: `{"type":"function",name,description,parameters,strict}`.
    OpenAiResponses,
    /// Anthropic Messages: `{name,description,input_schema,strict?}`.
    Anthropic,
    /// Google Gemini: `{name,description,parameters}` (OpenAPI subset) or
    /// `{name,description,parametersJsonSchema}`.
    Gemini,
    /// Model Context Protocol (2025-06-18 and later):
    /// `{name,title?,description,inputSchema,outputSchema?,annotations?}`.
    Mcp,
}

impl Dialect {
    /// Every dialect, in a stable order.
    pub const ALL: [Dialect; 5] = [
        Dialect::OpenAiChat,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Mcp,
    ];

    /// The dialect's identifier, as the CLI spells it: `openai-chat`, `openai-responses`,
    /// `anthropic`, `gemini`, `mcp`.
    pub fn id(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "openai-chat",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Mcp => "mcp",
        }
    }

    /// The definition of one tool in this format.
    pub fn definition(self, spec: &ToolSpec) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.input_schema,
            }
        })
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A dialect identifier that is not one of [`Dialect::id`]'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialect(String);

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.id()).collect();
        write!(f, "unknown dialect `{}` (expected one of: {})", self.0, known.join(", "))
    }
}

impl std::error::Error for UnknownDialect {}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .into_iter()
            .find(|dialect| dialect.id() == text)
            .ok_or_else(|| UnknownDialect(text.to_owned()))
    }
}
