//! Independent checkers of each provider's documented tool-definition rules.
//!
//! The dialect transformer turns one canonical JSON Schema into the tool definition each
//! provider accepts. Testing its output against its own idea of the rules would prove
//! nothing: a misread rule would be wrong in both places and the test would pass. These
//! checkers restate the rules a second time, from the providers' documentation and not
//! from the transformer's code, so that a test can ask "would this provider accept this
//! definition?" and get an answer the transformer had no part in.
//!
//! Sources, one module each:
//!
//! - `openai.rs`: OpenAI function calling and Structured Outputs "Supported schemas"
//!   (strict mode), for Chat Completions and Responses.
//! - `anthropic.rs`: Anthropic "Define tools", "Strict tool use" and the Structured
//!   Outputs "JSON Schema limitations".
//! - `gemini.rs`: the Gemini API reference for `FunctionDeclaration` and `Schema`, and the
//!   JSON Schema subset accepted in `parametersJsonSchema`.
//! - `mcp.rs`: the Model Context Protocol specification (2025-06-18 and later), `Tool`.
//! - `tool_search.rs`: Anthropic's "Tool search tool" and OpenAI's "Tool search"
//!   (deferred tools, the providers' search tools, and the rules over a request's list).
//!
//! Where the documentation is ambiguous, the checkers follow the reading the project
//! decided on; each module says which. Every violation is one string
//! `"<path>: <what is wrong>"`, the path being a slash path inside the definition
//! (`function/parameters/properties/x`), and every violation is reported, not only the
//! first.

mod anthropic;
mod gemini;
mod mcp;
mod openai;
mod tool_search;
mod walk;

use std::fmt::Display;

use serde_json::{Map, Value};

use crate::dialect::Dialect;

/// Every way `definition` breaks the documented rules of `dialect`'s provider.
pub fn provider_rule_violations(dialect: Dialect, definition: &Value) -> Vec<String> {
    let mut found = Violations::default();
    match dialect {
        Dialect::OpenAiChat => openai::check_chat(definition, &mut found),
        Dialect::OpenAiResponses if tool_search::is_openai_search(definition) => {
            tool_search::check_openai_search(definition, &mut found);
        }
        Dialect::OpenAiResponses => openai::check_responses(definition, &mut found),
        Dialect::Anthropic if tool_search::is_anthropic_search(definition) => {
            tool_search::check_anthropic_search(definition, &mut found);
        }
        Dialect::Anthropic => anthropic::check(definition, &mut found),
        Dialect::Gemini => gemini::check(definition, &mut found),
        Dialect::Mcp => mcp::check(definition, &mut found),
    }
    found.0
}

/// Every way a request's whole `tools` list breaks `dialect`'s rules for deferred tools
/// and tool search (Anthropic and OpenAI Responses; other dialects have no such rules,
/// and their definitions may not carry `defer_loading` at all). Each definition is
/// checked on its own by [`provider_rule_violations`].
pub fn tool_list_violations(dialect: Dialect, tools: &[Value]) -> Vec<String> {
    let mut found = Violations::default();
    match dialect {
        Dialect::Anthropic => tool_search::check_tool_list(true, tools, &mut found),
        Dialect::OpenAiResponses => tool_search::check_tool_list(false, tools, &mut found),
        _ => {}
    }
    found.0
}

/// The violations found so far, each `"<path>: <what is wrong>"`.
#[derive(Debug, Default)]
struct Violations(Vec<String>);

impl Violations {
    /// Records that the value at `path` breaks a rule, as described by `what`.
    fn add(&mut self, path: &str, what: impl Display) {
        let path = if path.is_empty() { "(definition)" } else { path };
        self.0.push(format!("{path}: {what}"));
    }
}

/// `base/key`, or `key` at the top of the definition.
fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_owned()
    } else {
        format!("{base}/{key}")
    }
}

/// The JSON kind a field must have.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// A string.
    String,
    /// `true` or `false`.
    Bool,
    /// A JSON object.
    Object,
    /// A JSON array.
    Array,
}

impl Kind {
    /// Whether `value` is of this kind.
    fn matches(self, value: &Value) -> bool {
        match self {
            Kind::String => value.is_string(),
            Kind::Bool => value.is_boolean(),
            Kind::Object => value.is_object(),
            Kind::Array => value.is_array(),
        }
    }

    /// The kind as the messages name it.
    fn name(self) -> &'static str {
        match self {
            Kind::String => "a string",
            Kind::Bool => "a boolean",
            Kind::Object => "an object",
            Kind::Array => "an array",
        }
    }
}

/// Checks that `fields[key]`, if present (or always, when `required`), is of `kind`.
fn expect(
    fields: &Map<String, Value>,
    base: &str,
    key: &str,
    kind: Kind,
    required: bool,
    found: &mut Violations,
) {
    match fields.get(key) {
        Some(value) if !kind.matches(value) => {
            found.add(&join(base, key), format!("must be {}", kind.name()))
        }
        None if required => found.add(base, format!("`{key}` is required")),
        _ => {}
    }
}

/// Reports every key of `fields` outside `allowed`, as "`key` `what`".
fn disallowed_keys(
    fields: &Map<String, Value>,
    base: &str,
    allowed: &[&str],
    what: &str,
    found: &mut Violations,
) {
    for key in fields.keys().filter(|key| !allowed.contains(&key.as_str())) {
        found.add(base, format!("`{key}` {what}"));
    }
}

/// The definition as a JSON object, or a violation saying it is not one.
fn as_object<'a>(value: &'a Value, path: &str, found: &mut Violations) -> Option<&'a Map<String, Value>> {
    let object = value.as_object();
    if object.is_none() {
        found.add(path, "must be a JSON object");
    }
    object
}

/// What a provider allows in a tool name.
struct NameRule {
    /// At most this many characters.
    max_len: usize,
    /// Whether the first character is allowed (beyond `allowed`).
    first: fn(char) -> bool,
    /// Whether any character is allowed.
    allowed: fn(char) -> bool,
    /// The rule in words, for the message.
    described: &'static str,
}

/// `^[a-zA-Z0-9_-]{1,64}$`, the OpenAI and Anthropic name rule.
const NAME_64: NameRule = NameRule {
    max_len: 64,
    first: |_| true,
    allowed: |c| c.is_ascii_alphanumeric() || c == '_' || c == '-',
    described: "1 to 64 characters of [a-zA-Z0-9_-]",
};

/// Checks the required `name` of `fields` against `rule`.
fn check_name(fields: &Map<String, Value>, base: &str, rule: &NameRule, found: &mut Violations) {
    let Some(name) = fields.get("name") else {
        return found.add(base, "`name` is required");
    };
    let Some(name) = name.as_str() else {
        return found.add(&join(base, "name"), "must be a string");
    };
    let length = name.chars().count();
    let first_ok = name.chars().next().is_some_and(rule.first);
    if length == 0 || length > rule.max_len || !first_ok || !name.chars().all(rule.allowed) {
        found.add(&join(base, "name"), format!("{name:?} is not {}", rule.described));
    }
}

/// Checks that `schema` is an object schema whose root has `"type": "object"`.
fn check_object_root(schema: &Value, path: &str, found: &mut Violations) {
    let Some(fields) = as_object(schema, path, found) else {
        return;
    };
    if fields.get("type").and_then(Value::as_str) != Some("object") {
        found.add(path, "the root must have `\"type\": \"object\"`");
    }
}

/// Reports every key of `node` that is in `forbidden`, saying `why`.
fn forbidden_keys(
    node: &Map<String, Value>,
    path: &str,
    forbidden: &[&str],
    why: &str,
    found: &mut Violations,
) {
    for key in forbidden.iter().filter(|key| node.contains_key(**key)) {
        found.add(path, format!("`{key}` {why}"));
    }
}

/// Checks that a `format`, if present, is one of `allowed`.
fn check_format(node: &Map<String, Value>, path: &str, allowed: &[&str], found: &mut Violations) {
    let Some(format) = node.get("format") else {
        return;
    };
    if !format.as_str().is_some_and(|format| allowed.contains(&format)) {
        found.add(
            path,
            format!("`format` {format} is not one of {}", allowed.join(", ")),
        );
    }
}

/// Checks that an object schema has `additionalProperties: false`, as strict modes require.
fn check_closed(node: &Map<String, Value>, path: &str, found: &mut Violations) {
    if node.get("additionalProperties") != Some(&Value::Bool(false)) {
        found.add(
            path,
            "an object needs `additionalProperties: false` in strict mode",
        );
    }
}

/// Checks that every name in `required` is one of the node's `properties`.
fn check_required_exist(node: &Map<String, Value>, path: &str, found: &mut Violations) {
    let properties = walk::property_names(node);
    for name in walk::required_names(node) {
        if !properties.contains(&name) {
            found.add(
                path,
                format!("`required` lists `{name}`, which is not in `properties`"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The violations `check` finds in `definition`.
    pub(super) fn run(check: fn(&Value, &mut Violations), definition: &Value) -> Vec<String> {
        let mut found = Violations::default();
        check(definition, &mut found);
        found.0
    }

    /// Whether one of the violations is at `path` and mentions `text`.
    pub(super) fn mentions(found: &[String], path: &str, text: &str) -> bool {
        found
            .iter()
            .any(|v| v.starts_with(&format!("{path}: ")) && v.contains(text))
    }

    #[test]
    fn a_violation_names_its_path_or_the_definition() {
        let mut found = Violations::default();
        found.add("function/name", "bad");
        found.add("", "worse");
        assert_eq!(found.0, ["function/name: bad", "(definition): worse"]);
    }

    #[test]
    fn names_follow_the_rule() {
        let check = |name: Value| {
            let mut found = Violations::default();
            let fields = json!({ "name": name });
            check_name(fields.as_object().unwrap(), "", &NAME_64, &mut found);
            found.0
        };
        assert!(check(json!("get_weather-2")).is_empty());
        assert!(check(json!("has space"))[0].starts_with("name: "));
        assert_eq!(check(json!("")).len(), 1);
        assert_eq!(check(json!("a".repeat(65))).len(), 1);
        assert_eq!(check(json!(3)), ["name: must be a string"]);
    }

    #[test]
    fn every_dialect_accepts_nothing_that_is_not_an_object() {
        for dialect in Dialect::ALL {
            assert!(
                !provider_rule_violations(dialect, &json!("tool")).is_empty(),
                "{dialect:?}"
            );
        }
    }
}
