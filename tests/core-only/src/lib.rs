//! `#[tool]` and `#[toolset]` in a crate that depends on `agent-tools-core` (renamed
//! `core_tools`) instead of the facade.

use std::sync::Arc;

use agent_tools_macros::{tool, toolset};

/// Count the words in a text.
#[tool(read_only)]
pub async fn count_words(
    /// The text.
    text: String,
) -> String {
    text.split_whitespace().count().to_string()
}

/// A toolset over a fixed greeting.
pub struct Greeter {
    /// The greeting word.
    pub word: String,
}

#[toolset]
impl Greeter {
    /// Greet someone.
    #[tool]
    async fn greet(&self, name: String) -> String {
        format!("{} {name}", self.word)
    }
}

/// Registers everything in a new registry.
pub fn registry() -> core_tools::ToolRegistry {
    let registry = core_tools::ToolRegistry::new();
    registry.register(CountWordsTool).expect("fresh registry");
    Arc::new(Greeter { word: "hello".into() })
        .register_all(&registry)
        .expect("fresh registry");
    registry
}

#[cfg(test)]
mod tests {
    use core_tools::ToolCall;

    #[tokio::test]
    async fn tools_work_with_the_core_crate_alone() {
        let registry = super::registry();
        let result = registry
            .call(ToolCall::new("1", "count_words", r#"{"text": "a b c"}"#))
            .await;
        assert_eq!(result.text(), "3");
        let result = registry
            .call(ToolCall::new("2", "greet", r#"{"name": "Ada"}"#))
            .await;
        assert_eq!(result.text(), "hello Ada");
    }
}
