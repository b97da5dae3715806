//! What the strict modes of OpenAI and Anthropic have in common.
//!
//! Strict mode makes the provider constrain the model's output to the schema, so the
//! provider accepts only the keywords its grammar compiler understands
//! ([`KeywordRules`]), wants every object closed, and every value typed. A schema with
//! something that has no strict equivalent (`not`, maps with free-form keys, any-value
//! fields, …) has no strict form: the dialect falls back to a non-strict definition, with
//! these issues as the reason.

use serde_json::{Map, Value};

use super::SchemaIssue;
use super::keywords::KeywordRules;
use super::tree::{for_each_child_mut, is_object_schema, join};

/// Rewrites every node of `schema` under `rules`; the issues say what cannot be strict.
pub(crate) fn rewrite(schema: &mut Value, rules: &KeywordRules) -> Vec<SchemaIssue> {
    let mut walk = Walk {
        rules,
        issues: Vec::new(),
    };
    walk.node(schema, "");
    walk.issues
}

struct Walk<'a> {
    rules: &'a KeywordRules,
    issues: Vec<SchemaIssue>,
}

impl Walk<'_> {
    fn node(&mut self, schema: &mut Value, path: &str) {
        let Value::Object(node) = schema else {
            if *schema == Value::Bool(true) {
                self.issue(path, "accepts any JSON value; strict mode needs a type");
            }
            return;
        };
        self.one_of_to_any_of(node, path);
        self.sort_keywords(node, path);
        for_each_child_mut(schema, |segment, child| {
            // `additionalProperties` is judged as part of its object, below.
            if segment != "additionalProperties" {
                self.node(child, &join(path, segment));
            }
        });
        let Value::Object(node) = schema else { return };
        if is_object_schema(node) {
            self.close_object(node, path);
        }
        let constrained = ["type", "enum", "const", "anyOf", "allOf", "$ref"]
            .iter()
            .any(|k| node.contains_key(*k));
        if !constrained {
            self.issue(path, "accepts any JSON value; strict mode needs a type");
        }
    }

    /// A `oneOf` whose branches exclude each other means the same as an `anyOf`, and the
    /// tagged enums schemars writes it for do.
    fn one_of_to_any_of(&mut self, node: &mut Map<String, Value>, path: &str) {
        if let Some(branches) = node.remove("oneOf") {
            if node.contains_key("anyOf") {
                self.issue(path, "has both `oneOf` and `anyOf`");
            }
            node.insert("anyOf".into(), branches);
        }
    }

    fn sort_keywords(&mut self, node: &mut Map<String, Value>, path: &str) {
        let impossible = self.rules.sort(node);
        if !impossible.is_empty() {
            self.issue(path, &self.rules.unsupported("strict mode", &impossible));
        }
    }

    /// Strict objects list their properties and nothing else.
    fn close_object(&mut self, node: &mut Map<String, Value>, path: &str) {
        match node.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => {
                let message = "is a map with free-form keys (`additionalProperties`); strict mode needs every key listed";
                self.issue(path, message);
                return;
            }
        }
        if !node.contains_key("properties") && !node.contains_key("additionalProperties") {
            self.issue(
                path,
                "is an object without listed properties; strict mode needs every key listed",
            );
            return;
        }
        node.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        node.insert("additionalProperties".into(), Value::Bool(false));
    }

    fn issue(&mut self, path: &str, message: &str) {
        self.issues.push(SchemaIssue::new(path, message));
    }
}
