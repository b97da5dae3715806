//! Redaction and size capping of arguments before they reach an audit log.
//!
//! Keys are split into words (`api_key`, `apiKey`, `X-Api-Key` → `api key`), and a value
//! is redacted when a word is a secret word (`token`, `password`, `secret`, …) or two
//! adjacent words form one (`api key`, `private key`). Matching whole words keeps ordinary
//! arguments such as `key` or `max_tokens` readable.

use serde_json::{Map, Value};

/// What replaces a redacted value.
pub const REDACTED: &str = "[REDACTED]";

const SECRET_WORDS: &[&str] = &[
    "token",
    "password",
    "passwd",
    "passphrase",
    "secret",
    "authorization",
    "auth",
    "cookie",
    "credential",
    "credentials",
    "apikey",
    "bearer",
];

const SECRET_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("private", "key"),
    ("access", "key"),
    ("secret", "key"),
];

/// Longest string value kept, in bytes; longer strings are cut.
const MAX_STRING_BYTES: usize = 1024;

/// Redacts and caps arguments for the audit log.
#[derive(Debug, Clone)]
pub(crate) struct Redactor {
    max_bytes: usize,
}

impl Redactor {
    /// Caps recorded arguments at `max_bytes` of JSON.
    pub(crate) fn new(max_bytes: usize) -> Self {
        Self { max_bytes }
    }

    /// A redacted, capped copy of parsed arguments.
    pub(crate) fn arguments(&self, arguments: &Value) -> Value {
        let redacted = redact_value(arguments);
        // Serializing just to measure is the costly part; skip it when even an
        // overestimate fits.
        if json_len_upper_bound(&redacted) <= self.max_bytes {
            return redacted;
        }
        let text = redacted.to_string();
        if text.len() <= self.max_bytes {
            return redacted;
        }
        let preview = cut(&text, self.max_bytes / 2);
        serde_json::json!({ "truncated": true, "bytes": text.len(), "preview": preview })
    }

    /// Arguments that could not be parsed: kept as capped text, unless they mention a
    /// secret-looking word, since then no structure tells us what to hide.
    pub(crate) fn raw(&self, raw: &str) -> Value {
        let lowered = raw.to_ascii_lowercase();
        let mentions_secret =
            SECRET_WORDS.iter().any(|word| lowered.contains(word)) || lowered.contains("key");
        if mentions_secret {
            return Value::String(format!(
                "{REDACTED} (unparsed arguments mentioning a secret-looking key)"
            ));
        }
        Value::String(cut(raw, self.max_bytes))
    }
}

fn redact_value(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let redacted: Map<String, Value> = map
                .iter()
                .map(|(key, value)| {
                    let value = if is_secret_key(key) {
                        Value::String(REDACTED.to_owned())
                    } else {
                        redact_value(value)
                    };
                    (key.clone(), value)
                })
                .collect();
            Value::Object(redacted)
        }
        Value::Array(items) => Value::Array(items.iter().map(redact_value).collect()),
        Value::String(text) if text.len() > MAX_STRING_BYTES => Value::String(cut(text, MAX_STRING_BYTES)),
        other => other.clone(),
    }
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

/// Whether a key names a secret (see the module docs for the rule).
pub(crate) fn is_secret_key(key: &str) -> bool {
    let words = split_words(key);
    words.iter().any(|word| SECRET_WORDS.contains(&word.as_str()))
        || words
            .windows(2)
            .any(|pair| SECRET_PAIRS.contains(&(pair[0].as_str(), pair[1].as_str())))
}

/// `X-Api-Key` → `["x", "api", "key"]`, `apiKey` → `["api", "key"]`.
fn split_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            previous_lower = false;
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// The first `max_bytes` of `text` (on a character boundary) and how much was cut.
fn cut(text: &str, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text.to_owned();
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…[{} more bytes]", &text[..end], text.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_keys_are_recognized_by_word() {
        for key in [
            "api_key",
            "apiKey",
            "X-Api-Key",
            "token",
            "access_token",
            "refreshToken",
            "password",
            "db_passwd",
            "client_secret",
            "Authorization",
            "cookie",
            "aws_credentials",
            "private_key",
            "secretKey",
            "apikey",
        ] {
            assert!(is_secret_key(key), "{key} should be secret");
        }
        for key in [
            "key",
            "max_tokens",
            "path",
            "monkey",
            "keyboard",
            "author",
            "spinner",
            "tokenizer",
        ] {
            assert!(!is_secret_key(key), "{key} should not be secret");
        }
    }

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
        assert_eq!(redacted["url"], "https://x.test");
        assert_eq!(redacted["headers"]["Authorization"], REDACTED);
        assert_eq!(redacted["headers"]["accept"], "text/html");
        assert_eq!(redacted["auth"], REDACTED);
        assert_eq!(redacted["items"][0]["password"], REDACTED);
    }

    #[test]
    fn large_arguments_are_capped() {
        let redactor = Redactor::new(4096);
        let long = "x".repeat(5000);
        let capped = redactor.arguments(&json!({"content": long}));
        let content = capped["content"].as_str().unwrap();
        assert!(
            content.len() < 1100 && content.ends_with("more bytes]"),
            "{content}"
        );

        let many: Vec<String> = (0..100).map(|i| format!("{i}{}", "y".repeat(100))).collect();
        let capped = redactor.arguments(&json!({"lines": many}));
        assert_eq!(capped["truncated"], true);
        assert!(capped.to_string().len() < 4096);
    }

    #[test]
    fn unparsed_arguments_with_secret_words_are_hidden() {
        let redactor = Redactor::new(64);
        assert!(
            redactor
                .raw(r#"{"api_key": "sk-"#)
                .as_str()
                .unwrap()
                .starts_with(REDACTED)
        );
        assert_eq!(redactor.raw("{oops"), json!("{oops"));
        assert!(
            redactor
                .raw(&"z".repeat(100))
                .as_str()
                .unwrap()
                .ends_with("more bytes]")
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
        assert_eq!(cut("héllo", 2), "h…[5 more bytes]");
    }
}
