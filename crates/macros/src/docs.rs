//! Doc comments: `///` lines arrive as `#[doc = "..."]` attributes.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The text of the doc comments among `attrs`, with rustdoc's one leading space removed
/// from each line and surrounding blank lines trimmed.
pub(crate) fn doc_text(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(pair) if pair.path.is_ident("doc") => match &pair.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text), ..
                }) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|chunk| chunk.split('\n').map(str::to_owned).collect::<Vec<_>>())
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .collect();
    lines.join("\n").trim().to_owned()
}

/// Whether the attribute is one `#[tool]` reads or forwards (so it must not stay on the
/// function where the compiler would reject it).
pub(crate) fn is_forwarded_to_field(attr: &Attribute) -> bool {
    ["doc", "serde", "schemars"]
        .iter()
        .any(|name| attr.path().is_ident(name))
}
