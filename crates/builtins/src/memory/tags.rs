//! Tags: normalized once, the same way when written and when filtered on, so `Rust`,
//! ` rust ` and `rust` are one tag.
//!
//! A tag is lowercase, with runs of whitespace turned into `-`; commas separate tags
//! (`"ops, ci"` is two). They are stored sorted as `,ops,ci,` (see [`to_column`]), so
//! "has tag `ci`" is the exact substring test `instr(tags, ',ci,') > 0`, with no
//! `LIKE` wildcards to escape.

use std::collections::BTreeSet;

use super::error::MemoryError;

/// The most tags on one memory or in one filter.
pub const MAX_TAGS: usize = 20;
/// The longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 50;

/// Normalizes, deduplicates and sorts tags; empty ones are dropped.
pub(super) fn normalize(raw: &[String]) -> Result<Vec<String>, MemoryError> {
    let mut tags = BTreeSet::new();
    for piece in raw.iter().flat_map(|tag| tag.split(',')) {
        if piece.contains('\0') {
            return Err(MemoryError::NulCharacter { field: "tags" });
        }
        let tag = piece
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("-")
            .to_lowercase();
        if tag.chars().count() > MAX_TAG_CHARS {
            return Err(MemoryError::TagTooLong { tag });
        }
        if !tag.is_empty() {
            tags.insert(tag);
        }
    }
    if tags.len() > MAX_TAGS {
        return Err(MemoryError::TooManyTags { count: tags.len() });
    }
    Ok(tags.into_iter().collect())
}

/// Normalized tags as stored in the `tags` column: `,a,b,`, or empty for none.
pub(super) fn to_column(tags: &[String]) -> String {
    if tags.is_empty() {
        String::new()
    } else {
        format!(",{},", tags.join(","))
    }
}

/// The tags of a `tags` column.
pub(super) fn from_column(column: &str) -> Vec<String> {
    column
        .split(',')
        .filter(|tag| !tag.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The text a memory's key and tags are searched by (both backends index it beside the
/// content).
pub(super) fn labels(key: Option<&str>, tags: &[String]) -> String {
    format!("{} {}", key.unwrap_or_default(), tags.join(" "))
}

/// The pattern that a `tags` column holding `tag` contains.
pub(super) fn needle(tag: &str) -> String {
    format!(",{tag},")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn tags_are_normalized_deduplicated_and_sorted() {
        let tags = normalize(&strings(&["Rust", " rust ", "ops, CI", "", "Project  X"])).unwrap();
        assert_eq!(tags, ["ci", "ops", "project-x", "rust"]);
        assert_eq!(to_column(&tags), ",ci,ops,project-x,rust,");
        assert_eq!(from_column(&to_column(&tags)), tags);
        assert_eq!(to_column(&[]), "");
        assert!(from_column("").is_empty());
    }

    #[test]
    fn long_and_too_many_tags_are_refused() {
        let error = normalize(&strings(&[&"x".repeat(51)])).unwrap_err();
        assert!(error.to_string().contains("over 50 characters"), "{error}");
        let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
        let error = normalize(&many).unwrap_err();
        assert_eq!(error.to_string(), "21 tags given; at most 20 are allowed");
    }
}
