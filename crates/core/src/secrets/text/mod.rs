//! Secrets inside free text: found by shape, by the name they are assigned to, or by
//! where they sit in a URL or header, and replaced by [`REDACTED`].
//!
//! One pass of an Aho-Corasick automaton over the text looks for every literal that can
//! start or name a secret (`sk-`, `ghp_`, `://`, `bearer`, `token`, `key`, …). Text
//! without any — almost every ordinary argument — is returned as it is, borrowed,
//! without a regular expression ever running; the regular expressions (compiled once)
//! run only for the kinds of secret the pass saw a trigger for.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, MatchKind};
use regex::Regex;

use super::REDACTED;
use super::names::{SECRET_WORDS, is_secret_name, is_secret_query_name};

/// What a trigger literal hints at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    /// A word of secret names: maybe `name=value` or `name: value`.
    Word,
    /// The start of a token shape or a private key block.
    Shape,
    /// A URL, maybe with a password in it.
    Url,
}

/// Literals that start a token shape (see [`SHAPES`]), matched ignoring ASCII case.
const SHAPE_STARTS: &[&str] = &[
    "-----begin",
    "sk-",
    "sk_",
    "rk_",
    "ghp_",
    "gho_",
    "ghr_",
    "ghs_",
    "ghu_",
    "github_pat_",
    "glpat-",
    "akia",
    "asia",
    "xox",
    "aiza",
    "ya29.",
    "hf_",
    "npm_",
    "eyj",
    ":aa",
];

/// Well-known token shapes, redacted wherever they appear. Each starts with one of
/// [`SHAPE_STARTS`].
const SHAPES: &str = r"(?x)
      -----BEGIN[A-Z0-9\ ]*PRIVATE\ KEY[A-Z\ ]*-----(?s:.*?)(?:-----END[A-Z0-9\ ]*PRIVATE\ KEY[A-Z\ ]*-----|\z)
    | \bsk-[A-Za-z0-9_-]{20,}                       # OpenAI, Anthropic (checked by `looks_like_sk`)
    | \b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}        # Stripe
    | \bgh[oprsu]_[A-Za-z0-9]{30,}                  # GitHub
    | \bgithub_pat_[A-Za-z0-9_]{30,}
    | \bglpat-[A-Za-z0-9_-]{20,}                    # GitLab
    | \b(?:AKIA|ASIA)[A-Z0-9]{16}\b                 # AWS access key ids
    | \bxox[abeoprs]-[A-Za-z0-9-]{10,}              # Slack
    | \bAIza[A-Za-z0-9_-]{35}                       # Google API keys
    | \bya29\.[A-Za-z0-9_-]{20,}                    # Google OAuth access tokens
    | \bhf_[A-Za-z0-9]{30,}                         # Hugging Face
    | \bnpm_[A-Za-z0-9]{36}                         # npm
    | \beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*   # JSON Web Tokens
    | \b[0-9]{8,10}:AA[A-Za-z0-9_-]{33}             # Telegram bot tokens
";

/// The password in a URL's user-info: `scheme://user:PASSWORD@host`.
const URL_PASSWORD: &str = r#"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:"'\\]*:([^\s/?#@"'\\]+)@"#;

/// A bearer credential in prose: `Bearer TOKEN` (see `looks_random`).
const BEARER: &str = r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]+=*)";

/// Authorization schemes kept in front of a redacted header value, so the log still
/// says how a call authenticated.
const SCHEMES: &[&str] = &["basic", "bearer", "digest", "negotiate", "token"];

struct Rules {
    triggers: AhoCorasick,
    kinds: Vec<Trigger>,
    shapes: Regex,
    url_password: Regex,
    bearer: Regex,
}

static RULES: LazyLock<Rules> = LazyLock::new(|| {
    let mut patterns: Vec<&str> = Vec::new();
    let mut kinds = Vec::new();
    let words = SECRET_WORDS.iter().chain(&["key", "sig"]);
    for (pattern, kind) in words
        .map(|word| (*word, Trigger::Word))
        .chain(SHAPE_STARTS.iter().map(|start| (*start, Trigger::Shape)))
        .chain([("://", Trigger::Url)])
    {
        patterns.push(pattern);
        kinds.push(kind);
    }
    let triggers = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostLongest)
        .build(&patterns)
        .expect("the trigger literals form an automaton");
    let compile = |pattern: &str| Regex::new(pattern).expect("the secret patterns are valid");
    Rules {
        triggers,
        kinds,
        shapes: compile(SHAPES),
        url_password: compile(URL_PASSWORD),
        bearer: compile(BEARER),
    }
});

/// `text` with every secret it contains replaced by [`REDACTED`], borrowed when there
/// is none. What counts as a secret is described in the [module docs](super); only
/// the secret is replaced, so `curl -H 'Authorization: Bearer abc…' https://x.test`
/// becomes `curl -H 'Authorization: Bearer [REDACTED]' https://x.test`.
///
/// ```
/// use agent_tools_core::secrets::redact_text;
///
/// let command = "OPENAI_API_KEY=hunter22 curl https://bob:pa55word@x.test/?api_key=abc&q=1";
/// assert_eq!(
///     redact_text(command),
///     "OPENAI_API_KEY=[REDACTED] curl https://bob:[REDACTED]@x.test/?api_key=[REDACTED]&q=1"
/// );
/// assert!(matches!(redact_text("cat docs/token-guide.md"), std::borrow::Cow::Borrowed(_)));
/// ```
pub fn redact_text(text: &str) -> Cow<'_, str> {
    let rules = &*RULES;
    let mut spans = Vec::new();
    let (mut shapes, mut urls, mut bearer) = (false, false, false);
    let mut looked_at = 0;
    for found in rules.triggers.find_iter(text) {
        match rules.kinds[found.pattern().as_usize()] {
            Trigger::Shape => shapes = true,
            Trigger::Url => urls = true,
            Trigger::Word => {
                bearer = bearer || text[found.range()].eq_ignore_ascii_case("bearer");
                if found.start() >= looked_at {
                    looked_at = assignment(text, found.range(), &mut spans);
                }
            }
        }
    }
    if shapes {
        spans.extend(
            rules
                .shapes
                .find_iter(text)
                .filter(|found| !found.as_str().starts_with("sk-") || looks_like_sk(found.as_str()))
                .map(|found| found.range()),
        );
    }
    if urls {
        spans.extend(group_ranges(&rules.url_password, text, |_| true));
    }
    if bearer {
        spans.extend(group_ranges(&rules.bearer, text, looks_random));
    }
    replace(text, spans)
}

/// The ranges of group 1 of `regex`'s matches in `text` that pass `keep`.
fn group_ranges<'t>(
    regex: &'t Regex,
    text: &'t str,
    keep: fn(&str) -> bool,
) -> impl Iterator<Item = Range<usize>> + 't {
    regex
        .captures_iter(text)
        .filter_map(|captures| captures.get(1))
        .filter(move |group| keep(group.as_str()))
        .map(|group| group.range())
}

/// OpenAI and Anthropic keys mix cases and digits after `sk-`; a long hyphenated word
/// (`sk-learn-tutorial-notebooks`) does not.
fn looks_like_sk(token: &str) -> bool {
    let body = &token[3..];
    body.bytes().any(|b| b.is_ascii_uppercase())
        && body.bytes().any(|b| b.is_ascii_lowercase())
        && body.bytes().any(|b| b.is_ascii_digit())
}

/// Whether a word after `Bearer` in prose is a credential rather than English
/// ("bearer authentication"): it has a digit, or is too long for a word.
fn looks_random(token: &str) -> bool {
    token.len() >= 8 && (token.bytes().any(|b| b.is_ascii_digit()) || token.len() >= 24)
}

/// Characters of a name in `name=value` (`--db.password`, `X-Api-Key`).
fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.')
}

/// Looks at the name around a secret word found at `word`: when it is a secret name
/// assigned a value (`name=value`, `name: value`, `"name": "value"`, `--name value`,
/// `?name=value`), adds the value's range to `spans`. Returns where the name (or its
/// value) ends: words inside either are not looked at again, which keeps the pass
/// linear however many secret words a line holds.
fn assignment(text: &str, word: Range<usize>, spans: &mut Vec<Range<usize>>) -> usize {
    let bytes = text.as_bytes();
    let start = bytes[..word.start]
        .iter()
        .rposition(|&b| !is_name_byte(b))
        .map_or(0, |index| index + 1);
    let end = bytes[word.end..]
        .iter()
        .position(|&b| !is_name_byte(b))
        .map_or(bytes.len(), |index| word.end + index);
    // `scheme://user:password@host`: the URL rule redacts the password, not the rest.
    if bytes[..start].ends_with(b"//") {
        return end;
    }
    let name = &text[start..end];
    let in_query = start > 0 && matches!(bytes[start - 1], b'?' | b'&');
    let secret = if in_query {
        is_secret_query_name(name)
    } else {
        is_secret_name(name)
    };
    match assigned_value(bytes, end, in_query, name.starts_with('-')).filter(|_| secret) {
        Some(value) => {
            let value_end = value.end;
            spans.push(value);
            value_end
        }
        None => end,
    }
}

/// The value assigned to the name that ends at `name_end`, if one is.
fn assigned_value(bytes: &[u8], name_end: usize, in_query: bool, is_flag: bool) -> Option<Range<usize>> {
    // The closing quote of a quoted key: `"api_key": …`, `\"api_key\": …`.
    let quoted_name = after_quote(bytes, name_end);
    let after_name = quoted_name.unwrap_or(name_end);
    let at = skip_blanks(bytes, after_name);
    let range = match bytes.get(at)? {
        b'=' => value(bytes, skip_blanks(bytes, at + 1), in_query, false),
        // `name: value` is a header or YAML line; `::` is a path and `://` a URL.
        b':' if !matches!(bytes.get(at + 1), Some(b':' | b'/')) => {
            value(bytes, skip_blanks(bytes, at + 1), false, true)
        }
        b',' if quoted_name.is_some() => paired_value(bytes, at + 1)?,
        // `--password hunter2`, but not `--token --verbose`.
        byte if is_flag && at > after_name && !matches!(byte, b'-' | b'\r' | b'\n') => {
            value(bytes, at, false, false)
        }
        _ => return None,
    };
    (!range.is_empty()).then_some(range)
}

/// After `"OPENAI_API_KEY",` in JSON text: the value of a `{"name": …, "value": …}`
/// pair, when `"value":` comes next.
fn paired_value(bytes: &[u8], at: usize) -> Option<Range<usize>> {
    let at = after_quote(bytes, skip_blanks(bytes, at))?;
    let key = bytes.get(at..at + 5)?;
    if !key.eq_ignore_ascii_case(b"value") {
        return None;
    }
    let at = skip_blanks(bytes, after_quote(bytes, at + 5)?);
    (bytes.get(at) == Some(&b':')).then(|| value(bytes, skip_blanks(bytes, at + 1), false, false))
}

/// Where a quote at `at` (`"`, `'`, or `\"` inside JSON text) ends, if one is there.
fn after_quote(bytes: &[u8], at: usize) -> Option<usize> {
    match (bytes.get(at), bytes.get(at + 1)) {
        (Some(b'\\'), Some(b'"' | b'\'')) => Some(at + 2),
        (Some(b'"' | b'\''), _) => Some(at + 1),
        _ => None,
    }
}

fn skip_blanks(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    at
}

/// The range of a value starting at `start`: up to its closing quote when quoted, else
/// to the end of the line for a header-style value (keeping an authorization scheme
/// such as `Bearer`), else to the next separator.
fn value(bytes: &[u8], start: usize, in_query: bool, header: bool) -> Range<usize> {
    if let Some(quoted) = quoted(bytes, start) {
        return quoted;
    }
    let stops: &[u8] = match (in_query, header) {
        (true, _) => b"&#\"'\\ \t\r\n",
        (false, true) => b"\"'\\\r\n",
        (false, false) => b"\"'\\&,;)}]> \t\r\n",
    };
    let mut end = bytes[start..]
        .iter()
        .position(|b| stops.contains(b))
        .map_or(bytes.len(), |index| start + index);
    while end > start && matches!(bytes[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    let start = if header {
        after_scheme(bytes, start, end)
    } else {
        start
    };
    start..end
}

/// The inside of a quoted value starting at `start` (`"…"`, `'…'`, or `\"…\"` inside
/// JSON text), to the end of the text when it is never closed.
fn quoted(bytes: &[u8], start: usize) -> Option<Range<usize>> {
    let (quote, escaped, inside) = match (bytes.get(start), bytes.get(start + 1)) {
        (Some(b'\\'), Some(&quote @ (b'"' | b'\''))) => (quote, true, start + 2),
        (Some(&quote @ (b'"' | b'\'')), _) => (quote, false, start + 1),
        _ => return None,
    };
    let mut at = inside;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' if escaped && bytes.get(at + 1) == Some(&quote) => return Some(inside..at),
            b'\\' => at += 2,
            byte if byte == quote && !escaped => return Some(inside..at),
            _ => at += 1,
        }
    }
    Some(inside..bytes.len())
}

/// Where the credentials start in a header value `start..end`: after a leading scheme
/// such as `Bearer ` when one is there and something follows it.
fn after_scheme(bytes: &[u8], start: usize, end: usize) -> usize {
    let value = &bytes[start..end];
    let Some(space) = value.iter().position(|b| matches!(b, b' ' | b'\t')) else {
        return start;
    };
    let scheme = &value[..space];
    if SCHEMES
        .iter()
        .any(|known| scheme.eq_ignore_ascii_case(known.as_bytes()))
    {
        skip_blanks(bytes, start + space)
    } else {
        start
    }
}

/// `text` with the (possibly overlapping) `spans` replaced by [`REDACTED`].
fn replace(text: &str, mut spans: Vec<Range<usize>>) -> Cow<'_, str> {
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    spans.sort_by_key(|span| span.start);
    let mut redacted = String::with_capacity(text.len());
    let mut copied = 0;
    for span in spans {
        if span.end <= copied {
            continue;
        }
        if span.start >= copied {
            redacted.push_str(&text[copied..span.start]);
            redacted.push_str(REDACTED);
        }
        copied = span.end;
    }
    redacted.push_str(&text[copied..]);
    Cow::Owned(redacted)
}

#[cfg(test)]
mod tests;
