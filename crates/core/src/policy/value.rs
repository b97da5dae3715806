//! The forms of an argument value a rule is checked against, so that rewriting a value
//! does not slip it past a rule.
//!
//! A rule's glob sees the value as the model sent it, and also:
//!
//! - **as a path, normalized**: `.` and `..` segments resolved, repeated `/` collapsed, a
//!   leading `./` dropped — so `src/../.env` is `.env` to a rule, and `./.env` too;
//! - **as shell commands**: the value cut at `;`, `&`, `|`, newlines, backticks,
//!   parentheses (`$(…)`, `<(…)`) and redirections `<` `>` — so `git status && rm -rf ~`
//!   is also `git status` and `rm -rf ~`.
//!
//! A value shaped like a URL (`scheme://` and no whitespace) is not normalized as a path
//! (that would collapse its `//`), but it is cut like any other value: a value is a URL
//! only to the tool that takes it as one, and a tool that runs it as a command would run
//! what follows a `;`. A tool that takes a URL declares the argument's kind, and rules
//! over it see the parsed URL instead ([`seen`](super::seen)).
//!
//! A `deny` or `ask` rule applies when **any** form matches; an `allow` rule only when
//! **every** form does. Rewriting a value can therefore only make a call ask or be
//! denied more, never less. What this does not do: quoting is not understood (a quoted
//! `;` cuts too, which makes such a command ask rather than run), and a command can reach
//! the same effect in ways no glob over its text sees (`sh -c "$(printf …)"`, a script
//! written first and run later). Rules over commands say what is routine; the shell
//! sandbox, not a rule, is what confines a command.

use std::borrow::Cow;

use serde_json::Value;

/// The forms of one value; see the [module docs](self). Computed once per call and
/// argument, without allocating for a plain string.
pub(crate) struct ValueForms<'a> {
    raw: Cow<'a, str>,
    normalized: Option<String>,
    /// Whether `raw` is also cut into commands.
    cut: bool,
}

impl<'a> ValueForms<'a> {
    /// The forms of `value`: a string is itself; other JSON values their JSON text.
    pub(crate) fn of(value: &'a Value) -> Self {
        let raw: Cow<'a, str> = match value {
            Value::String(text) => Cow::Borrowed(text),
            other => Cow::Owned(other.to_string()),
        };
        Self::of_raw(raw)
    }

    /// The forms of a piece of text (a path named inside a patch).
    pub(crate) fn of_text(text: impl Into<Cow<'a, str>>) -> Self {
        Self::of_raw(text.into())
    }

    fn of_raw(raw: Cow<'a, str>) -> Self {
        // One pass over the bytes finds what the other forms need. The separators are
        // ASCII: no byte of a longer character is one.
        let (mut cut, mut slash) = (false, false);
        for byte in raw.bytes() {
            cut |= is_command_separator(char::from(byte));
            slash |= byte == b'/';
        }
        // A URL has a slash (`://`), so only then can the text be one.
        if slash && is_url(&raw) {
            return Self {
                raw,
                normalized: None,
                cut,
            };
        }
        let normalized = (slash || raw.starts_with('.'))
            .then(|| normalized_path(&raw))
            .flatten();
        Self { raw, normalized, cut }
    }

    /// The value as the model sent it.
    pub(crate) fn raw(&self) -> &str {
        &self.raw
    }

    /// Every form, as an explanation lists them.
    pub(crate) fn list(&self) -> Vec<String> {
        let mut forms = vec![format!("value: {}", self.raw)];
        if let Some(normalized) = &self.normalized {
            forms.push(format!("as a path: {normalized}"));
        }
        if self.cut {
            forms.extend(cut_commands(&self.raw).map(|part| format!("part: {part}")));
        }
        forms
    }

    /// Whether a `deny` or `ask` rule's glob applies: any form matches.
    #[inline(always)]
    pub(crate) fn any(&self, matches: impl Fn(&str) -> bool) -> bool {
        matches(&self.raw)
            || self.normalized.as_deref().is_some_and(&matches)
            || (self.cut && cut_commands(&self.raw).any(matches))
    }

    /// Whether an `allow` rule's glob applies: every form matches.
    #[inline(always)]
    pub(crate) fn all(&self, matches: impl Fn(&str) -> bool) -> bool {
        matches(&self.raw)
            && self.normalized.as_deref().is_none_or(&matches)
            && (!self.cut || cut_commands(&self.raw).all(matches))
    }
}

/// A character at which a value is cut into shell commands.
fn is_command_separator(c: char) -> bool {
    matches!(c, ';' | '&' | '|' | '\n' | '\r' | '`' | '(' | ')' | '<' | '>')
}

/// `scheme://…` without whitespace.
fn is_url(text: &str) -> bool {
    let Some(colon) = text.find(':') else {
        return false;
    };
    let scheme = &text[..colon];
    if !text[colon..].starts_with("://") {
        return false;
    }
    let mut scheme_chars = scheme.chars();
    scheme_chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic())
        && scheme_chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !text.contains(char::is_whitespace)
}

/// The text as a normalized path, when that differs from the text.
fn normalized_path(text: &str) -> Option<String> {
    if !text.contains('/') && !text.starts_with('.') {
        return None;
    }
    let absolute = text.starts_with('/');
    let mut kept: Vec<&str> = Vec::new();
    for segment in text.split('/') {
        match segment {
            "" | "." => {}
            ".." if kept.last().is_some_and(|last| *last != "..") => {
                kept.pop();
            }
            // Above the root is the root.
            ".." if absolute => {}
            segment => kept.push(segment),
        }
    }
    let mut normalized = kept.join("/");
    if absolute {
        normalized.insert(0, '/');
    }
    (normalized != text).then_some(normalized)
}

/// The shell commands in `text`, roughly: its parts between separators, trimmed, empty
/// ones left out. For values no parser reads (plain values, scripts that do not parse).
pub(super) fn cut_commands(text: &str) -> impl Iterator<Item = &str> {
    text.split(is_command_separator)
        .map(|part| part.trim().trim_matches('$').trim())
        .filter(|part| !part.is_empty())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every form, in the order `any` tries them (a glob that matches none sees all).
    fn forms(value: Value) -> Vec<String> {
        let seen = std::cell::RefCell::new(Vec::new());
        ValueForms::of(&value).any(|form| {
            seen.borrow_mut().push(form.to_owned());
            false
        });
        seen.into_inner()
    }

    #[test]
    fn paths_are_also_seen_normalized() {
        assert_eq!(forms(json!("src/../.env")), ["src/../.env", ".env"]);
        assert_eq!(forms(json!("./.env")), ["./.env", ".env"]);
        assert_eq!(forms(json!("a//b/./c")), ["a//b/./c", "a/b/c"]);
        assert_eq!(forms(json!("/etc/../../root")), ["/etc/../../root", "/root"]);
        assert_eq!(forms(json!("../../x")), ["../../x"]);
        assert_eq!(forms(json!("src/main.rs")), ["src/main.rs"]);
    }

    #[test]
    fn commands_are_also_seen_one_by_one() {
        assert_eq!(
            forms(json!("git status && rm -rf ~")),
            ["git status && rm -rf ~", "git status", "rm -rf ~"]
        );
        assert_eq!(forms(json!("echo $(id)")), ["echo $(id)", "echo", "id"]);
        assert_eq!(forms(json!("ls `pwd`")), ["ls `pwd`", "ls", "pwd"]);
        assert_eq!(forms(json!("a\nb")), ["a\nb", "a", "b"]);
        assert_eq!(forms(json!("cat x > y")), ["cat x > y", "cat x", "y"]);
        assert_eq!(forms(json!("git status")), ["git status"]);
    }

    #[test]
    fn url_shaped_values_are_not_normalized_but_are_cut() {
        assert_eq!(
            forms(json!("https://x.test/a/../b?c=1&d=2")),
            [
                "https://x.test/a/../b?c=1&d=2",
                "https://x.test/a/../b?c=1",
                "d=2"
            ]
        );
        // The URL shape must not switch cutting off (it once let `ls*` allow anything).
        assert_eq!(forms(json!("http://x/;ls")), ["http://x/;ls", "http://x/", "ls"]);
        // With whitespace it is no URL: a command that starts with one is still cut.
        assert_eq!(
            forms(json!("https://x.test/ && rm -rf ~")),
            [
                "https://x.test/ && rm -rf ~",
                "https:/x.test/ && rm -rf ~",
                "https://x.test/",
                "rm -rf ~"
            ]
        );
    }

    #[test]
    fn other_values_are_their_json_text() {
        assert_eq!(forms(json!(3)), ["3"]);
        assert_eq!(forms(json!(true)), ["true"]);
    }

    #[test]
    fn deny_takes_any_form_and_allow_needs_every_form() {
        let value = json!("git status; rm -rf ~");
        let value = ValueForms::of(&value);
        assert!(value.any(|form| form.starts_with("rm ")));
        assert!(!value.all(|form| form.starts_with("git status")));
    }
}
