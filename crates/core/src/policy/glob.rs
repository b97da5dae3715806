//! The globs of policy rules: `*` matches any run of characters (slashes and spaces
//! included, so `git status*` and `https://docs.rs/*` mean what they say; `**` is the
//! same, for those used to it in paths), `?` one character, and `\` makes the next
//! character literal. A glob matches the whole text.
//!
//! Matching is the classic greedy algorithm that backtracks to the last `*` only: linear
//! for the patterns rules use, and at worst the text's length times the pattern's — never
//! exponential, whatever a model sends.

use std::fmt;

/// A compiled glob, as policy rules use them: `*` matches any run of characters
/// (slashes and spaces included), `?` one character, `\` makes the next one literal; the
/// whole text must match. Also for other lists of tool names (`agent-tools-mcp`'s OAuth scopes).
///
/// ```
/// use agent_tools_core::policy::Glob;
///
/// let glob = Glob::new("github_*")?;
/// assert!(glob.matches("github_create_issue"));
/// assert!(!glob.matches("gitlab_create_issue"));
/// # Ok::<(), agent_tools_core::policy::GlobError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Glob {
    source: Box<str>,
    pieces: Box<[Piece]>,
}

#[derive(Clone, PartialEq, Eq)]
enum Piece {
    /// A run of literal characters.
    Literal(Box<str>),
    /// `?`
    One,
    /// `*` (or several in a row)
    Any,
}

/// A glob that ends with a `\` escaping nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the glob ends with a lone `\\`")]
pub struct GlobError;

impl Glob {
    /// The one text the glob matches, if it has no wildcard.
    pub(crate) fn literal(&self) -> Option<&str> {
        match &*self.pieces {
            [Piece::Literal(text)] => Some(text),
            _ => None,
        }
    }

    /// Compiles `source`.
    pub fn new(source: &str) -> Result<Self, GlobError> {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut chars = source.chars();
        while let Some(c) = chars.next() {
            let piece = match c {
                '*' => Piece::Any,
                '?' => Piece::One,
                '\\' => {
                    literal.push(chars.next().ok_or(GlobError)?);
                    continue;
                }
                c => {
                    literal.push(c);
                    continue;
                }
            };
            if !literal.is_empty() {
                pieces.push(Piece::Literal(std::mem::take(&mut literal).into()));
            }
            // `**` is `*`: one piece, so a run of stars costs no more than one.
            if !(piece == Piece::Any && pieces.last() == Some(&Piece::Any)) {
                pieces.push(piece);
            }
        }
        if !literal.is_empty() {
            pieces.push(Piece::Literal(literal.into()));
        }
        Ok(Self {
            source: source.into(),
            pieces: pieces.into(),
        })
    }

    /// Whether `text`, all of it, matches.
    pub fn matches(&self, text: &str) -> bool {
        let pieces = &self.pieces;
        let (mut piece, mut at) = (0, 0);
        // After a mismatch, retry from the piece after the last `*`, which then takes
        // one more character of the text.
        let mut retry: Option<(usize, usize)> = None;
        loop {
            if let Some(next) = pieces.get(piece) {
                let step = match next {
                    // A last `*` takes whatever is left (`git status*`, `src/**`).
                    Piece::Any if piece + 1 == pieces.len() => return true,
                    Piece::Any => {
                        retry = Some((piece + 1, at));
                        Some(0)
                    }
                    Piece::One => text[at..].chars().next().map(char::len_utf8),
                    Piece::Literal(literal) => text[at..].starts_with(&**literal).then_some(literal.len()),
                };
                if let Some(step) = step {
                    piece += 1;
                    at += step;
                    continue;
                }
            } else if at == text.len() {
                return true;
            }
            let Some((after_star, star_at)) = retry else {
                return false;
            };
            let Some(taken) = text[star_at..].chars().next() else {
                return false;
            };
            let star_at = star_at + taken.len_utf8();
            retry = Some((after_star, star_at));
            (piece, at) = (after_star, star_at);
        }
    }
}

impl fmt::Debug for Glob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Glob({:?})", self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        Glob::new(pattern).unwrap().matches(text)
    }

    #[test]
    fn stars_match_any_run_slashes_and_spaces_included() {
        assert!(matches("git status*", "git status"));
        assert!(matches("git status*", "git status --short src/"));
        assert!(!matches("git status*", "git stash"));
        assert!(matches(
            "https://docs.rs/*",
            "https://docs.rs/serde/latest/serde/"
        ));
        assert!(!matches("https://docs.rs/*", "https://docs.rs.example.com/"));
        assert!(matches("src/**", "src/a/b/c.rs"));
        assert!(!matches("src/**", "tests/a.rs"));
        assert!(matches("*.rs", "src/main.rs"));
        assert!(matches("a*b*c", "a-b-b-c"));
        assert!(!matches("a*b*c", "a-b-b-"));
        assert!(matches("*", ""));
        assert!(matches("", ""));
        assert!(!matches("", "x"));
    }

    #[test]
    fn question_marks_take_one_character_of_any_width() {
        assert!(matches("?", "é"));
        assert!(matches("a?c", "a✓c"));
        assert!(!matches("a?c", "ac"));
        assert!(!matches("?", "ab"));
    }

    #[test]
    fn backslashes_make_characters_literal() {
        assert!(matches(r"what\?", "what?"));
        assert!(!matches(r"what\?", "whats"));
        assert!(matches(r"\*", "*"));
        assert!(!matches(r"\*", "x"));
        assert_eq!(Glob::new(r"dangling\"), Err(GlobError));
    }

    #[test]
    fn long_hostile_texts_match_in_linear_time() {
        // Exponential backtracking would never finish this.
        let text = "a".repeat(100_000);
        assert!(!matches("*a*a*a*a*a*a*a*a*b", &text));
        assert!(matches("*a*a*a*a*a*a*a*a*", &text));
    }
}
