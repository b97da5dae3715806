//! A mounted tool's definition as it is pinned: what the model reads of it and what
//! decides what its calls may carry, in one canonical form with its SHA-256.
//!
//! Pinned are the remote `name`, `title`, `description`, `inputSchema`, `outputSchema`
//! and `annotations`, exactly as the server listed them (before the mount's prefix, and
//! before invisible characters are taken out for the model): a server that changes any of
//! them changes the hash. `_meta`, icons and the `execution` hints are not pinned: they do
//! not reach the model and do not widen what a call may pass.

use std::fmt::Write as _;

use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

/// The members of a listed tool that are pinned.
const PINNED_MEMBERS: [&str; 6] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// One tool's definition in canonical form (object keys sorted) and its hash.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Definition {
    /// The pinned members, keys sorted at every level.
    pub(super) value: Value,
    /// `sha256:` and the hex SHA-256 of `value` as compact JSON.
    pub(super) sha256: String,
}

impl Definition {
    /// The pinned part of a tool as the server listed it (`listed`: the tool as JSON).
    pub(super) fn of(listed: &Value) -> Self {
        let mut pinned = Map::new();
        if let Value::Object(members) = listed {
            for name in PINNED_MEMBERS {
                if let Some(value) = members.get(name) {
                    pinned.insert(name.to_owned(), value.clone());
                }
            }
        }
        Self::from_value(Value::Object(pinned))
    }

    /// A definition read back from the lock file; its hash is computed again, so an
    /// edited definition with a stale hash cannot pass for the pinned one.
    pub(super) fn from_value(value: Value) -> Self {
        let value = sorted(value);
        let sha256 = hash(&value);
        Self { value, sha256 }
    }

    /// The definition as a person reads it in a diff: pretty JSON, keys sorted.
    pub(super) fn pretty(&self) -> String {
        serde_json::to_string_pretty(&self.value).unwrap_or_default()
    }
}

/// `value` with the keys of every object in sorted order (`serde_json` keeps insertion
/// order in this workspace, where `preserve_order` is on).
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(members) => {
            let mut members: Vec<(String, Value)> = members.into_iter().collect();
            members.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
            Value::Object(
                members
                    .into_iter()
                    .map(|(key, value)| (key, sorted(value)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        scalar => scalar,
    }
}

fn hash(value: &Value) -> String {
    let digest = Sha256::digest(value.to_string().as_bytes());
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in digest {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// A unified diff of two definitions, for a person deciding whether to accept the new
/// one: `---` the pinned one, `+++` the listed one.
pub(super) fn diff(pinned: Option<&Definition>, listed: Option<&Definition>) -> String {
    let old = pinned.map(Definition::pretty).unwrap_or_default();
    let new = listed.map(Definition::pretty).unwrap_or_default();
    similar::TextDiff::from_lines(&old, &new)
        .unified_diff()
        .context_radius(3)
        .header("pinned", "listed")
        .to_string()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use rmcp::model::Tool as McpTool;

    use super::*;

    /// `value` as rmcp lists a tool, and back to JSON: what a listing reviews.
    fn tool(value: Value) -> Value {
        let tool: McpTool = serde_json::from_value(value).unwrap();
        serde_json::to_value(tool).unwrap()
    }

    #[test]
    fn the_hash_ignores_key_order_and_unpinned_members() {
        let one = tool(json!({
            "name": "echo", "description": "Echoes.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
            "_meta": {"x": 1},
        }));
        let two = tool(json!({
            "inputSchema": {"properties": {"b": {"type": "integer"}, "a": {"type": "string"}}, "type": "object"},
            "description": "Echoes.", "name": "echo",
        }));
        assert_eq!(Definition::of(&one), Definition::of(&two));
        assert!(Definition::of(&one).sha256.starts_with("sha256:"));
    }

    #[test]
    fn a_changed_description_schema_or_annotation_changes_the_hash() {
        let base = json!({"name": "echo", "description": "Echoes.", "inputSchema": {"type": "object"}});
        let pinned = Definition::of(&tool(base.clone()));
        for change in [
            json!({"description": "Echoes. Also reads ~/.ssh."}),
            json!({"inputSchema": {"type": "object", "additionalProperties": true}}),
            json!({"annotations": {"readOnlyHint": true}}),
            json!({"title": "Echo"}),
        ] {
            let mut listed = base.clone();
            for (key, value) in change.as_object().unwrap() {
                listed[key] = value.clone();
            }
            assert_ne!(Definition::of(&tool(listed)).sha256, pinned.sha256, "{change}");
        }
    }

    #[test]
    fn the_diff_shows_the_changed_lines() {
        let old = Definition::of(&tool(
            json!({"name": "echo", "description": "Echoes.", "inputSchema": {"type": "object"}}),
        ));
        let new = Definition::of(&tool(
            json!({"name": "echo", "description": "Echoes <IMPORTANT>", "inputSchema": {"type": "object"}}),
        ));
        let diff = diff(Some(&old), Some(&new));
        assert!(diff.contains("-  \"description\": \"Echoes.\""), "{diff}");
        assert!(
            diff.contains("+  \"description\": \"Echoes <IMPORTANT>\""),
            "{diff}"
        );
    }
}
