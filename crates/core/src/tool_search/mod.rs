//! Deferred tools and tool search: large tool sets loaded on demand.
//!
//! Sending every definition on every turn costs tokens and makes a model choose worse
//! once there are hundreds of tools (a gateway mounting a few MCP servers gets there
//! quickly). A tool marked [deferred](crate::spec::ToolMeta::defer) — by `#[tool(defer)]`, by
//! [`ToolRegistryBuilder::defer_all_except`](crate::registry::ToolRegistryBuilder::defer_all_except),
//! or per mount — is not shown in full; the model finds it through a search first.
//!
//! How definitions carry the deferred tools depends on the provider: see
//! [`ToolSearchMode`], whose docs hold the table and the sources.
//!
//! The local `tool_search` is served by the registry itself while any tool is deferred
//! (unless the application registered a tool of that name): a model calls it, reads one
//! line per matching tool, and the definitions in its structured output are loaded for
//! the next turn by the agent loop. Calls to deferred tools run like any other, loaded
//! or not: deferral changes what a model is shown, never what the registry lets run
//! (that is the [policy](crate::policy::Policy)'s job).
//!
//! A server answering several callers that may each know of different tools sets a
//! [`ToolVisibility`] on each call: the search, and every other path of the registry
//! that reveals tools, then answer as if the others did not exist.

mod catalog;
mod deferral;
mod index;
mod tokens;
mod tool;
mod visibility;

use serde_json::{Value, json};

pub(crate) use deferral::Deferral;
pub use tool::TOOL_SEARCH;
pub(crate) use tool::{is_registry_search, search_entry};
pub use visibility::ToolVisibility;

use crate::dialect::Dialect;

/// How [`ToolRegistry::definitions_with`](crate::registry::ToolRegistry::definitions_with) offers
/// [deferred](crate::spec::ToolMeta::defer) tools.
///
/// Per provider:
///
/// | dialect | `Native` (default) | `Local` |
/// |---|---|---|
/// | Anthropic | every tool, deferred ones with `defer_loading: true`, plus the server tool `tool_search_tool_bm25_20251119` | the others plus `tool_search` |
/// | OpenAI Responses | every tool, deferred functions with `defer_loading: true`, plus `{"type": "tool_search"}` (hosted) | the others plus `tool_search` |
/// | OpenAI Chat, Gemini, MCP | the others plus `tool_search` (no native form) | the same |
///
/// The shapes are those of the providers' documentation: Anthropic's
/// <https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool>
/// (`defer_loading` is a key of the tool object; generally available, no beta header;
/// the search tool itself is never deferred, which also keeps the rule that one tool must
/// not be), and OpenAI's
/// <https://developers.openai.com/api/docs/guides/tools-tool-search> (hosted mode:
/// `{"type": "tool_search"}` beside functions with `defer_loading: true`; gpt-5.4 and
/// later). Chat Completions and Gemini's `generateContent` have no such field, and MCP
/// has no deferral in its protocol, so they get the local search.
///
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ToolSearchMode {
    /// The provider's own tool search where it has one (Anthropic, OpenAI Responses):
    /// every definition is sent, deferred ones marked, and the provider searches them.
    /// Elsewhere as [`Local`](Self::Local).
    #[default]
    Native,
    /// Only the tools that are not deferred, plus the registry's `tool_search`: for any
    /// provider, and for models without native tool search.
    Local,
    /// Every tool in full, as if none were deferred, and no search tool.
    LoadAll,
}

/// The provider's search tool, when `dialect` has one.
pub(crate) fn native_search_tool(dialect: Dialect) -> Option<Value> {
    match dialect {
        // BM25 rather than the regex variant: a model describes what it needs in words,
        // as it does to the local search.
        Dialect::Anthropic => Some(json!({
            "type": "tool_search_tool_bm25_20251119",
            "name": "tool_search_tool_bm25",
        })),
        Dialect::OpenAiResponses => Some(json!({"type": "tool_search"})),
        _ => None,
    }
}

/// Marks a rendered definition as deferred, in a dialect with a native search.
pub(crate) fn mark_deferred(definition: &mut Value) {
    if let Value::Object(object) = definition {
        object.insert("defer_loading".into(), Value::Bool(true));
    }
}
