//! Deferred tools and the providers' tool search tools.
//!
//! Written from Anthropic's "Tool search tool" page
//! (<https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool>):
//! the tools `{"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}`
//! and `{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}`,
//! `defer_loading` a boolean key of a tool, "never set `defer_loading: true` on the tool
//! search tool itself", "at least one tool … must stay non-deferred"; and from OpenAI's
//! "Tool search" guide (<https://developers.openai.com/api/docs/guides/tools-tool-search>):
//! `{"type": "tool_search"}` (with `execution` `server` or `client`, and for the client
//! `description` and `parameters`), added to a request whose deferred functions carry
//! `defer_loading: true`. Neither provider documents a deferred tool without a way to
//! find it, so a request with deferred tools and no search tool is refused here; for
//! Anthropic, a client-side search (a custom tool answering with `tool_reference`
//! blocks) is the other documented way, which these checks cannot see, so Anthropic
//! requests are only held to the two quoted rules.

use serde_json::{Map, Value};

use super::{Kind, Violations, as_object, disallowed_keys, expect};

/// Anthropic's search tools: `type` and the `name` it must carry.
const ANTHROPIC_SEARCH_TOOLS: [(&str, &str); 2] = [
    ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
    ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
];

/// The fields of an Anthropic search tool.
const ANTHROPIC_SEARCH_FIELDS: [&str; 6] = [
    "type",
    "name",
    "defer_loading",
    "cache_control",
    "allowed_callers",
    "strict",
];

/// The fields of OpenAI's `tool_search` tool.
const OPENAI_SEARCH_FIELDS: [&str; 4] = ["type", "execution", "description", "parameters"];

/// Whether `definition` is one of Anthropic's tool search tools (it has a `type`).
pub(super) fn is_anthropic_search(definition: &Value) -> bool {
    definition.get("type").is_some()
}

/// Checks an Anthropic tool search tool.
pub(super) fn check_anthropic_search(definition: &Value, found: &mut Violations) {
    let Some(fields) = as_object(definition, "", found) else {
        return;
    };
    disallowed_keys(
        fields,
        "",
        &ANTHROPIC_SEARCH_FIELDS,
        "is not a field of a tool search tool",
        found,
    );
    let kind = fields.get("type").and_then(Value::as_str).unwrap_or_default();
    match ANTHROPIC_SEARCH_TOOLS.iter().find(|(known, _)| *known == kind) {
        None => found.add("type", format!("`{kind}` is not a tool search tool")),
        Some((_, name)) if fields.get("name").and_then(Value::as_str) != Some(name) => {
            found.add("name", format!("must be \"{name}\""));
        }
        Some(_) => {}
    }
    if deferred(fields) {
        found.add(
            "defer_loading",
            "the tool search tool itself must not be deferred",
        );
    }
}

/// Whether `definition` is OpenAI's `tool_search` tool.
pub(super) fn is_openai_search(definition: &Value) -> bool {
    definition.get("type").and_then(Value::as_str) == Some("tool_search")
}

/// Checks OpenAI's `tool_search` tool.
pub(super) fn check_openai_search(definition: &Value, found: &mut Violations) {
    let Some(fields) = as_object(definition, "", found) else {
        return;
    };
    disallowed_keys(
        fields,
        "",
        &OPENAI_SEARCH_FIELDS,
        "is not a field of the tool_search tool",
        found,
    );
    match fields.get("execution").map(Value::as_str) {
        None | Some(Some("server" | "client")) => {}
        Some(_) => found.add("execution", "must be \"server\" or \"client\""),
    }
    expect(fields, "", "description", Kind::String, false, found);
    expect(fields, "", "parameters", Kind::Object, false, found);
}

/// Checks `defer_loading`, where a tool may carry it.
pub(super) fn check_defer_loading(fields: &Map<String, Value>, found: &mut Violations) {
    expect(fields, "", "defer_loading", Kind::Bool, false, found);
}

/// Every way a request's whole `tools` list breaks the rules above.
pub(super) fn check_tool_list(anthropic: bool, tools: &[Value], found: &mut Violations) {
    let deferred_count = tools
        .iter()
        .filter(|tool| tool.as_object().is_some_and(deferred))
        .count();
    if deferred_count == 0 {
        return;
    }
    if anthropic {
        if deferred_count == tools.len() {
            found.add("tools", "at least one tool must not be deferred");
        }
    } else if !tools.iter().any(is_openai_search) {
        found.add(
            "tools",
            "deferred functions need the `tool_search` tool in the request",
        );
    }
}

fn deferred(fields: &Map<String, Value>) -> bool {
    fields.get("defer_loading") == Some(&Value::Bool(true))
}
