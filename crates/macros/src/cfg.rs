//! `#[cfg(...)]` on a tool function or method: what the macro generates for the tool is
//! compiled under the same condition, so a tool can be behind a Cargo feature (the
//! built-in tool families are) without the generated struct naming a function that is
//! not there.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, Item};

/// The `#[cfg(...)]` attributes among a function's attributes.
pub(crate) fn cfg_attributes(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
        .cloned()
        .collect()
}

/// Puts `cfgs` on every item of `items` (generated code: structs, impls, functions).
pub(crate) fn gate_items(items: TokenStream, cfgs: &[Attribute]) -> syn::Result<TokenStream> {
    if cfgs.is_empty() {
        return Ok(items);
    }
    let mut file: syn::File = syn::parse2(items)?;
    for item in &mut file.items {
        item_attrs(item)?.splice(0..0, cfgs.iter().cloned());
    }
    Ok(file.into_token_stream())
}

/// The attributes of the kinds of item `#[tool]` generates.
fn item_attrs(item: &mut Item) -> syn::Result<&mut Vec<Attribute>> {
    match item {
        Item::Fn(item) => Ok(&mut item.attrs),
        Item::Impl(item) => Ok(&mut item.attrs),
        Item::Struct(item) => Ok(&mut item.attrs),
        other => Err(syn::Error::new_spanned(
            other,
            "internal error in #[tool]: cannot put `#[cfg]` on this generated item",
        )),
    }
}
