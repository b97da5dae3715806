//! Reading a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9728 §5.1): its
//! `resource_metadata`, `scope` and `error` parameters.

use std::collections::HashMap;

/// The parameters of the `Bearer` challenge in a `WWW-Authenticate` value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    params: HashMap<String, String>,
}

impl Challenge {
    /// The `Bearer` challenge of `header`; empty when there is none.
    pub(crate) fn parse(header: &str) -> Self {
        let mut rest = header.trim();
        // Other schemes may come first (`DPoP …, Bearer …`); each round takes one.
        loop {
            let (scheme, after) = split_token(rest);
            if scheme.is_empty() {
                return Self::default();
            }
            if scheme.eq_ignore_ascii_case("bearer") {
                return Self::from_params(after);
            }
            rest = skip_params(after);
        }
    }

    fn from_params(text: &str) -> Self {
        let mut challenge = Self::default();
        let mut rest = text.trim_start();
        while let Some((name, value, after)) = param(rest) {
            challenge.params.entry(name.to_ascii_lowercase()).or_insert(value);
            rest = after.trim_start().trim_start_matches(',').trim_start();
        }
        challenge
    }

    /// The protected resource metadata URL, when the server named one.
    pub(crate) fn resource_metadata(&self) -> Option<&str> {
        self.params.get("resource_metadata").map(String::as_str)
    }

    /// The scopes the server asks for, when it named any.
    pub(crate) fn scopes(&self) -> Option<Vec<String>> {
        let scope = self.params.get("scope")?;
        let scopes: Vec<String> = scope.split_whitespace().map(str::to_owned).collect();
        (!scopes.is_empty()).then_some(scopes)
    }

    /// The error code (`invalid_token`, `insufficient_scope`).
    #[cfg(test)]
    fn error(&self) -> Option<&str> {
        self.params.get("error").map(String::as_str)
    }
}

/// The token at the start of `text`, and what follows it.
fn split_token(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    let end = text
        .find(|c: char| c.is_ascii_whitespace() || c == ',')
        .unwrap_or(text.len());
    (&text[..end], &text[end..])
}

/// `text` after the parameters of one challenge: up to the next scheme (a token not
/// followed by `=`), or the end.
fn skip_params(mut text: &str) -> &str {
    loop {
        text = text.trim_start().trim_start_matches(',').trim_start();
        match param(text) {
            Some((_, _, after)) => text = after,
            None => return text,
        }
    }
}

/// One `name=value` or `name="quoted value"` at the start of `text`.
fn param(text: &str) -> Option<(String, String, &str)> {
    let (name, after) = text.split_once('=')?;
    let name = name.trim();
    if name.is_empty() || name.contains(|c: char| c.is_ascii_whitespace() || c == ',' || c == '"') {
        return None;
    }
    let after = after.trim_start();
    if let Some(quoted) = after.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((at, c)) = chars.next() {
            match c {
                '\\' => value.extend(chars.next().map(|(_, c)| c)),
                '"' => return Some((name.to_owned(), value, &quoted[at + 1..])),
                c => value.push(c),
            }
        }
        return None;
    }
    let end = after
        .find(|c: char| c == ',' || c.is_ascii_whitespace())
        .unwrap_or(after.len());
    Some((name.to_owned(), after[..end].to_owned(), &after[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parameters_are_read_quoted_or_not() {
        let challenge = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp", error_description="a \"quoted\", text""#,
        );
        assert_eq!(challenge.error(), Some("insufficient_scope"));
        assert_eq!(
            challenge.scopes(),
            Some(vec!["mcp:basic".to_owned(), "mcp:write".to_owned()])
        );
        assert_eq!(
            challenge.resource_metadata(),
            Some("http://x/.well-known/oauth-protected-resource/mcp")
        );
        let bare = Challenge::parse("Bearer realm=example, scope=read");
        assert_eq!(bare.scopes(), Some(vec!["read".to_owned()]));
    }

    #[test]
    fn other_schemes_are_skipped_and_their_parameters_ignored() {
        let challenge = Challenge::parse(r#"DPoP algs="ES256", scope="dpop-only", Bearer scope="mine""#);
        assert_eq!(challenge.scopes(), Some(vec!["mine".to_owned()]));
        assert_eq!(Challenge::parse("Basic realm=x").scopes(), None);
        assert_eq!(Challenge::parse("").resource_metadata(), None);
        assert_eq!(Challenge::parse("Bearer").error(), None);
    }
}
