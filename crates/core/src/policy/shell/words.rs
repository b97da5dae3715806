//! A command's words as the shell passes them to the program: quotes removed, escapes
//! applied, an unquoted `$IFS` splitting words, and what runs inside a word (a command
//! substitution) handed back to the walk.

use brush_parser::ParserOptions;
use brush_parser::word::{WordPiece, WordPieceWithSource};

use super::walk::Walk;

/// The words of one command, built piece by piece.
#[derive(Debug, Default)]
pub(super) struct Words {
    done: Vec<String>,
    current: String,
    /// The current word exists even if empty (`''` is an argument).
    started: bool,
    /// The current word has an expansion whose value the text does not show.
    word_expanded: bool,
    /// Some word has one.
    expanded: bool,
    /// Some word has an unquoted brace expansion (`{a,b}`, `{1..3}`).
    braced: bool,
}

impl Words {
    /// Adds the word written as `source`.
    pub(super) fn add(&mut self, walk: &mut Walk, source: &str) {
        self.word_expanded = false;
        // Most words are plain text: nothing to unquote or expand, no parser needed.
        if source.bytes().all(is_plain) {
            self.push_text(source);
            self.end_word();
            return;
        }
        match brush_parser::word::parse(source, &ParserOptions::default()) {
            Ok(pieces) => self.pieces(walk, source, &pieces, false),
            Err(_) => {
                walk.opaque(|| format!("the word `{source}` does not parse"));
                walk.also.extend(super::rough_commands(source));
                self.push_text(source);
            }
        }
        self.end_word();
    }

    /// Adds the command's name: a name the text does not show makes the script opaque.
    pub(super) fn add_name(&mut self, walk: &mut Walk, source: &str) {
        let braced = self.braced;
        self.add(walk, source);
        if self.word_expanded || self.braced != braced {
            walk.opaque(|| format!("the command name `{source}` comes from an expansion"));
        }
    }

    /// Adds text to the current word.
    pub(super) fn push_text(&mut self, text: &str) {
        self.current.push_str(text);
        self.started = true;
    }

    /// Whether any word has an expansion the text does not show.
    pub(super) fn expanded(&self) -> bool {
        self.expanded
    }

    /// The words; an unquoted brace expansion makes the walk see the words with the
    /// braces opened too.
    pub(super) fn finish(mut self) -> Vec<String> {
        self.end_word();
        self.done
    }

    /// Whether a word had an unquoted brace expansion.
    pub(super) fn braced(&self) -> bool {
        self.braced
    }

    fn end_word(&mut self) {
        if self.started {
            self.done.push(std::mem::take(&mut self.current));
            self.started = false;
        }
    }

    fn expansion(&mut self) {
        self.word_expanded = true;
        self.expanded = true;
    }

    /// Adds `pieces` of the word `source` (their indices point into it).
    pub(super) fn pieces(
        &mut self,
        walk: &mut Walk,
        source: &str,
        pieces: &[WordPieceWithSource],
        quoted: bool,
    ) {
        for piece in pieces {
            let written = source.get(piece.start_index..piece.end_index).unwrap_or_default();
            match &piece.piece {
                WordPiece::Text(text) => {
                    if !quoted && is_brace_expansion(text) {
                        self.braced = true;
                    }
                    self.push_text(text);
                }
                WordPiece::SingleQuotedText(text) => self.push_text(text),
                WordPiece::AnsiCQuotedText(text) => self.push_text(&ansi_c(text)),
                WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.started = true;
                    self.pieces(walk, source, inner, true);
                }
                WordPiece::TildeExpansion(_) => self.push_text(written),
                WordPiece::EscapeSequence(escaped) => {
                    let character = escaped.strip_prefix('\\').unwrap_or(escaped);
                    // A backslash before a newline joins the lines.
                    if character != "\n" {
                        self.push_text(character);
                    }
                }
                WordPiece::ParameterExpansion(_) if !quoted && is_ifs(written) => self.end_word(),
                WordPiece::ParameterExpansion(_) => {
                    self.expansion();
                    // `${x:-$(cmd)}` runs `cmd`: what runs inside is not read, so
                    // allow rules step aside and deny rules see the text cut.
                    if written.contains("$(") || written.contains('`') {
                        walk.opaque(|| format!("`{written}` runs a command"));
                        walk.also.extend(super::rough_commands(written));
                    }
                    self.push_text(written);
                }
                WordPiece::CommandSubstitution(script) => {
                    self.expansion();
                    walk.opaque(|| "it has a command substitution".to_owned());
                    walk.nested(script);
                    self.push_text(written);
                }
                WordPiece::BackquotedCommandSubstitution(script) => {
                    self.expansion();
                    walk.opaque(|| "it has a command substitution".to_owned());
                    walk.nested(&unescape_backquoted(script));
                    self.push_text(written);
                }
                WordPiece::ArithmeticExpression(expression) => {
                    self.expansion();
                    walk.opaque(|| "it has an arithmetic expansion".to_owned());
                    walk.nested(&expression.value);
                    self.push_text(written);
                }
            }
        }
    }
}

/// A byte that means itself in any position of a word (`~`, quotes, `$`, `\`, braces
/// and glob characters are not among them).
fn is_plain(byte: u8) -> bool {
    byte.is_ascii_alphanumeric()
        || matches!(
            byte,
            b'-' | b'_' | b'.' | b'/' | b':' | b'=' | b'@' | b'%' | b'+' | b','
        )
}

/// `$IFS`, `${IFS}` and other expansions of `IFS`: unquoted, a blank between words.
fn is_ifs(written: &str) -> bool {
    written == "$IFS" || written.starts_with("${IFS")
}

/// Unquoted text bash would brace-expand: `{a,b}` or `{1..3}`.
fn is_brace_expansion(text: &str) -> bool {
    let Some(open) = text.find('{') else {
        return false;
    };
    text[open..].find('}').is_some_and(|close| {
        text[open..open + close].contains([',']) || text[open..open + close].contains("..")
    })
}

/// `{rm,-rf,/}` as the words it expands to, roughly (`rm -rf /`): for deny rules only.
pub(super) fn open_braces(text: &str) -> String {
    text.replace(['{', '}'], "").replace(',', " ")
}

/// Inside backquotes, `\\`, `` \` `` and `\$` stand for the character.
fn unescape_backquoted(script: &str) -> String {
    let mut out = String::with_capacity(script.len());
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|next| matches!(next, '\\' | '`' | '$')) {
            continue;
        }
        out.push(c);
    }
    out
}

/// The text of `$'…'` (ANSI-C quoting): `\n`, `\t`, `\xHH`, `\NNN`, `\uHHHH`, … applied.
fn ansi_c(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escape) = chars.next() else {
            out.push('\\');
            break;
        };
        let simple = match escape {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(escape),
            _ => None,
        };
        if let Some(simple) = simple {
            out.push(simple);
            continue;
        }
        let (radix, max_digits) = match escape {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 3),
            _ => {
                out.push('\\');
                out.push(escape);
                continue;
            }
        };
        let mut digits = String::new();
        if radix == 8 {
            digits.push(escape);
        }
        while digits.len() < max_digits
            && let Some(&next) = chars.peek()
            && next.is_digit(radix)
        {
            digits.push(next);
            chars.next();
        }
        match u32::from_str_radix(&digits, radix).ok().and_then(char::from_u32) {
            Some(decoded) => out.push(decoded),
            None => {
                out.push('\\');
                out.push(escape);
                out.push_str(if radix == 8 { &digits[1..] } else { &digits });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c_escapes_are_applied() {
        assert_eq!(ansi_c(r"\x72m"), "rm");
        assert_eq!(ansi_c(r"\162\155"), "rm");
        assert_eq!(ansi_c(r"a\tb\n"), "a\tb\n");
        assert_eq!(ansi_c(r"\u0072m"), "rm");
        assert_eq!(ansi_c(r"\q\"), "\\q\\");
    }

    #[test]
    fn brace_expansions_are_recognised() {
        assert!(is_brace_expansion("{rm,-rf}"));
        assert!(is_brace_expansion("x{1..3}"));
        assert!(!is_brace_expansion("{}"));
        assert!(!is_brace_expansion("a{b}"));
    }
}
