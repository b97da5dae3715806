//! The words of tool metadata and of a model's query, as the search index compares them.
//!
//! Tool names are identifiers (`github_create_issue`, `readFile`, `HTTPRequest`), so a
//! word is split at `_`, `-`, `.`, `/` and at case changes, as well as at whitespace and
//! punctuation; words are lowercased, English stop words dropped, and the rest stemmed
//! (Snowball English), so `screenshots` finds `screenshot` and `deleting` finds
//! `delete`. Chinese, Japanese and Korean characters are words of one character each,
//! since they are not separated by spaces.

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

/// Words too common in tool descriptions to tell tools apart.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i", "if", "in",
    "into", "is", "it", "its", "me", "my", "of", "on", "or", "so", "than", "that", "the", "then", "this",
    "to", "use", "using", "was", "what", "when", "which", "with", "you", "your",
];

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// The `bm25` crate's tokenizer, over text that [`words`] already cut: documents and
/// queries are cut once, not again for every pass the crate makes over them.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct CutWords;

impl bm25::Tokenizer for CutWords {
    fn tokenize(&self, text: &str) -> Vec<String> {
        text.split(' ')
            .filter(|word| !word.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

/// [`words`], joined for [`CutWords`].
pub(super) fn cut(text: &str) -> String {
    words(text).join(" ")
}

/// The stemmed, lowercased words of `text`, without stop words.
pub(super) fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for piece in pieces(text) {
        let lower = piece.to_lowercase();
        if STOP_WORDS.contains(&lower.as_str()) {
            continue;
        }
        words.push(STEMMER.stem(&lower).into_owned());
    }
    words
}

/// `text` cut into letters-and-digits runs, identifiers split at case changes, CJK
/// characters one by one.
fn pieces(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start: Option<usize> = None;
    let mut previous: Option<char> = None;
    for (at, c) in text.char_indices() {
        let cut_before = match previous {
            _ if is_cjk(c) => true,
            Some(before) => is_cjk(before) || case_boundary(before, c, &text[at..]),
            None => false,
        };
        if !c.is_alphanumeric() {
            if let Some(from) = start.take() {
                pieces.push(&text[from..at]);
            }
            previous = None;
            continue;
        }
        if cut_before && let Some(from) = start.replace(at) {
            pieces.push(&text[from..at]);
        }
        start.get_or_insert(at);
        previous = Some(c);
    }
    if let Some(from) = start {
        pieces.push(&text[from..]);
    }
    pieces
}

/// Whether an identifier's next word starts at `c`: `readFile` before `F`,
/// `HTTPServer` before the `S` of `Server`.
fn case_boundary(before: char, c: char, rest: &str) -> bool {
    if before.is_lowercase() && c.is_uppercase() {
        return true;
    }
    let next = rest.chars().nth(1);
    before.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase)
}

/// Chinese, Japanese (kana) and Korean (Hangul) characters.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}' // Hiragana, Katakana
        | '\u{3400}'..='\u{4dbf}' // CJK Extension A
        | '\u{4e00}'..='\u{9fff}' // CJK Unified Ideographs
        | '\u{ac00}'..='\u{d7af}' // Hangul syllables
        | '\u{f900}'..='\u{faff}' // CJK Compatibility Ideographs
        | '\u{20000}'..='\u{2ffff}') // CJK Extensions B and later
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_their_words() {
        assert_eq!(words("github_create_issue"), ["github", "creat", "issu"]);
        assert_eq!(words("readFile"), ["read", "file"]);
        assert_eq!(words("HTTPServer"), ["http", "server"]);
        assert_eq!(words("fs/read-file.v2"), ["fs", "read", "file", "v2"]);
    }

    #[test]
    fn words_are_stemmed_and_stop_words_dropped() {
        assert_eq!(words("Take the screenshots"), words("take screenshot"));
        assert_eq!(words("deleting files"), words("delete file"));
        assert!(words("the of and to").is_empty());
    }

    #[test]
    fn cjk_characters_are_words_of_their_own() {
        assert_eq!(words("数据库迁移"), ["数", "据", "库", "迁", "移"]);
        assert_eq!(words("query数据"), ["queri", "数", "据"]);
    }
}
