//! Turning text into what FTS5 indexes and into FTS5 queries that cannot fail.
//!
//! FTS5's query language gives meaning to `"`, `*`, `^`, `:`, `(`, `)`, `-`, `+`, `AND`,
//! `OR`, `NOT` and `NEAR`; an unbalanced quote or a stray `:` is a syntax error, and
//! `col:x` names a column. Models write all of these, so the query is never passed as
//! syntax: it is split at whitespace (and control characters) into words, each word becomes one double-quoted
//! string (a `"` inside doubled), and inside quotes FTS5 only tokenizes. Words without
//! a letter or digit (`-`, `(`, an emoji) would be empty phrases and are dropped.
//!
//! [`segment`] is applied to both the indexed text and each query word, so the two are
//! always tokenized alike: it separates CJK characters with a zero-width space (a
//! separator for `unicode61`), making each a token, and a CJK word a phrase.

use std::borrow::Cow;

use super::error::MemoryError;

/// The longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;

/// What [`segment`] puts between CJK characters; removed again from snippets.
pub(super) const SEPARATOR: char = '\u{200B}';

/// A search query as FTS5 expressions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FtsQuery {
    phrases: Vec<String>,
}

impl FtsQuery {
    /// Quotes each word of `text`; refuses text with no words, or too long.
    pub(super) fn parse(text: &str) -> Result<Self, MemoryError> {
        let chars = text.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(MemoryError::QueryTooLong { chars });
        }
        let phrases: Vec<String> = text
            .split(|c: char| c.is_whitespace() || c.is_control())
            .filter(|word| word.chars().any(char::is_alphanumeric))
            .map(quote)
            .collect();
        if phrases.is_empty() {
            return Err(MemoryError::EmptyQuery);
        }
        Ok(Self { phrases })
    }

    /// Matches entries containing every word (and `tags`, see [`FtsQuery::expression`]).
    pub(super) fn all(&self, tags: &[String]) -> String {
        self.expression(" AND ", tags)
    }

    /// Matches entries containing any word (and `tags`).
    pub(super) fn any(&self, tags: &[String]) -> String {
        self.expression(" OR ", tags)
    }

    /// The words joined by `operator`, and each tag as a phrase in the `labels` column.
    ///
    /// The tags make FTS5 itself skip memories without them, so that BM25 ranks only
    /// memories that can be listed. `labels` also holds the key, and `project-x` is
    /// the phrase `project x` there, so this keeps a superset of the memories with the
    /// tags; the exact test on the `tags` column follows in SQL.
    fn expression(&self, operator: &str, tags: &[String]) -> String {
        let words = self.phrases.join(operator);
        if tags.is_empty() {
            return words;
        }
        let labels: Vec<String> = tags
            .iter()
            .map(|tag| format!("labels : {}", quote(tag)))
            .collect();
        format!("({words}) AND {}", labels.join(" AND "))
    }

    /// Whether the query has more than one word (so "any" differs from "all").
    pub(super) fn has_several_words(&self) -> bool {
        self.phrases.len() > 1
    }
}

/// One word as an FTS5 string: segmented, `"` doubled, in double quotes.
fn quote(word: &str) -> String {
    let segmented = segment(word);
    let mut quoted = String::with_capacity(segmented.len() + 2);
    quoted.push('"');
    for c in segmented.chars() {
        if c == '"' {
            quoted.push('"');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

/// `text` with [`SEPARATOR`] between a CJK character and a letter or digit next to it.
pub(super) fn segment(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_cjk) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() * 2);
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if let Some(p) = previous
            && (is_cjk(p) || is_cjk(c))
            && p.is_alphanumeric()
            && c.is_alphanumeric()
        {
            out.push(SEPARATOR);
        }
        out.push(c);
        previous = Some(c);
    }
    Cow::Owned(out)
}

/// `text` without the separators [`segment`] added, its whitespace runs made one space
/// (a snippet is shown on one line).
pub(super) fn unsegment(text: &str) -> String {
    text.split(|c: char| c.is_whitespace())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .replace(SEPARATOR, "")
}

/// Scripts written without spaces between words: Han, kana, Hangul (whose words carry
/// particles, so substrings matter) and their compatibility and extension blocks.
fn is_cjk(c: char) -> bool {
    matches!(
        u32::from(c),
        0x1100..=0x11FF         // Hangul Jamo
            | 0x2E80..=0x2FDF   // CJK and Kangxi radicals
            | 0x3040..=0x30FF   // Hiragana, Katakana
            | 0x3100..=0x31FF   // Bopomofo, Hangul compatibility Jamo, Katakana extensions
            | 0x3400..=0x4DBF   // CJK Extension A
            | 0x4E00..=0x9FFF   // CJK Unified Ideographs
            | 0xA960..=0xA97F   // Hangul Jamo Extended-A
            | 0xAC00..=0xD7FF   // Hangul syllables, Jamo Extended-B
            | 0xF900..=0xFAFF   // CJK compatibility ideographs
            | 0xFF66..=0xFFDC   // half-width Katakana and Hangul
            | 0x20000..=0x3134F // CJK Extensions B–G
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_become_quoted_phrases() {
        let query = FtsQuery::parse("deploy  script").unwrap();
        assert_eq!(query.all(&[]), r#""deploy" AND "script""#);
        assert_eq!(query.any(&[]), r#""deploy" OR "script""#);
        let tags = ["ops".to_owned(), "say\"x".to_owned()];
        assert_eq!(
            query.any(&tags),
            r#"("deploy" OR "script") AND labels : "ops" AND labels : "say""x""#
        );
        assert!(query.has_several_words());
    }

    #[test]
    fn syntax_is_quoted_and_punctuation_dropped() {
        let query = FtsQuery::parse(r#"NEAR(a b) say"hi" col:x - ( 🎉 a*"#).unwrap();
        assert_eq!(
            query.all(&[]),
            r#""NEAR(a" AND "b)" AND "say""hi""" AND "col:x" AND "a*""#
        );
        assert!(matches!(
            FtsQuery::parse(" - ( 🎉 \"' "),
            Err(MemoryError::EmptyQuery)
        ));
        assert!(matches!(FtsQuery::parse(""), Err(MemoryError::EmptyQuery)));
        let long = "word ".repeat(201);
        assert!(matches!(
            FtsQuery::parse(&long),
            Err(MemoryError::QueryTooLong { chars: 1005 })
        ));
    }

    #[test]
    fn cjk_characters_are_separated() {
        assert_eq!(segment("plain text"), Cow::Borrowed("plain text"));
        assert_eq!(
            segment("我喜欢Rust。好"),
            "我\u{200B}喜\u{200B}欢\u{200B}Rust。好"
        );
        assert_eq!(FtsQuery::parse("中文").unwrap().all(&[]), "\"中\u{200B}文\"");
        assert_eq!(unsegment("«中\u{200B}文»\n\n and  more"), "«中文» and more");
    }
}
