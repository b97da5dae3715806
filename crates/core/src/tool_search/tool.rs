//! `tool_search`, the tool a registry serves while some of its tools are deferred.
//!
//! A model calls it with `{query, limit?}`. The text it reads lists the matching tools,
//! best first, one per line, each line starting with the tool's name and followed by
//! its first sentence and arguments. The structured output holds the tools' full
//! definitions in the caller's format (see [`ToolCall::with_definition_options`];
//! MCP's by default), for an agent loop to add to the next request, as
//! `OpenAiCompatibleRunner` in `agent-tools-builtins` does. A call made with a
//! [`ToolVisibility`] searches only the tools it sees (see [`catalog`](super::catalog)).
//!
//! [`ToolCall::with_definition_options`]: crate::registry::ToolCall::with_definition_options

use std::sync::{Arc, LazyLock};

use serde_json::{Value, json};

use super::ToolVisibility;
use super::catalog::Catalog;
use crate::registry::Entry;
use crate::tool::BoxFuture;
use crate::validation::ArgValidator;
use crate::{
    context::ToolContext,
    dialect::{DefinitionOptions, Dialect},
    error::ToolError,
    output::ToolOutput,
    spec::{ToolMeta, ToolSpec},
    tool::Tool,
};

/// The name of the search tool a registry serves while some of its tools are
/// [deferred](crate::spec::ToolMeta::defer) (unless the application registered a tool of that
/// name).
///
/// It takes `{query, limit?}` (a query of at most 500 characters; 5 tools by default, at
/// most 25) and ranks the deferred tools by BM25 over their name, title, description and
/// argument names and descriptions — identifiers split into words, English words
/// stemmed — after a tool named exactly as the query and those whose name starts with
/// it. The model reads one line per tool, best first, each starting with the tool's name
/// and followed by its first sentence and arguments; the structured output
/// `{"tools": [...]}` holds their definitions in the caller's format
/// ([`ToolCall::with_definition_options`](crate::registry::ToolCall::with_definition_options)),
/// which [`ToolResult::found_definitions`](crate::registry::ToolResult::found_definitions) returns.
/// A call made [with a visibility](crate::registry::ToolCall::with_visibility) searches only the
/// deferred tools it sees, and is answered as if no other tool were deferred.
pub const TOOL_SEARCH: &str = "tool_search";
/// Tools a search lists unless the call asks for another number.
const DEFAULT_LIMIT: u64 = 5;
/// The most a call may ask for.
const MAX_LIMIT: u64 = 25;
/// The longest query taken, in characters (Anthropic's BM25 search takes 500).
const MAX_QUERY_CHARS: u64 = 500;

static SPEC: LazyLock<ToolSpec> = LazyLock::new(|| {
    ToolMeta::new(
        TOOL_SEARCH,
        "Find tools that are not loaded yet. More tools exist than are listed: describe \
         what you need in a few words (or give part of a tool's name) and the best matches \
         are loaded, so you can call them next.",
    )
    .title("Tool search")
    .read_only(true)
    .idempotent(true)
    .open_world(false)
    .into_spec(
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_QUERY_CHARS,
                    "description": "What the tool should do, in a few words, or part of its name",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": format!("How many tools to load at most (default {DEFAULT_LIMIT})"),
                },
            },
            "required": ["query"],
            "additionalProperties": false,
        }),
        None,
    )
});

/// Compiled once: the schema above is a constant, and the unit test below compiles it.
static VALIDATOR: LazyLock<Arc<ArgValidator>> = LazyLock::new(|| {
    Arc::new(ArgValidator::new(&SPEC.input_schema).expect("tool_search's own schema compiles"))
});

/// Whether `spec` is the registry's own search tool (not a tool of the same name that an
/// application registered): it is the one static spec.
pub(crate) fn is_registry_search(spec: &ToolSpec) -> bool {
    std::ptr::eq(spec, &*SPEC)
}

/// The registry's search tool over `deferred`, as a table entry.
pub(crate) fn search_entry(deferred: Vec<Arc<dyn Tool>>) -> Entry {
    let tool = ToolSearch {
        catalog: Arc::new(Catalog::new(deferred)),
    };
    Entry::from_parts(Arc::new(tool), VALIDATOR.clone())
}

struct ToolSearch {
    catalog: Arc<Catalog>,
}

impl Tool for ToolSearch {
    fn spec(&self) -> &ToolSpec {
        &SPEC
    }

    fn call(&self, arguments: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        // Validated against the schema: a string query, an integer limit in range.
        let query = arguments["query"].as_str().unwrap_or_default().to_owned();
        let limit = arguments["limit"]
            .as_u64()
            .unwrap_or(DEFAULT_LIMIT)
            .min(MAX_LIMIT);
        let options = ctx
            .extension::<DefinitionOptions>()
            .copied()
            .unwrap_or_else(|| DefinitionOptions::new(Dialect::Mcp));
        // Only what the caller may know of is searched (see `ToolVisibility`).
        let visibility = ctx.extension::<ToolVisibility>().cloned();
        Box::pin(async move {
            let limit = usize::try_from(limit).unwrap_or(usize::MAX);
            let found = self.catalog.search(visibility.as_ref(), &query, limit).await;
            Ok(answer(&query, &found, options))
        })
    }
}

/// The lines the model reads, and the definitions for the caller to load.
fn answer(query: &str, found: &[Arc<dyn Tool>], options: DefinitionOptions) -> ToolOutput {
    if found.is_empty() {
        return ToolOutput::text(format!(
            "No tool matches `{query}`. Try other words for what the tool would do."
        ))
        .with_structured(json!({"tools": []}));
    }
    let lines: Vec<String> = found.iter().map(|tool| line(tool.spec())).collect();
    let definitions: Vec<Value> = found
        .iter()
        .map(|tool| options.render(tool.spec()).value)
        .collect();
    ToolOutput::text(lines.join("\n")).with_structured(json!({"tools": definitions}))
}

/// `name — first sentence Arguments: a, b (optional).`
fn line(spec: &ToolSpec) -> String {
    let summary = spec.summary().split_whitespace().collect::<Vec<_>>().join(" ");
    let required: Vec<&str> = spec.input_schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let arguments: Vec<String> = spec.input_schema["properties"]
        .as_object()
        .map(|properties| {
            properties
                .keys()
                .map(|name| match required.contains(&name.as_str()) {
                    true => name.clone(),
                    false => format!("{name} (optional)"),
                })
                .collect()
        })
        .unwrap_or_default();
    let arguments = match arguments.is_empty() {
        true => "No arguments.".to_owned(),
        false => format!("Arguments: {}.", arguments.join(", ")),
    };
    format!("{} — {summary} {arguments}", spec.meta.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        dynamic::DynamicTool,
        registry::{ToolCall, ToolRegistry, ToolResult},
    };

    /// A registry deferring every one of `tools` (name, description).
    fn deferring(tools: &[(&str, &str)]) -> ToolRegistry {
        let registry = ToolRegistry::builder().defer_all().build();
        for &(name, description) in tools {
            let tool = DynamicTool::new(
                name,
                description,
                json!({"type": "object"}),
                |_args: Value, _ctx: ToolContext| async move { Ok::<_, ToolError>("") },
            );
            registry.register(tool).unwrap();
        }
        registry
    }

    async fn search(registry: &ToolRegistry, visibility: Option<&ToolVisibility>, query: &str) -> ToolResult {
        let mut call = ToolCall::new("s", TOOL_SEARCH, json!({"query": query, "limit": MAX_LIMIT}));
        if let Some(visibility) = visibility {
            call = call.with_visibility(visibility.clone());
        }
        let result = registry.call(call).await;
        assert!(!result.is_error(), "{result:?}");
        result
    }

    fn found(result: &ToolResult) -> Vec<&str> {
        result
            .found_definitions()
            .iter()
            .filter_map(|definition| definition["name"].as_str())
            .collect()
    }

    #[tokio::test]
    async fn a_caller_is_answered_as_if_the_tools_it_does_not_see_did_not_exist() {
        let visible = [
            ("fetch_page", "Fetch a page."),
            ("fetch_image", "Fetch an image."),
        ];
        let hidden = [
            ("secret_page_dump", "Dump every page, page by page."),
            ("secret_page_wipe", "Wipe a page."),
        ];
        let everything = deferring(&[visible.as_slice(), hidden.as_slice()].concat());
        let seen_alone = deferring(&visible);
        let no_secrets = ToolVisibility::new(|spec: &ToolSpec| !spec.meta.name.starts_with("secret_"));

        for query in ["page image", "secret page", "secret_page_dump", "fetch", "wipe"] {
            let seen = search(&everything, Some(&no_secrets), query).await;
            let alone = search(&seen_alone, None, query).await;
            assert_eq!(
                (seen.text(), &seen.output.structured),
                (alone.text(), &alone.output.structured),
                "{query}"
            );
            assert!(!seen.text().contains("secret"), "{query}: {}", seen.text());
        }
        // The hidden tools are there for a caller without a visibility: the search finds
        // them, and their words (`page` in three tools) would weigh `page` below `image`.
        let unfiltered = search(&everything, None, "page image").await;
        assert!(found(&unfiltered).contains(&"secret_page_dump"));
        let fetched: Vec<&str> = found(&unfiltered)
            .into_iter()
            .filter(|name| name.starts_with("fetch_"))
            .collect();
        assert_eq!(fetched, ["fetch_image", "fetch_page"]);
        assert_eq!(
            found(&search(&everything, Some(&no_secrets), "page image").await),
            ["fetch_page", "fetch_image"],
            "ranked without the hidden tools' words"
        );
    }

    #[test]
    fn the_search_tools_schema_compiles() {
        assert!(VALIDATOR.validate(&json!({"query": "files", "limit": 3})).is_ok());
        assert!(VALIDATOR.validate(&json!({"query": ""})).is_err());
        assert!(VALIDATOR.validate(&json!({"query": "x", "limit": 26})).is_err());
    }

    #[test]
    fn a_line_starts_with_the_name_and_names_the_arguments() {
        let spec = ToolSpec::new(
            "send_email",
            "Send an email. Uses SMTP.",
            json!({
                "type": "object",
                "properties": {"to": {"type": "string"}, "cc": {"type": "string"}},
                "required": ["to"],
            }),
        );
        assert_eq!(
            line(&spec),
            "send_email — Send an email. Arguments: to, cc (optional)."
        );
    }
}
