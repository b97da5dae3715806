//! Tool definitions in the request format of each provider.
//!
//! Every dialect is derived from the one canonical [`ToolSpec`]. Only OpenAI Chat
//! Completions is implemented so far; the other providers and strict-mode schema
//! transformations are added as further variants.

use serde_json::{Value, json};

use crate::ToolSpec;

/// A provider's tool definition format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions: `{"type":"function","function":{name,description,parameters}}`.
    OpenAiChat,
}

impl Dialect {
    /// The definition of one tool in this format.
    pub fn definition(self, spec: &ToolSpec) -> Value {
        match self {
            Dialect::OpenAiChat => json!({
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": spec.input_schema,
                }
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_chat_wraps_the_schema_in_a_function() {
        let spec = ToolSpec::new("echo", "Repeat.", json!({"type": "object", "properties": {}}));
        assert_eq!(
            Dialect::OpenAiChat.definition(&spec),
            json!({
                "type": "function",
                "function": {
                    "name": "echo",
                    "description": "Repeat.",
                    "parameters": {"type": "object", "properties": {}}
                }
            })
        );
    }
}
