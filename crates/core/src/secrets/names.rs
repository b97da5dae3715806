//! Which names (argument keys, environment variables, header and query parameter names)
//! hold secrets. See the [module docs](super) for the rule.

/// Words that make a name secret, also as the end of a longer word (`pgpassword`,
/// `accesstoken`, `oauth`).
pub(super) const SECRET_WORDS: &[&str] = &[
    "token",
    "password",
    "passwords",
    "passwd",
    "passphrase",
    "secret",
    "secrets",
    "authorization",
    "auth",
    "cookie",
    "cookies",
    "credential",
    "credentials",
    "apikey",
    "privatekey",
    "secretkey",
    "accesskey",
    "bearer",
];

/// Adjacent words that make a name secret.
const SECRET_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("private", "key"),
    ("access", "key"),
    ("secret", "key"),
];

/// Words before a final `key` that name an ordinary key, not a credential: `sort_key`,
/// `primary_key`, `public_key` stay readable, while `stripe_key` or `OPENAI_KEY` do not.
const ORDINARY_KEY_KINDS: &[&str] = &[
    "cache",
    "composite",
    "dedup",
    "dict",
    "field",
    "foreign",
    "group",
    "hash",
    "hot",
    "idempotency",
    "index",
    "join",
    "lookup",
    "map",
    "memory",
    "object",
    "order",
    "partition",
    "primary",
    "public",
    "routing",
    "row",
    "search",
    "shard",
    "sort",
    "unique",
];

/// Last words that make a name *about* a secret rather than the secret itself:
/// `token_file`, `api_key_env`, `password_length`, `token_type`.
const ABOUT_WORDS: &[&str] = &[
    "count", "dir", "endpoint", "env", "file", "format", "id", "ids", "kind", "len", "length", "limit",
    "method", "mode", "name", "path", "prefix", "size", "type", "uri", "url", "var",
];

/// Query parameter names that carry credentials although they are not secret names in
/// general (`?key=` is Google's API key, `sig` and `signature` sign Azure and S3 URLs).
const SECRET_QUERY_NAMES: &[&str] = &["key", "sig", "signature"];

/// Whether `name` names a secret: one of its words is (or ends with) a secret word such
/// as `token`, `password` or `secret`, two adjacent words form one (`api key`,
/// `private key`), or its last word is `key` after a word that does not name an
/// ordinary key (`stripe_key` is secret, `sort_key` and a lone `key` are not) — unless
/// its last word says the name is about the secret rather than the secret itself
/// (`token_file`, `api_key_env`, `password_length`, `token_type`).
///
/// Names are split into words at anything but letters and digits and where a lowercase
/// letter meets an uppercase one, so `api_key`, `apiKey`, `X-Api-Key` and
/// `OPENAI_API_KEY` all count, while `key`, `max_tokens`, `keyboard`, `monkey`,
/// `author` and `tokenizer` do not. The full word lists are in the source; judging a
/// name allocates nothing.
///
/// ```
/// use agent_tools_core::secrets::is_secret_name;
///
/// assert!(is_secret_name("OPENAI_API_KEY") && is_secret_name("refreshToken"));
/// assert!(is_secret_name("PGPASSWORD") && is_secret_name("X-Api-Key"));
/// assert!(!is_secret_name("key") && !is_secret_name("max_tokens") && !is_secret_name("sort_key"));
/// assert!(!is_secret_name("api_key_env") && !is_secret_name("token_file"));
/// ```
pub fn is_secret_name(name: &str) -> bool {
    let mut secret = false;
    let (mut before_last, mut last): (Option<&str>, Option<&str>) = (None, None);
    for word in Words::new(name) {
        secret =
            secret || is_secret_word(word) || last.is_some_and(|previous| is_secret_pair(previous, word));
        before_last = last;
        last = Some(word);
    }
    let Some(last) = last else {
        return false;
    };
    if before_last.is_some() && one_of(last, ABOUT_WORDS) {
        return false;
    }
    secret
        || (last.eq_ignore_ascii_case("key")
            && before_last.is_some_and(|kind| !one_of(kind, ORDINARY_KEY_KINDS)))
}

fn is_secret_word(word: &str) -> bool {
    SECRET_WORDS
        .iter()
        .any(|secret| ends_with_ignore_case(word, secret))
}

fn is_secret_pair(first: &str, second: &str) -> bool {
    SECRET_PAIRS
        .iter()
        .any(|(one, two)| first.eq_ignore_ascii_case(one) && second.eq_ignore_ascii_case(two))
}

fn one_of(word: &str, list: &[&str]) -> bool {
    list.iter().any(|listed| word.eq_ignore_ascii_case(listed))
}

/// Whether `name`, a query parameter's name, names a credential: a secret name, or one of
/// the names that carry credentials in URLs (`key`, `sig`, `signature`).
pub(super) fn is_secret_query_name(name: &str) -> bool {
    one_of(name, SECRET_QUERY_NAMES) || is_secret_name(name)
}

fn ends_with_ignore_case(word: &str, suffix: &str) -> bool {
    word.len() >= suffix.len()
        && word.is_char_boundary(word.len() - suffix.len())
        && word[word.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

/// The words of a name: `X-Api-Key` → `X`, `Api`, `Key`; `apiKey` → `api`, `Key`.
/// Borrowed from the name, so judging a name allocates nothing.
struct Words<'a> {
    rest: &'a str,
}

impl<'a> Words<'a> {
    fn new(name: &'a str) -> Self {
        Self { rest: name }
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let start = self.rest.find(char::is_alphanumeric)?;
        let text = &self.rest[start..];
        let mut end = text.len();
        let mut previous_lower = false;
        for (index, c) in text.char_indices() {
            if !c.is_alphanumeric() || (c.is_uppercase() && previous_lower) {
                end = index;
                break;
            }
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
        }
        self.rest = &text[end..];
        Some(&text[..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_separators_and_case_changes() {
        let words = |name| Words::new(name).collect::<Vec<_>>();
        assert_eq!(words("X-Api-Key"), ["X", "Api", "Key"]);
        assert_eq!(words("apiKey"), ["api", "Key"]);
        assert_eq!(words("OPENAI_API_KEY"), ["OPENAI", "API", "KEY"]);
        assert_eq!(words("__a__b1C"), ["a", "b1", "C"]);
        assert!(words("--").is_empty());
    }

    #[test]
    fn secret_names_are_recognized_by_word() {
        for name in [
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
            "Proxy-Authorization",
            "cookie",
            "Set-Cookie",
            "aws_credentials",
            "private_key",
            "secretKey",
            "apikey",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "PGPASSWORD",
            "stripe_key",
            "OPENAI_KEY",
            "ssh-key",
            "oauth",
            "x-amz-security-token",
        ] {
            assert!(is_secret_name(name), "{name} should be secret");
        }
        for name in [
            "key",
            "Key",
            "keys",
            "max_tokens",
            "path",
            "monkey",
            "keyboard",
            "author",
            "spinner",
            "tokenizer",
            "TOKENIZERS_PARALLELISM",
            "sort_key",
            "primary_key",
            "public_key",
            "key_id",
            "key_file",
            "hotkey",
            "api_key_env",
            "token_file",
            "--token-file",
            "password_length",
            "token_type",
            "AWS_ACCESS_KEY_ID",
            "PATH",
            "HOME",
            "",
        ] {
            assert!(!is_secret_name(name), "{name} should not be secret");
        }
    }

    #[test]
    fn query_names_add_the_url_credentials() {
        for name in ["key", "sig", "Signature", "api_key", "access_token"] {
            assert!(is_secret_query_name(name), "{name}");
        }
        for name in ["q", "page", "keys", "limit"] {
            assert!(!is_secret_query_name(name), "{name}");
        }
    }
}
