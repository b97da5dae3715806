//! The ranking `tool_search` answers with: a tool named exactly as the query first, then
//! tools whose name starts with it, then the rest by BM25 relevance.
//!
//! BM25 comes from the `bm25` crate (Okapi BM25, k1 1.2, b 0.75) with the tokenizer of
//! [`tokens`](super::tokens). A tool's document is its name, title, description and the
//! names and descriptions of its arguments; the name's words are written three times,
//! because a word in the name says more about a tool than the same word in a long
//! description (a cheap stand-in for per-field weights, as BM25F would give).

use bm25::{Embedder, EmbedderBuilder, Scorer};
use serde_json::Value;

use super::tokens::{CutWords, cut};
use crate::spec::ToolSpec;

/// How many times a tool's name counts in its document.
const NAME_WEIGHT: usize = 3;
/// How deep [`argument_text`] follows nested schemas.
const MAX_SCHEMA_DEPTH: usize = 4;

/// The searchable form of a set of tools, built once per set.
pub(super) struct SearchIndex {
    embedder: Embedder<u32, CutWords>,
    scorer: Scorer<usize>,
    /// Lowercased names, for the exact and prefix matches.
    names: Vec<String>,
}

impl SearchIndex {
    /// The index of `specs`; positions in results are positions in `specs`.
    pub(super) fn new(specs: &[&ToolSpec]) -> Self {
        let documents: Vec<String> = specs.iter().map(|spec| cut(&document(spec))).collect();
        let corpus: Vec<&str> = documents.iter().map(String::as_str).collect();
        let embedder =
            EmbedderBuilder::<u32, CutWords>::with_tokenizer_and_fit_to_corpus(CutWords, &corpus).build();
        let mut scorer = Scorer::new();
        for (position, document) in documents.iter().enumerate() {
            scorer.upsert(&position, embedder.embed(document));
        }
        Self {
            embedder,
            scorer,
            names: specs.iter().map(|spec| spec.meta.name.to_lowercase()).collect(),
        }
    }

    /// The positions of the best `limit` tools for `query`, best first.
    pub(super) fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let scores = self.scorer.matches(&self.embedder.embed(&cut(query)));
        let score_of = |position: usize| {
            scores
                .iter()
                .find(|scored| scored.id == position)
                .map_or(0.0, |scored| scored.score)
        };
        // `create issue` is also tried as the identifier `create_issue`.
        let wanted = query
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("_")
            .to_lowercase();
        let mut ranked: Vec<(u8, f32, usize)> = Vec::new();
        for (position, name) in self.names.iter().enumerate() {
            let tier = if *name == wanted {
                0
            } else if !wanted.is_empty() && name.starts_with(&wanted) {
                1
            } else {
                continue;
            };
            ranked.push((tier, score_of(position), position));
        }
        let by_relevance: Vec<(u8, f32, usize)> = scores
            .iter()
            .filter(|scored| !ranked.iter().any(|(_, _, position)| *position == scored.id))
            .map(|scored| (2, scored.score, scored.id))
            .collect();
        ranked.extend(by_relevance);
        ranked.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
        ranked
            .into_iter()
            .take(limit)
            .map(|(_, _, position)| position)
            .collect()
    }
}

/// What a tool is searched by.
fn document(spec: &ToolSpec) -> String {
    let mut text = String::new();
    for _ in 0..NAME_WEIGHT {
        text.push_str(&spec.meta.name);
        text.push(' ');
    }
    if let Some(title) = spec.title() {
        text.push_str(title);
        text.push(' ');
    }
    text.push_str(&spec.meta.description);
    argument_text(&spec.input_schema, 0, &mut text);
    text
}

/// Appends the property names and descriptions of `schema`, nested ones included.
fn argument_text(schema: &Value, depth: usize, text: &mut String) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    let Some(object) = schema.as_object() else {
        if let Some(items) = schema.as_array() {
            items.iter().for_each(|item| argument_text(item, depth + 1, text));
        }
        return;
    };
    if let Some(Value::Object(properties)) = object.get("properties") {
        for (name, property) in properties {
            text.push(' ');
            text.push_str(name);
            if let Some(Value::String(description)) = property.get("description") {
                text.push(' ');
                text.push_str(description);
            }
            argument_text(property, depth + 1, text);
        }
    }
    for nested in ["items", "anyOf", "oneOf", "allOf", "$defs"] {
        if let Some(value) = object.get(nested) {
            let values: Vec<&Value> = match value {
                Value::Object(map) if nested == "$defs" => map.values().collect(),
                other => vec![other],
            };
            values
                .into_iter()
                .for_each(|value| argument_text(value, depth + 1, text));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn spec(name: &str, description: &str, schema: Value) -> ToolSpec {
        ToolSpec::new(name, description, schema)
    }

    fn names<'a>(specs: &'a [ToolSpec], query: &str, limit: usize) -> Vec<&'a str> {
        let refs: Vec<&ToolSpec> = specs.iter().collect();
        SearchIndex::new(&refs)
            .search(query, limit)
            .into_iter()
            .map(|position| specs[position].meta.name.as_str())
            .collect()
    }

    fn catalog() -> Vec<ToolSpec> {
        let no_args = json!({"type": "object"});
        vec![
            spec(
                "weather_forecast",
                "Forecast for a city.",
                json!({
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "City name"}},
                }),
            ),
            spec(
                "github_create_issue",
                "Open an issue in a repository.",
                no_args.clone(),
            ),
            spec(
                "github_list_issues",
                "List a repository's issues.",
                no_args.clone(),
            ),
            spec(
                "send_email",
                "Send an email message to a recipient.",
                json!({
                    "type": "object",
                    "properties": {"to": {"type": "string", "description": "The recipient's address"}},
                }),
            ),
            spec("git", "Run git with arguments, e.g. status.", no_args.clone()),
            spec("gitlab_merge", "Merge a merge request.", no_args),
        ]
    }

    #[test]
    fn relevance_ranks_words_in_names_descriptions_and_arguments() {
        let specs = catalog();
        assert_eq!(names(&specs, "send a message", 1), ["send_email"]);
        assert_eq!(names(&specs, "recipient address", 1), ["send_email"]);
        assert_eq!(names(&specs, "which city forecasts", 1), ["weather_forecast"]);
        assert_eq!(
            names(&specs, "open issues", 2),
            ["github_create_issue", "github_list_issues"]
        );
    }

    #[test]
    fn an_exact_name_comes_first_then_names_it_starts() {
        let specs = catalog();
        // `git` also starts `github_*` and `gitlab_merge`; the exact name leads.
        assert_eq!(names(&specs, "git", 1), ["git"]);
        let ranked = names(&specs, "GIT", 10);
        assert_eq!(ranked[0], "git");
        assert_eq!(ranked.len(), 4, "{ranked:?}");
        assert_eq!(names(&specs, "github create issue", 1), ["github_create_issue"]);
        assert_eq!(names(&specs, "github_list", 1), ["github_list_issues"]);
    }

    #[test]
    fn no_match_and_empty_catalogs_give_nothing() {
        let specs = catalog();
        assert!(names(&specs, "quantum teleportation", 5).is_empty());
        assert!(names(&[], "anything", 5).is_empty());
    }
}
