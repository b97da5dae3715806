//! Redaction and size capping of what reaches an audit log, by the project's one rule for
//! secrets ([`crate::secrets`]).
//!
//! - A value under a secret-looking key (`api_key`, `apiKey`, `Authorization`) is
//!   replaced whole, whatever it holds.
//! - In an `{"name": …, "value": …}` object (exec's `env`, header lists) whose name is
//!   secret-looking, the value is replaced.
//! - Every other string is searched for secrets inside it (token shapes, URL
//!   credentials, `Authorization:` headers, `NAME=value` assignments), and only they are
//!   replaced, so a command stays readable.
//! - The error text is searched the same way, and loses the values the arguments had
//!   under a secret key (the first 32): a tool that quotes its argument back
//!   (`invalid key hunter2`) does not leak it through the error.
//!
//! Long strings are searched before they are cut (a window past the cut, so a secret
//! that straddles it is not left half shown).

use serde_json::{Map, Value};

use crate::secrets::{REDACTED, is_secret_name, redact_text};

/// Longest string value kept, in bytes; longer strings are cut.
const MAX_STRING_BYTES: usize = 1024;

/// How far past a cut a string is searched for secrets: more than any token shape is
/// long, so a secret that starts before the cut is recognized whole.
const SEARCH_PAST_CUT: usize = 4096;

/// Shortest value remembered as a known secret for the error text: shorter strings
/// would redact ordinary words.
const MIN_KNOWN_SECRET: usize = 4;

/// Most values remembered as known secrets: each costs a search of the error text, and
/// arguments can hold any number of them.
const MAX_KNOWN_SECRETS: usize = 32;

/// Redacts and caps arguments for the audit log.
#[derive(Debug, Clone)]
pub(crate) struct Redactor {
    max_bytes: usize,
}

/// Arguments ready for the log, and the secrets taken out of them by key (to take out
/// of the error text too).
#[derive(Debug, Default)]
pub(crate) struct Redacted {
    pub(crate) arguments: Value,
    pub(crate) secrets: Vec<String>,
}

impl Redactor {
    /// Caps recorded arguments at `max_bytes` of JSON.
    pub(crate) fn new(max_bytes: usize) -> Self {
        Self { max_bytes }
    }

    /// This redactor with its cap raised to `bytes`, for a tool that keeps more of its
    /// arguments ([`ToolMeta::audit_argument_bytes`](crate::tool::ToolMeta::audit_argument_bytes)).
    pub(crate) fn at_least(&self, bytes: Option<usize>) -> Self {
        Self {
            max_bytes: self.max_bytes.max(bytes.unwrap_or(0)),
        }
    }

    /// A redacted, capped copy of parsed arguments.
    pub(crate) fn arguments(&self, arguments: &Value) -> Redacted {
        let mut secrets = Vec::new();
        let redacted = redact_value(arguments, &mut secrets);
        Redacted {
            arguments: self.capped(redacted),
            secrets,
        }
    }

    fn capped(&self, redacted: Value) -> Value {
        // Serializing just to measure is the costly part; skip it when even an
        // overestimate fits.
        if json_len_upper_bound(&redacted) <= self.max_bytes {
            return redacted;
        }
        let text = redacted.to_string();
        if text.len() <= self.max_bytes {
            return redacted;
        }
        let preview = cut(&text, self.max_bytes / 2, text.len());
        serde_json::json!({ "truncated": true, "bytes": text.len(), "preview": preview })
    }

    /// Arguments that could not be parsed: kept as capped text with the secrets inside it
    /// redacted.
    pub(crate) fn raw(&self, raw: &str) -> Value {
        Value::String(redacted_string(raw, self.max_bytes))
    }

    /// A result's text for a span: capped as arguments are, secrets inside it redacted,
    /// and every `known` secret replaced.
    pub(crate) fn result(&self, text: &str, known: &[String]) -> String {
        replace_known(redacted_string(text, self.max_bytes), known)
    }

    /// The error text for the log: secrets inside it redacted, and every `known` secret
    /// (taken from the arguments) replaced wherever it appears.
    pub(crate) fn error(&self, text: &str, known: &[String]) -> String {
        replace_known(redact_text(text).into_owned(), known)
    }
}

/// `text` with every `known` secret replaced.
fn replace_known(mut text: String, known: &[String]) -> String {
    for secret in known {
        if text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), REDACTED);
        }
    }
    text
}

fn redact_value(value: &Value, secrets: &mut Vec<String>) -> Value {
    match value {
        Value::Object(map) => redact_object(map, secrets),
        Value::Array(items) => Value::Array(items.iter().map(|item| redact_value(item, secrets)).collect()),
        Value::String(text) => Value::String(redacted_string(text, MAX_STRING_BYTES)),
        other => other.clone(),
    }
}

fn redact_object(map: &Map<String, Value>, secrets: &mut Vec<String>) -> Value {
    let secret_pair = names_a_secret(map);
    let redacted: Map<String, Value> = map
        .iter()
        .map(|(key, value)| {
            let hidden = is_secret_name(key) || (secret_pair && key.eq_ignore_ascii_case("value"));
            let value = if hidden {
                remember(value, secrets);
                Value::String(REDACTED.to_owned())
            } else {
                redact_value(value, secrets)
            };
            (key.clone(), value)
        })
        .collect();
    Value::Object(redacted)
}

/// Whether `map` is a `{name, value}` pair (`{"name": "OPENAI_API_KEY", "value": …}`,
/// also with `key` for `name`) whose name is secret-looking.
fn names_a_secret(map: &Map<String, Value>) -> bool {
    let mut has_value = false;
    let mut secret_name = false;
    for (key, value) in map {
        if key.eq_ignore_ascii_case("value") {
            has_value = true;
        } else if key.eq_ignore_ascii_case("name") || key.eq_ignore_ascii_case("key") {
            secret_name = secret_name || value.as_str().is_some_and(is_secret_name);
        }
    }
    has_value && secret_name
}

/// Keeps the strings of a redacted value, to take them out of the error text as well.
fn remember(value: &Value, secrets: &mut Vec<String>) {
    match value {
        Value::String(text) if text.len() >= MIN_KNOWN_SECRET && secrets.len() < MAX_KNOWN_SECRETS => {
            secrets.push(text.clone());
        }
        Value::Array(items) => items.iter().for_each(|item| remember(item, secrets)),
        Value::Object(map) => map.values().for_each(|item| remember(item, secrets)),
        _ => {}
    }
}

/// `text` with its secrets redacted, cut to `max_bytes`.
fn redacted_string(text: &str, max_bytes: usize) -> String {
    let searched = prefix(text, max_bytes.saturating_add(SEARCH_PAST_CUT));
    let redacted = redact_text(searched);
    if text.len() <= max_bytes {
        return redacted.into_owned();
    }
    cut(&redacted, max_bytes, text.len())
}

/// The longest prefix of `text` of at most `max_bytes`, on a character boundary.
fn prefix(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// At least the length of `value` serialized as compact JSON (strings count every byte as
/// if escaped twice over, numbers as their longest form).
fn json_len_upper_bound(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 24,
        Value::String(text) => text.len() * 6 + 2,
        Value::Array(items) => {
            2 + items
                .iter()
                .map(|item| json_len_upper_bound(item) + 1)
                .sum::<usize>()
        }
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(key, value)| key.len() * 6 + 4 + json_len_upper_bound(value))
                .sum::<usize>()
        }
    }
}

/// The first `max_bytes` of `text` (on a character boundary) and how much of the
/// original `total` bytes was left out.
fn cut(text: &str, max_bytes: usize, total: usize) -> String {
    let kept = prefix(text, max_bytes);
    format!("{kept}…[{} more bytes]", total.saturating_sub(kept.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_secrets_are_redacted() {
        let redactor = Redactor::new(4096);
        let args = json!({
            "url": "https://x.test",
            "headers": {"Authorization": "Bearer abc", "accept": "text/html"},
            "auth": [{"api_key": "sk-1"}],
            "items": [{"password": {"nested": true}}],
        });
        let redacted = redactor.arguments(&args);
        let arguments = &redacted.arguments;
        assert_eq!(arguments["url"], "https://x.test");
        assert_eq!(arguments["headers"]["Authorization"], REDACTED);
        assert_eq!(arguments["headers"]["accept"], "text/html");
        assert_eq!(arguments["auth"], REDACTED);
        assert_eq!(arguments["items"][0]["password"], REDACTED);
        assert_eq!(redacted.secrets, ["Bearer abc", "sk-1"]);
    }

    #[test]
    fn name_value_pairs_with_secret_names_lose_their_value() {
        let redactor = Redactor::new(4096);
        let args = json!({"env": [
            {"name": "OPENAI_API_KEY", "value": "hunter22"},
            {"name": "RUST_LOG", "value": "debug"},
            {"Key": "db_password", "Value": 12345},
        ]});
        let redacted = redactor.arguments(&args);
        assert_eq!(
            redacted.arguments,
            json!({"env": [
                {"name": "OPENAI_API_KEY", "value": REDACTED},
                {"name": "RUST_LOG", "value": "debug"},
                {"Key": "db_password", "Value": REDACTED},
            ]})
        );
        assert_eq!(redacted.secrets, ["hunter22"]);
    }

    #[test]
    fn known_secrets_leave_the_error_text() {
        let redactor = Redactor::new(4096);
        let known = vec!["hunter22".to_owned()];
        assert_eq!(
            redactor.error("login failed for hunter22 (token=abc)", &known),
            "login failed for [REDACTED] (token=[REDACTED])"
        );
    }

    #[test]
    fn known_secrets_are_bounded() {
        let many: Vec<String> = (0..10_000).map(|i| format!("secret-{i}")).collect();
        let redacted = Redactor::new(4096).arguments(&json!({ "passwords": many }));
        assert_eq!(redacted.secrets.len(), MAX_KNOWN_SECRETS);
    }

    #[test]
    fn large_arguments_are_capped() {
        let redactor = Redactor::new(4096);
        let long = "x".repeat(5000);
        let capped = redactor.arguments(&json!({"content": long})).arguments;
        let content = capped["content"].as_str().unwrap();
        assert!(
            content.len() < 1100 && content.ends_with("[3976 more bytes]"),
            "{content}"
        );

        let many: Vec<String> = (0..100).map(|i| format!("{i}{}", "y".repeat(100))).collect();
        let capped = redactor.arguments(&json!({"lines": many})).arguments;
        assert_eq!(capped["truncated"], true);
        assert!(capped.to_string().len() < 4096);
    }

    #[test]
    fn a_secret_across_the_cut_is_redacted_whole() {
        let key = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s";
        let text = format!("{} {key} {}", "x".repeat(MAX_STRING_BYTES - 20), "y".repeat(100));
        let redactor = Redactor::new(1 << 20);
        let capped = redactor.arguments(&json!({ "content": text })).arguments;
        let content = capped["content"].as_str().unwrap();
        assert!(!content.contains("ghp_R4nd0"), "{content}");
        assert!(content.contains("[REDACTED]"), "{content}");
    }

    #[test]
    fn unparsed_arguments_keep_all_but_their_secrets() {
        let redactor = Redactor::new(64);
        assert_eq!(
            redactor.raw(r#"{"api_key": "sk-"#),
            json!(r#"{"api_key": "[REDACTED]"#)
        );
        assert_eq!(redactor.raw("{oops"), json!("{oops"));
        assert!(
            redactor
                .raw(&"z".repeat(100))
                .as_str()
                .unwrap()
                .ends_with("[36 more bytes]")
        );
    }

    #[test]
    fn the_length_bound_is_never_below_the_real_length() {
        for value in [
            json!(null),
            json!(-1.2345678901234567e-300),
            json!(u64::MAX),
            json!("quote \" and \\ and \u{1} and é"),
            json!({"a": [1, true, null, {"b\n": "c"}], "": ""}),
        ] {
            assert!(json_len_upper_bound(&value) >= value.to_string().len(), "{value}");
        }
    }

    #[test]
    fn cutting_respects_character_boundaries() {
        assert_eq!(cut("héllo", 2, 6), "h…[5 more bytes]");
    }
}
