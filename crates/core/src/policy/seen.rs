//! An argument's value as rules see it, by the argument's [`ArgumentKind`]: parsed once
//! per call and argument, for every rule about it.
//!
//! | kind | deny and ask rules see | allow rules see |
//! |---|---|---|
//! | shell command | every simple command anywhere, and the text ([`shell`](super::shell)) | each simple command of a script they can see through |
//! | workspace path | the path as written, normalized, and where it lands ([`path`](super::path)) | where it lands |
//! | URL | the URL as written and as the fetcher parses it | the URL as parsed |
//! | environment | each variable's name | each name (an allow rule on another argument does not cover them) |
//! | patch | every path it names (added, updated, deleted, moved to), each as a workspace path; a patch that does not parse, anything | every path it names, each where it lands; a patch that does not parse, nothing |
//! | none (plain) | the text, as a path normalized, and cut at shell operators ([`value`](super::value)) | every one of those forms |

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;

use super::path::{Landing, resolve};
use super::rule::Rule;
use super::shell::Script;
use super::value::ValueForms;
use crate::patch::{self, ParseError};
use crate::spec::ArgumentKind;

/// One argument's value, as rules see it.
pub(crate) enum Seen<'a> {
    Plain(ValueForms<'a>),
    Command(Script<'a>),
    Path(PathSeen<'a>),
    /// The paths a patch names, or why it does not parse.
    Patch(Result<Vec<PathSeen<'a>>, ParseError>),
    Url {
        written: &'a str,
        parsed: Option<String>,
    },
    Environment(Vec<&'a str>),
}

impl<'a> Seen<'a> {
    /// `value` of an argument of `kind` (none: plain), paths resolved against `root`.
    pub(crate) fn of(value: &'a Value, kind: Option<ArgumentKind>, root: Option<&'a Path>) -> Self {
        match (kind, value) {
            (Some(ArgumentKind::ShellCommand), Value::String(text)) => Seen::Command(Script::parse(text)),
            (Some(ArgumentKind::WorkspacePath), Value::String(text)) => {
                Seen::Path(PathSeen::of(Cow::Borrowed(text), root))
            }
            (Some(ArgumentKind::Patch), Value::String(text)) => {
                Seen::Patch(patch::parse(text).map(|patch| {
                    patch
                        .paths()
                        .map(|path| PathSeen::of(Cow::Owned(path.to_owned()), root))
                        .collect()
                }))
            }
            (Some(ArgumentKind::Url), Value::String(text)) => Seen::Url {
                written: text,
                parsed: url::Url::parse(text).ok().map(String::from),
            },
            (Some(ArgumentKind::Environment), Value::Object(variables)) => {
                Seen::Environment(variables.keys().map(String::as_str).collect())
            }
            // `[{"name": "A", "value": "1"}, …]`, as `exec` takes them.
            (Some(ArgumentKind::Environment), Value::Array(items)) => Seen::Environment(
                items
                    .iter()
                    .map(|item| item.get("name").and_then(Value::as_str).unwrap_or(""))
                    .collect(),
            ),
            _ => Seen::Plain(ValueForms::of(value)),
        }
    }

    /// Whether a deny or ask `rule` applies.
    // Inlined, as the matching it wraps is: a call under 50 rules measured 1,134
    // instructions in the policy step without, 1,018 with (callgrind, `dispatch/call_policy_50`).
    #[inline(always)]
    pub(crate) fn restricted_by(&self, rule: &Rule) -> bool {
        let Some(glob) = rule.glob() else {
            return true;
        };
        let matches = |form: &str| glob.matches(form);
        match self {
            Seen::Plain(forms) => forms.any(matches),
            Seen::Command(script) => script.restricted_by(matches),
            Seen::Path(path) => path.restricted(matches),
            Seen::Patch(Ok(paths)) => paths.iter().any(|path| path.restricted(matches)),
            // A patch that does not parse could touch anything.
            Seen::Patch(Err(_)) => true,
            Seen::Url { written, parsed } => matches(written) || parsed.as_deref().is_some_and(matches),
            Seen::Environment(names) => names.iter().any(|name| matches(name)),
        }
    }

    /// Whether the allow `rules` (all about this argument) let the call run.
    #[inline(always)]
    pub(crate) fn allowed_by(&self, rules: &[Rule]) -> bool {
        if rules.is_empty() {
            return false;
        }
        let any_rule = |form: &str| {
            rules
                .iter()
                .any(|rule| rule.glob().is_none_or(|glob| glob.matches(form)))
        };
        match self {
            Seen::Plain(forms) => rules.iter().any(|rule| {
                rule.glob()
                    .is_none_or(|glob| forms.all(|form| glob.matches(form)))
            }),
            Seen::Command(script) => script.allowed_by(any_rule),
            Seen::Path(path) => path.allowed(any_rule),
            Seen::Patch(Ok(paths)) => paths.iter().all(|path| path.allowed(any_rule)),
            Seen::Patch(Err(_)) => false,
            Seen::Url { parsed, .. } => parsed.as_deref().is_some_and(any_rule),
            Seen::Environment(names) => names.iter().all(|name| any_rule(name)),
        }
    }

    /// A path argument resolved inside a workspace: the value as written and where it
    /// lands, relative to the workspace.
    pub(crate) fn pinnable(&self) -> Option<(&str, &str)> {
        match self {
            Seen::Path(PathSeen {
                written,
                landing: Landing::Inside(relative),
                absolute: Some(_),
            }) if !relative.is_empty() => Some((written.raw(), relative)),
            _ => None,
        }
    }

    /// The names of environment variables, for an argument of that kind.
    pub(crate) fn variables(&self) -> &[&'a str] {
        match self {
            Seen::Environment(names) => names,
            _ => &[],
        }
    }

    /// What rules see, in words, for an explanation; each command or variable says
    /// whether an `allow` rule matches it.
    pub(crate) fn describe(&self, allow: &[Rule]) -> Vec<String> {
        let matched_by = |form: &str| {
            allow
                .iter()
                .find(|rule| rule.glob().is_none_or(|glob| glob.matches(form)))
                .map_or_else(
                    || " (no allow rule matches)".to_owned(),
                    |rule| format!(" (matches `{}`)", rule.source()),
                )
        };
        let matched = |form: &str| {
            if allow.is_empty() {
                String::new()
            } else {
                matched_by(form)
            }
        };
        match self {
            Seen::Plain(forms) => forms.list(),
            Seen::Command(script) => {
                let mut lines: Vec<String> = script
                    .commands()
                    .iter()
                    .map(|command| format!("command: {command}{}", matched(command)))
                    .collect();
                if let Some(why) = script.opaque() {
                    lines.push(format!("allow rules do not apply: {why}"));
                }
                lines
            }
            Seen::Path(path) => vec![path.describe()],
            Seen::Patch(Ok(paths)) if paths.is_empty() => vec!["names no path".to_owned()],
            Seen::Patch(Ok(paths)) => paths
                .iter()
                .map(|path| {
                    let matched = match &path.landing {
                        Landing::Inside(form) | Landing::Outside(form) => matched(form),
                        Landing::Unresolvable => String::new(),
                    };
                    format!("{}{matched}", path.describe())
                })
                .collect(),
            Seen::Patch(Err(error)) => vec![format!(
                "does not parse ({error}): deny and ask rules apply as if it touched any path, no allow rule applies"
            )],
            Seen::Url { parsed, .. } => vec![match parsed {
                Some(url) => format!("url: {url}"),
                None => "url: does not parse, so no allow rule applies".to_owned(),
            }],
            Seen::Environment(names) => names
                .iter()
                .map(|name| format!("variable: {name}{}", matched_by(name)))
                .collect(),
        }
    }
}

/// A workspace path as rules see it: as written, and where it lands.
pub(crate) struct PathSeen<'a> {
    written: ValueForms<'a>,
    landing: Landing,
    /// An `Inside` landing as an absolute path, when the workspace is known.
    absolute: Option<String>,
}

impl<'a> PathSeen<'a> {
    /// `text` resolved against `root` (canonical), or lexically without one.
    fn of(text: Cow<'a, str>, root: Option<&Path>) -> Self {
        let landing = resolve(&text, root);
        let absolute = match (&landing, root) {
            (Landing::Inside(relative), Some(root)) => {
                Some(root.join(relative).to_string_lossy().into_owned())
            }
            _ => None,
        };
        Self {
            written: ValueForms::of_text(text),
            landing,
            absolute,
        }
    }

    /// Whether a deny or ask rule's glob applies: to the path as written, normalized, or
    /// where it lands (relative or absolute).
    #[inline(always)]
    fn restricted(&self, matches: impl Fn(&str) -> bool) -> bool {
        self.written.any(&matches)
            || match &self.landing {
                Landing::Inside(relative) => {
                    matches(relative) || self.absolute.as_deref().is_some_and(matches)
                }
                Landing::Outside(absolute) => matches(absolute),
                // A path that cannot be resolved could land anywhere.
                Landing::Unresolvable => true,
            }
    }

    /// Whether an allow rule's glob applies: to where it lands.
    #[inline(always)]
    fn allowed(&self, any_rule: impl Fn(&str) -> bool) -> bool {
        match &self.landing {
            Landing::Inside(path) | Landing::Outside(path) => any_rule(path),
            Landing::Unresolvable => false,
        }
    }

    fn describe(&self) -> String {
        match &self.landing {
            Landing::Inside(relative) if relative.is_empty() => "lands on: the workspace itself".to_owned(),
            Landing::Inside(relative) => format!("lands on: {relative} (in the workspace)"),
            Landing::Outside(absolute) => format!("lands on: {absolute} (outside the workspace)"),
            Landing::Unresolvable => "lands on: unknown (links loop or nest too deeply)".to_owned(),
        }
    }
}
