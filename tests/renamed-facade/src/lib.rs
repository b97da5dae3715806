//! `#[tool]` in a crate that depends on `agent-tools` under the name `tools`: the
//! generated code must name `::tools`, found through the manifest.

use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `shout`.
#[derive(Deserialize, JsonSchema)]
pub struct ShoutArgs {
    /// What to shout.
    pub text: String,
}

/// Upper-case a text.
#[tools::tool(read_only)]
pub async fn shout(args: ShoutArgs) -> String {
    args.text.to_uppercase()
}

/// A re-export of the facade under a path of our own, as a framework built on agent-tools
/// would offer it.
pub mod framework {
    pub use tools as agent_tools;
}

/// Whisper a text (generated code goes through an explicit `crate = ...` path).
#[tools::tool(crate = crate::framework::agent_tools)]
pub async fn whisper(
    /// What to whisper.
    text: String,
) -> String {
    text.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tools::{ToolCall, ToolRegistry};

    #[tokio::test]
    async fn tools_work_under_a_renamed_dependency() {
        let registry = ToolRegistry::new();
        registry.register(ShoutTool).unwrap();
        registry.register(WhisperTool).unwrap();
        let result = registry
            .call(ToolCall::new("1", "shout", r#"{"text": "hi"}"#))
            .await;
        assert_eq!(result.text(), "HI");
        let result = registry
            .call(ToolCall::new("2", "whisper", r#"{"text": "HI"}"#))
            .await;
        assert_eq!(result.text(), "hi");
    }
}
