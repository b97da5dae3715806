//! Parsing `#[tool(...)]` arguments.
//!
//! Every problem is collected (with `syn::Error::combine`) and spanned on its own token,
//! so one compile shows all mistakes in the attribute.

use std::time::Duration;

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, Meta, Token};

use crate::errors::Errors;
use crate::name;

/// The attribute names `#[tool]` accepts, for "did you mean" and the error listing.
const KNOWN: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "strict",
    "edits_files",
    "defer",
    "timeout",
    "cancel_grace",
    "retries",
    "max_concurrency",
    "audit_argument_bytes",
    "max_result_tokens",
    "preview",
    "enabled",
    "kinds",
    "headers",
    "task",
    "explicit_task_start",
    "freeform",
    "crate",
];

/// The values `task = "…"` accepts, with the `TaskSupport` variant each names.
const TASK_SUPPORT: &[(&str, &str)] = &[
    ("forbidden", "Forbidden"),
    ("optional", "Optional"),
    ("required", "Required"),
];

/// The argument kinds `kinds(ARG = KIND, …)` accepts, with the `ArgumentKind` variant
/// each names.
const KINDS: &[(&str, &str)] = &[
    ("command", "ShellCommand"),
    ("path", "WorkspacePath"),
    ("url", "Url"),
    ("env", "Environment"),
    ("patch", "Patch"),
];

/// The parsed arguments of one `#[tool(...)]`.
#[derive(Default)]
pub(crate) struct ToolAttrs {
    pub(crate) name: Option<(String, Span)>,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    pub(crate) strict: Option<bool>,
    pub(crate) edits_files: Option<bool>,
    pub(crate) defer: Option<bool>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) cancel_grace: Option<Duration>,
    pub(crate) retries: Option<u32>,
    pub(crate) max_concurrency: Option<u32>,
    /// `audit_argument_bytes = 65536`: arguments the audit log keeps at least.
    pub(crate) audit_argument_bytes: Option<u32>,
    /// `max_result_tokens = 20000`: the tool's result budget.
    pub(crate) max_result_tokens: Option<u32>,
    /// The function that previews a call for an approver (`preview = path`).
    pub(crate) preview: Option<syn::Path>,
    pub(crate) enabled: Option<(Expr, Span)>,
    /// `kinds(command = command, cwd = path)`: each argument's name and the
    /// `ArgumentKind` variant.
    pub(crate) kinds: Vec<(String, &'static str)>,
    /// `headers(region = "Region")`: each argument's name and its header's.
    pub(crate) headers: Vec<(String, String)>,
    /// `task = "optional"`: the `TaskSupport` variant.
    pub(crate) task: Option<&'static str>,
    pub(crate) explicit_task_start: Option<bool>,
    /// `freeform = EXPR`: an expression giving the tool's `Freeform`.
    pub(crate) freeform: Option<Expr>,
    pub(crate) crate_path: Option<syn::Path>,
    /// Where `destructive` was written, for the read-only conflict.
    destructive_span: Option<Span>,
}

impl ToolAttrs {
    /// Parses the tokens inside `#[tool(...)]`.
    pub(crate) fn parse(tokens: proc_macro2::TokenStream) -> syn::Result<Self> {
        let metas = syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, tokens)?;
        let mut attrs = ToolAttrs::default();
        let mut errors = Errors::default();
        let mut seen: Vec<String> = Vec::new();
        for meta in metas {
            let key = path_name(&meta);
            if seen.contains(&key) && KNOWN.contains(&key.as_str()) {
                errors.push(syn::Error::new(
                    meta.path().span(),
                    format!("duplicate attribute `{key}`; give it once"),
                ));
                continue;
            }
            seen.push(key.clone());
            if let Err(error) = attrs.apply(&key, meta) {
                errors.push(error);
            }
        }
        errors.finish()?;
        attrs.check_consistency()?;
        Ok(attrs)
    }

    fn apply(&mut self, key: &str, meta: Meta) -> syn::Result<()> {
        match key {
            "name" => {
                let (value, span) = string_value(&meta)?;
                name::check_tool_name(&value, span)?;
                self.name = Some((value, span));
            }
            "title" => self.title = Some(string_value(&meta)?.0),
            "description" => {
                let (value, span) = string_value(&meta)?;
                if value.trim().is_empty() {
                    return Err(syn::Error::new(span, "the description must not be empty"));
                }
                self.description = Some(value);
            }
            "read_only" => self.read_only = Some(flag_value(&meta)?),
            "destructive" => {
                self.destructive = Some(flag_value(&meta)?);
                self.destructive_span = Some(meta.span());
            }
            "idempotent" => self.idempotent = Some(flag_value(&meta)?),
            "open_world" => self.open_world = Some(flag_value(&meta)?),
            "strict" => self.strict = Some(flag_value(&meta)?),
            "edits_files" => self.edits_files = Some(flag_value(&meta)?),
            "defer" => self.defer = Some(flag_value(&meta)?),
            "timeout" => self.timeout = Some(duration_value(&meta, key)?),
            "cancel_grace" => self.cancel_grace = Some(duration_value(&meta, key)?),
            "retries" => self.retries = Some(count_value(&meta, key, 0)?),
            "max_concurrency" => self.max_concurrency = Some(count_value(&meta, key, 1)?),
            "audit_argument_bytes" => self.audit_argument_bytes = Some(count_value(&meta, key, 1)?),
            "max_result_tokens" => self.max_result_tokens = Some(count_value(&meta, key, 1)?),
            "enabled" => {
                let span = meta.span();
                let Meta::NameValue(pair) = meta else {
                    return Err(syn::Error::new(
                        span,
                        "`enabled` needs a condition: `enabled = self.config.web`",
                    ));
                };
                self.enabled = Some((pair.value, span));
            }
            "preview" => self.preview = Some(preview_value(&meta)?),
            "kinds" => self.kinds = kinds_value(&meta)?,
            "headers" => self.headers = headers_value(&meta)?,
            "task" => self.task = Some(task_value(&meta)?),
            "explicit_task_start" => self.explicit_task_start = Some(flag_value(&meta)?),
            "freeform" => {
                let span = meta.span();
                let Meta::NameValue(pair) = meta else {
                    return Err(syn::Error::new(
                        span,
                        "`freeform` needs the form: `freeform = Freeform::lark(GRAMMAR, \"input\")`",
                    ));
                };
                self.freeform = Some(pair.value);
            }
            "crate" => self.crate_path = Some(crate_value(&meta)?),
            unknown => return Err(unknown_attribute(unknown, meta.path().span())),
        }
        Ok(())
    }

    fn check_consistency(&self) -> syn::Result<()> {
        if self.read_only == Some(true) && self.destructive == Some(true) {
            return Err(syn::Error::new(
                self.destructive_span.unwrap_or_else(Span::call_site),
                "a tool cannot be both `read_only` and `destructive`: a destructive tool modifies its environment",
            ));
        }
        Ok(())
    }
}

fn unknown_attribute(unknown: &str, span: Span) -> syn::Error {
    let expected = KNOWN.join(", ");
    let message = match name::closest(unknown, KNOWN) {
        Some(suggestion) => {
            format!(
                "unknown attribute `{unknown}`; did you mean `{suggestion}`? (expected one of: {expected})"
            )
        }
        None => format!("unknown attribute `{unknown}` (expected one of: {expected})"),
    };
    syn::Error::new(span, message)
}

fn string_value(meta: &Meta) -> syn::Result<(String, Span)> {
    let key = path_name(meta);
    match meta {
        Meta::NameValue(pair) => match &pair.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text), ..
            }) => Ok((text.value(), text.span())),
            other => Err(syn::Error::new(
                other.span(),
                format!("`{key}` takes a string: `{key} = \"...\"`"),
            )),
        },
        _ => Err(syn::Error::new(
            meta.span(),
            format!("`{key}` takes a string: `{key} = \"...\"`"),
        )),
    }
}

/// `read_only` or `read_only = true|false`.
fn flag_value(meta: &Meta) -> syn::Result<bool> {
    let key = path_name(meta);
    match meta {
        Meta::Path(_) => Ok(true),
        Meta::NameValue(pair) => match &pair.value {
            Expr::Lit(ExprLit {
                lit: Lit::Bool(flag), ..
            }) => Ok(flag.value),
            other => Err(syn::Error::new(
                other.span(),
                format!("`{key}` is a flag: write `{key}` or `{key} = false`"),
            )),
        },
        Meta::List(list) => Err(syn::Error::new(
            list.span(),
            format!("`{key}` is a flag: write `{key}` or `{key} = false`"),
        )),
    }
}

/// A duration attribute (`timeout`, `cancel_grace`) such as `"30s"`.
fn duration_value(meta: &Meta, key: &str) -> syn::Result<Duration> {
    let (text, span) = string_value(meta)?;
    let duration = humantime::parse_duration(&text).map_err(|error| {
        syn::Error::new(
            span,
            format!("invalid {key} `{text}` ({error}); write e.g. \"30s\", \"500ms\" or \"2m\""),
        )
    })?;
    if duration.is_zero() {
        return Err(syn::Error::new(
            span,
            format!("the {key} must be longer than zero"),
        ));
    }
    Ok(duration)
}

/// A count attribute (`retries = 2`, `max_concurrency = 1`, `max_result_tokens = 20000`)
/// of at least `min`.
fn count_value(meta: &Meta, key: &str, min: u32) -> syn::Result<u32> {
    let invalid = || {
        syn::Error::new(
            meta.span(),
            format!("`{key}` takes a whole number: `{key} = {}`", min.max(1)),
        )
    };
    let Meta::NameValue(pair) = meta else {
        return Err(invalid());
    };
    let Expr::Lit(ExprLit {
        lit: Lit::Int(int), ..
    }) = &pair.value
    else {
        return Err(invalid());
    };
    let value: u32 = int.base10_parse().map_err(|_| invalid())?;
    if value < min {
        return Err(syn::Error::new(
            int.span(),
            format!("`{key}` must be at least {min}"),
        ));
    }
    Ok(value)
}

/// `preview = path`: the function (in a toolset, the method) that previews a call.
fn preview_value(meta: &Meta) -> syn::Result<syn::Path> {
    let invalid = || {
        syn::Error::new(
            meta.span(),
            "`preview` names a function: `preview = preview_write`, a `fn(&Args) -> Option<String>` \
             (with `&State` first if the tool has state; in a `#[toolset]`, a method `fn(&self, &Args)`)",
        )
    };
    let Meta::NameValue(pair) = meta else {
        return Err(invalid());
    };
    match &pair.value {
        Expr::Path(path) if path.qself.is_none() => Ok(path.path.clone()),
        _ => Err(invalid()),
    }
}

/// `kinds(ARG = KIND, …)`, each KIND one of [`KINDS`]; every bad pair is reported.
fn kinds_value(meta: &Meta) -> syn::Result<Vec<(String, &'static str)>> {
    let expected = KINDS.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ");
    let Meta::List(list) = meta else {
        return Err(syn::Error::new(
            meta.span(),
            format!(
                "`kinds` lists arguments and their kinds: `kinds(command = command, cwd = path)` (kinds: {expected})"
            ),
        ));
    };
    let pairs = list.parse_args_with(Punctuated::<syn::MetaNameValue, Token![,]>::parse_terminated)?;
    let mut kinds = Vec::new();
    let mut errors = Errors::default();
    for pair in pairs {
        let argument = path_name(&Meta::NameValue(pair.clone()));
        let kind = match &pair.value {
            Expr::Path(path) => path.path.get_ident().map(ToString::to_string),
            _ => None,
        };
        let known = kind
            .as_deref()
            .and_then(|kind| KINDS.iter().find(|(name, _)| *name == kind));
        match known {
            Some((_, variant)) => kinds.push((argument, *variant)),
            None => errors.push(syn::Error::new(
                pair.value.span(),
                unknown_kind(kind.as_deref(), &expected),
            )),
        }
    }
    errors.finish()?;
    Ok(kinds)
}

/// What is wrong with `kind` (`None`: not a plain name) in `kinds(ARG = KIND)`.
fn unknown_kind(kind: Option<&str>, expected: &str) -> String {
    let Some(kind) = kind else {
        return format!("an argument's kind is a name, one of: {expected}");
    };
    let names: Vec<&str> = KINDS.iter().map(|(name, _)| *name).collect();
    match name::closest(kind, &names) {
        Some(suggestion) => {
            format!(
                "`{kind}` is not an argument kind; did you mean `{suggestion}`? (expected one of: {expected})"
            )
        }
        None => format!("`{kind}` is not an argument kind (expected one of: {expected})"),
    }
}

/// `headers(ARG = "Header", …)`, each header an HTTP token; every bad pair is reported.
/// (Registration checks the rest: that the argument is a top-level primitive.)
fn headers_value(meta: &Meta) -> syn::Result<Vec<(String, String)>> {
    let Meta::List(list) = meta else {
        return Err(syn::Error::new(
            meta.span(),
            "`headers` lists arguments and the HTTP header each is sent as: `headers(region = \"Region\")`",
        ));
    };
    let pairs = list.parse_args_with(Punctuated::<syn::MetaNameValue, Token![,]>::parse_terminated)?;
    let mut headers = Vec::new();
    let mut errors = Errors::default();
    for pair in pairs {
        let argument = path_name(&Meta::NameValue(pair.clone()));
        match &pair.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text), ..
            }) if is_http_token(&text.value()) => headers.push((argument, text.value())),
            Expr::Lit(ExprLit {
                lit: Lit::Str(text), ..
            }) => errors.push(syn::Error::new(
                text.span(),
                format!(
                    "`{}` is not an HTTP header name: use letters, digits and !#$%&'*+-.^_`|~ (it is sent as `Mcp-Param-NAME`)",
                    text.value()
                ),
            )),
            other => errors.push(syn::Error::new(
                other.span(),
                format!("the header of `{argument}` is a string: `{argument} = \"Name\"`"),
            )),
        }
    }
    errors.finish()?;
    Ok(headers)
}

/// RFC 9110 §5.6.2: a non-empty run of `tchar`.
fn is_http_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// `task = "forbidden" | "optional" | "required"`.
fn task_value(meta: &Meta) -> syn::Result<&'static str> {
    let (text, span) = string_value(meta)?;
    TASK_SUPPORT
        .iter()
        .find(|(name, _)| *name == text)
        .map(|(_, variant)| *variant)
        .ok_or_else(|| {
            syn::Error::new(
                span,
                format!("`task` is one of \"forbidden\", \"optional\", \"required\", not \"{text}\""),
            )
        })
}

/// `crate = path` or `crate = "path"`.
fn crate_value(meta: &Meta) -> syn::Result<syn::Path> {
    let invalid = || syn::Error::new(meta.span(), "`crate` takes a path: `crate = ::agent_tools`");
    let Meta::NameValue(pair) = meta else {
        return Err(invalid());
    };
    match &pair.value {
        Expr::Path(path) => Ok(path.path.clone()),
        Expr::Lit(ExprLit {
            lit: Lit::Str(text), ..
        }) => text.parse(),
        _ => Err(invalid()),
    }
}

fn path_name(meta: &Meta) -> String {
    let path = meta.path();
    quote::quote!(#path).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspelt_attributes_get_the_one_meant() {
        let suggestion = |unknown: &str| name::closest(unknown, KNOWN);
        assert_eq!(suggestion("rename"), Some("name"));
        assert_eq!(suggestion("readonly"), Some("read_only"));
        assert_eq!(suggestion("timout"), Some("timeout"));
        assert_eq!(suggestion("enable"), Some("enabled"));
        assert_eq!(suggestion("titel"), Some("title"));
        assert_eq!(suggestion("colour"), None);
        let message = unknown_attribute("rename", Span::call_site()).to_string();
        assert!(
            message.starts_with("unknown attribute `rename`; did you mean `name`? (expected one of: name,"),
            "{message}"
        );
    }
}
