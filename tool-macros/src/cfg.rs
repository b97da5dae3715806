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

fn item_attrs(item: &mut Item) -> syn::Result<&mut Vec<Attribute>> {
    Ok(match item {
        Item::Const(item) => &mut item.attrs,
        Item::Enum(item) => &mut item.attrs,
        Item::Fn(item) => &mut item.attrs,
        Item::Impl(item) => &mut item.attrs,
        Item::Mod(item) => &mut item.attrs,
        Item::Static(item) => &mut item.attrs,
        Item::Struct(item) => &mut item.attrs,
        Item::Type(item) => &mut item.attrs,
        Item::Use(item) => &mut item.attrs,
        other => {
            return Err(syn::Error::new_spanned(
                other,
                "internal error in #[tool]: cannot put `#[cfg]` on this generated item",
            ));
        }
    })
}
