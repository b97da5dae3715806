//! `$ref` and `allOf`: replacing references by what they point to, and finding recursion.
//!
//! Some providers take `$ref` only bare (OpenAI strict rejects `{"$ref": …,
//! "description": …}`), some not at all (Gemini's OpenAPI subset), some not when it
//! loops (Anthropic strict). Inlining a copy of the target keeps the meaning.

use serde_json::{Map, Value};

use super::SchemaIssue;
use super::tree::{for_each_child, for_each_child_mut, join, reference, resolve};

/// Which `$ref`s [`inline_refs`] replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inline {
    /// Every reference; `$defs` are removed afterwards. Recursion is reported.
    All,
    /// Only references with sibling keywords; recursion is kept as a bare reference
    /// wrapped in a one-branch `anyOf` that carries the siblings.
    WithSiblings,
}

/// Replaces `$ref`s by a copy of their target merged with the node's other keywords (the
/// node's own win), and merges `allOf` branches into their node.
pub(crate) fn inline_refs(schema: &mut Value, inline: Inline, issues: &mut Vec<SchemaIssue>) {
    let root = schema.clone();
    let mut inliner = Inliner {
        root: &root,
        inline,
        stack: Vec::new(),
        issues,
    };
    inliner.node(schema, "");
    match inline {
        Inline::All => {
            if let Some(root) = schema.as_object_mut() {
                root.remove("$defs");
                root.remove("definitions");
            }
        }
        Inline::WithSiblings => prune_unused_definitions(schema),
    }
}

/// Removes the `$defs` entries no reference reaches any more (their uses were inlined).
pub(crate) fn prune_unused_definitions(schema: &mut Value) {
    let mut reached: Vec<String> = Vec::new();
    let mut pending = Vec::new();
    collect_refs(schema, true, &mut pending);
    while let Some(target) = pending.pop() {
        if reached.contains(&target) {
            continue;
        }
        if let Some(definition) = resolve(schema, &target) {
            collect_refs(definition, false, &mut pending);
        }
        reached.push(target);
    }
    for keyword in ["$defs", "definitions"] {
        if let Some(Value::Object(definitions)) = schema.get_mut(keyword) {
            definitions.retain(|name, _| reached.contains(&format!("#/{keyword}/{name}")));
            if definitions.is_empty()
                && let Some(root) = schema.as_object_mut()
            {
                root.remove(keyword);
            }
        }
    }
}

/// Every `$ref` below `node`; at the root, not those inside the definitions themselves.
fn collect_refs(node: &Value, at_root: bool, found: &mut Vec<String>) {
    if let Some(target) = node.as_object().and_then(reference) {
        found.push(target.to_owned());
    }
    for_each_child(node, |segment, child| {
        if !(at_root && (segment.starts_with("$defs/") || segment.starts_with("definitions/"))) {
            collect_refs(child, false, found);
        }
    });
}

struct Inliner<'a> {
    root: &'a Value,
    inline: Inline,
    /// The references being inlined around the current node, to see recursion.
    stack: Vec<String>,
    issues: &'a mut Vec<SchemaIssue>,
}

impl Inliner<'_> {
    fn node(&mut self, node: &mut Value, path: &str) {
        let depth = self.stack.len();
        if let Some(map) = node.as_object_mut() {
            // References among `allOf` branches are merged into the node, so below it
            // they count as being inlined: recursion through them must be seen too.
            let merged = all_of_references(map);
            if let Some(target) = merged.iter().find(|target| self.stack.contains(target)) {
                let message = format!("`{target}` is recursive (it contains itself)");
                self.issues.push(SchemaIssue::new(path, message));
                return;
            }
            if let Err(message) = merge_all_of(map, self.root) {
                self.issues.push(SchemaIssue::new(path, message));
            }
            self.stack.extend(merged);
            if let Some(target) = reference(map).map(str::to_owned)
                && self.wants(map)
            {
                self.replace(map, &target, path);
                self.stack.truncate(depth);
                return;
            }
        }
        let in_definitions =
            |segment: &str| segment.starts_with("$defs/") || segment.starts_with("definitions/");
        for_each_child_mut(node, |segment, child| {
            // Definitions are inlined where they are used; walking them on their own would
            // report their recursion twice.
            if !(self.inline == Inline::All && in_definitions(segment)) {
                self.node(child, &join(path, segment));
            }
        });
        self.stack.truncate(depth);
    }

    fn wants(&self, node: &Map<String, Value>) -> bool {
        self.inline == Inline::All || node.len() > 1
    }

    fn replace(&mut self, node: &mut Map<String, Value>, target: &str, path: &str) {
        if self.stack.iter().any(|seen| seen == target) {
            match self.inline {
                Inline::All => self.issues.push(SchemaIssue::new(
                    path,
                    format!("`{target}` is recursive (it contains itself)"),
                )),
                Inline::WithSiblings => {
                    node.remove("$ref");
                    let bare = serde_json::json!([{ "$ref": target }]);
                    node.insert("anyOf".into(), bare);
                }
            }
            return;
        }
        let Some(Value::Object(resolved)) = resolve(self.root, target) else {
            self.issues.push(SchemaIssue::new(
                path,
                format!("`{target}` does not point to a schema in this document"),
            ));
            return;
        };
        node.remove("$ref");
        let siblings = std::mem::replace(node, resolved.clone());
        node.extend(siblings);
        self.stack.push(target.to_owned());
        let mut inlined = Value::Object(std::mem::take(node));
        self.node(&mut inlined, path);
        if let Value::Object(map) = inlined {
            *node = map;
        }
        self.stack.pop();
    }
}

/// The targets of the `allOf` branches that [`merge_all_of`] resolves: bare references.
fn all_of_references(node: &Map<String, Value>) -> Vec<String> {
    let branches = node.get("allOf").and_then(Value::as_array).into_iter().flatten();
    branches
        .filter_map(Value::as_object)
        .filter(|branch| branch.len() == 1)
        .filter_map(|branch| reference(branch).map(str::to_owned))
        .collect()
}

/// Merges every `allOf` branch (references resolved) into the node: properties and
/// `required` are combined; any other keyword must agree.
fn merge_all_of(node: &mut Map<String, Value>, root: &Value) -> Result<(), String> {
    let Some(Value::Array(branches)) = node.remove("allOf") else {
        return Ok(());
    };
    for branch in branches {
        let branch = match &branch {
            Value::Object(map) => match reference(map) {
                Some(target) if map.len() == 1 => resolve(root, target).cloned().unwrap_or(branch),
                _ => branch,
            },
            _ => branch,
        };
        let Value::Object(branch) = branch else {
            return Err("`allOf` has a branch that is not a schema object".to_owned());
        };
        for (keyword, value) in branch {
            merge_keyword(node, keyword, value)?;
        }
    }
    Ok(())
}

fn merge_keyword(node: &mut Map<String, Value>, keyword: String, value: Value) -> Result<(), String> {
    match (node.get_mut(&keyword), value) {
        (None, value) => {
            node.insert(keyword, value);
        }
        (Some(Value::Object(mine)), Value::Object(theirs)) if keyword == "properties" => mine.extend(theirs),
        (Some(Value::Array(mine)), Value::Array(theirs)) if keyword == "required" => {
            for name in theirs {
                if !mine.contains(&name) {
                    mine.push(name);
                }
            }
        }
        // The node's own description is about this use of the schema, so it wins.
        (Some(_), _) if keyword == "description" => {}
        (Some(mine), value) if *mine == value => {}
        (Some(_), _) => return Err(format!("`allOf` branches disagree on `{keyword}`")),
    }
    Ok(())
}

/// The `$ref` targets that lead back to themselves, each once, in the order found.
pub(crate) fn recursive_refs(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = Vec::new();
    find_recursion(schema, schema, &mut stack, &mut found);
    found
}

fn find_recursion(root: &Value, node: &Value, stack: &mut Vec<String>, found: &mut Vec<String>) {
    if let Some(target) = node.as_object().and_then(reference) {
        if stack.iter().any(|seen| seen == target) {
            if !found.iter().any(|seen| seen == target) {
                found.push(target.to_owned());
            }
            return;
        }
        if let Some(resolved) = resolve(root, target) {
            stack.push(target.to_owned());
            find_recursion(root, resolved, stack, found);
            stack.pop();
        }
    }
    let at_root = std::ptr::eq(root, node);
    for_each_child(node, |segment, child| {
        // Definitions are reached through the references that use them.
        if !(at_root && (segment.starts_with("$defs/") || segment.starts_with("definitions/"))) {
            find_recursion(root, child, stack, found);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn inlined(mut schema: Value, inline: Inline) -> (Value, Vec<SchemaIssue>) {
        let mut issues = Vec::new();
        inline_refs(&mut schema, inline, &mut issues);
        (schema, issues)
    }

    #[test]
    fn every_reference_is_inlined_and_definitions_dropped() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "description": "Use."}},
            "$defs": {"A": {"type": "object", "description": "Def.", "properties": {"b": {"$ref": "#/$defs/B"}}},
                      "B": {"type": "string"}}
        });
        let (schema, issues) = inlined(schema, Inline::All);
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {"a": {"type": "object", "description": "Use.", "properties": {"b": {"type": "string"}}}}})
        );
    }

    #[test]
    fn recursion_through_all_of_is_reported_not_followed_forever() {
        // Found by the `dialects` fuzz target: a definition that includes itself through
        // `allOf` was merged into itself until the stack overflowed.
        let schema = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "object", "properties": {
                "next": {"allOf": [{"$ref": "#/$defs/A"}, {"type": "object", "properties": {"b": {"type": "string"}}}]}
            }}}
        });
        for inline in [Inline::All, Inline::WithSiblings] {
            let (_, issues) = inlined(schema.clone(), inline);
            assert!(
                issues.iter().any(|issue| issue.message.contains("recursive")),
                "{inline:?}: {issues:?}"
            );
        }
        let spec = crate::spec::ToolSpec::new("t", "Test.", schema);
        for dialect in crate::dialect::Dialect::ALL {
            for strict in [crate::dialect::Strict::Always, crate::dialect::Strict::Never] {
                crate::dialect::DefinitionOptions::new(dialect)
                    .strict(strict)
                    .render(&spec);
            }
        }
    }

    #[test]
    fn recursion_is_reported_when_inlining_all() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
        });
        let (_, issues) = inlined(schema.clone(), Inline::All);
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].path, "/properties/tree/properties/children/items");
        assert_eq!(recursive_refs(&schema), ["#/$defs/Node"]);
    }

    #[test]
    fn only_references_with_siblings_are_inlined_on_request() {
        let schema = json!({
            "type": "object",
            "properties": {"bare": {"$ref": "#/$defs/A"}, "described": {"$ref": "#/$defs/A", "description": "D."}},
            "$defs": {"A": {"type": "string"}}
        });
        let (schema, _) = inlined(schema, Inline::WithSiblings);
        assert_eq!(schema["properties"]["bare"], json!({"$ref": "#/$defs/A"}));
        assert_eq!(
            schema["properties"]["described"],
            json!({"type": "string", "description": "D."})
        );
        assert!(schema.get("$defs").is_some());
    }

    #[test]
    fn recursive_reference_with_siblings_is_wrapped() {
        let schema = json!({
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node", "description": "N."}}}},
            "type": "object",
            "properties": {"head": {"$ref": "#/$defs/Node", "description": "H."}}
        });
        let (schema, issues) = inlined(schema, Inline::WithSiblings);
        assert!(issues.is_empty());
        assert_eq!(
            schema["properties"]["head"]["properties"]["next"],
            json!({"description": "N.", "anyOf": [{"$ref": "#/$defs/Node"}]})
        );
    }

    #[test]
    fn all_of_branches_merge() {
        let schema = json!({
            "type": "object",
            "properties": {"x": {"allOf": [{"$ref": "#/$defs/A"}], "description": "X."}},
            "$defs": {"A": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}
        });
        let (schema, issues) = inlined(schema, Inline::WithSiblings);
        assert!(issues.is_empty());
        assert_eq!(
            schema["properties"]["x"],
            json!({"description": "X.", "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})
        );
        let conflicting = json!({"allOf": [{"type": "string"}, {"type": "integer"}]});
        let (_, issues) = inlined(conflicting, Inline::WithSiblings);
        assert!(issues[0].message.contains("disagree on `type`"));
    }
}
