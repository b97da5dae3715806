//! A model's search query as words, the same for every backend, and the CJK
//! segmentation both backends index with.
//!
//! Query languages (FTS5's, PostgreSQL's `tsquery`) give meaning to `"`, `*`, `:`, `&`,
//! `|`, `!`, parentheses, `AND`, `NEAR` and more, and refuse unbalanced input. Models
//! write all of these, so the query is never passed as syntax: it is split at whitespace
//! (and control characters) into words, and each backend turns each word into a phrase
//! of its own language with the word as data (quoted for FTS5, a bound parameter for
//! PostgreSQL). Words without a letter or digit (`-`, `(`, an emoji) match nothing and
//! are dropped; a query of nothing else is refused.
//!
//! [`segment`] is applied to both the indexed text and each query word, so the two are
//! always tokenized alike: it separates CJK characters with a zero-width space (a
//! separator for SQLite's `unicode61` and for PostgreSQL's parser alike), making each a
//! token, and a CJK word a phrase of adjacent tokens.

use std::borrow::Cow;

use super::error::MemoryError;

/// The longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;

/// The most matches one search ranks. Ranking costs about a microsecond per matching
/// memory, and a store must rank every match before it knows the best ten, so a word in
/// half of 100,000 memories would take 50 ms; beyond this many matches only the newest
/// are ranked, and the results say so.
pub const RANK_WINDOW: u32 = 2000;

/// What [`segment`] puts between CJK characters; removed again from snippets.
pub(super) const SEPARATOR: char = '\u{200B}';

/// A search query, checked: its words, each with a letter or digit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct QueryWords {
    words: Vec<String>,
}

impl QueryWords {
    /// Splits `text` into words; refuses text with no words, or too long.
    pub(super) fn parse(text: &str) -> Result<Self, MemoryError> {
        let chars = text.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(MemoryError::QueryTooLong { chars });
        }
        let words: Vec<String> = text
            .split(|c: char| c.is_whitespace() || c.is_control())
            .filter(|word| word.chars().any(char::is_alphanumeric))
            .map(str::to_owned)
            .collect();
        if words.is_empty() {
            return Err(MemoryError::EmptyQuery);
        }
        Ok(Self { words })
    }

    /// The words, in the order given.
    pub(super) fn words(&self) -> &[String] {
        &self.words
    }

    /// Whether the query has more than one word (so "any" differs from "all").
    pub(super) fn has_several_words(&self) -> bool {
        self.words.len() > 1
    }
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
pub(super) fn is_cjk(c: char) -> bool {
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
    fn a_query_is_split_into_words_with_letters_or_digits() {
        let query = QueryWords::parse("deploy  script\tNEAR(a b) - ( 🎉 col:x").unwrap();
        assert_eq!(query.words(), ["deploy", "script", "NEAR(a", "b)", "col:x"]);
        assert!(query.has_several_words());
        assert!(matches!(
            QueryWords::parse(" - ( 🎉 \"' "),
            Err(MemoryError::EmptyQuery)
        ));
        assert!(matches!(QueryWords::parse(""), Err(MemoryError::EmptyQuery)));
        let long = "word ".repeat(201);
        assert!(matches!(
            QueryWords::parse(&long),
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
        assert_eq!(unsegment("«中\u{200B}文»\n\n and  more"), "«中文» and more");
    }
}
