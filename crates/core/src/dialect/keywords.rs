//! Sorting a schema node's keywords under one provider's rules: kept, described (moved
//! into the description), dropped, or impossible.
//!
//! Providers accept different subsets of JSON Schema. A constraint a provider does not
//! enforce still holds — the registry validates every call against the canonical schema —
//! so it is moved into the description, where the model sees it. Constructs with no
//! equivalent (`not`, `if`/`then`/`else`, …) are reported.

use serde_json::{Map, Value};

use super::describe::{is_number_format, move_to_description};

/// Keywords nobody needs to see: annotations for other tools and schemars' bookkeeping.
const DROPPED: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
];

/// The string formats of JSON Schema that constrained decoders commonly implement.
pub(crate) const WELL_KNOWN_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// One provider's keyword subset, as data.
pub(crate) struct KeywordRules {
    /// The provider's name, for messages.
    pub(crate) provider: &'static str,
    /// Keywords the provider understands.
    pub(crate) kept: &'static [&'static str],
    /// Keywords moved into the description.
    pub(crate) described: &'static [&'static str],
    /// The string formats the provider accepts; others are described. Formats that only
    /// restate a Rust number type are dropped.
    pub(crate) formats: &'static [&'static str],
    /// The most `minItems` may say; a higher value is described instead.
    pub(crate) max_min_items: Option<u64>,
}

impl KeywordRules {
    /// Applies the rules to one node (not its subschemas). Returns the keywords that have
    /// no equivalent, quoted, or an empty list.
    pub(crate) fn sort(&self, node: &mut Map<String, Value>) -> Vec<String> {
        let mut described: Vec<&str> = Vec::new();
        let mut impossible = Vec::new();
        let keywords: Vec<String> = node.keys().cloned().collect();
        for keyword in &keywords {
            let keyword = keyword.as_str();
            if keyword == "format" {
                self.sort_format(node, &mut described);
            } else if keyword == "minItems" {
                self.sort_min_items(node, &mut described);
            } else if self.kept.contains(&keyword) {
                continue;
            } else if let Some(known) = self.described.iter().find(|known| **known == keyword) {
                described.push(known);
            } else if DROPPED.contains(&keyword) {
                node.remove(keyword);
            } else {
                impossible.push(format!("`{keyword}`"));
            }
        }
        move_to_description(node, &described);
        impossible
    }

    /// The sentence for [`sort`](Self::sort)'s impossible keywords.
    pub(crate) fn unsupported(&self, mode: &str, keywords: &[String]) -> String {
        format!(
            "{} {mode} does not support {}",
            self.provider,
            keywords.join(", ")
        )
    }

    fn sort_format(&self, node: &mut Map<String, Value>, described: &mut Vec<&str>) {
        let Some(format) = node.get("format").and_then(Value::as_str) else {
            return;
        };
        if is_number_format(format) {
            node.remove("format");
        } else if !self.formats.contains(&format) {
            described.push("format");
        }
    }

    fn sort_min_items(&self, node: &Map<String, Value>, described: &mut Vec<&str>) {
        let min_items = node.get("minItems").and_then(Value::as_u64);
        if let (Some(limit), Some(value)) = (self.max_min_items, min_items)
            && value > limit
        {
            described.push("minItems");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const RULES: KeywordRules = KeywordRules {
        provider: "Test",
        kept: &["type", "description"],
        described: &["minLength", "minItems"],
        formats: &["date"],
        max_min_items: Some(1),
    };

    #[test]
    fn keywords_are_kept_described_dropped_or_impossible() {
        let mut node = json!({
            "type": "string", "minLength": 2, "format": "uri", "$comment": "x", "not": {}, "minItems": 1
        });
        let impossible = RULES.sort(node.as_object_mut().unwrap());
        assert_eq!(impossible, ["`not`"]);
        assert_eq!(
            node,
            json!({"type": "string", "not": {}, "minItems": 1, "description": "At least 2 characters; format: uri"})
        );
        assert_eq!(
            RULES.unsupported("strict mode", &impossible),
            "Test strict mode does not support `not`"
        );
    }
}
