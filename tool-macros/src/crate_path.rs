//! How generated code names the runtime crate.
//!
//! Users depend on the `agent-tools` facade or on `tool-core` directly, possibly renamed in
//! their `Cargo.toml`; `proc-macro-crate` reads the manifest to find which, under what
//! name. `#[tool(crate = path)]` overrides the search (for re-exports from other crates).

use proc_macro_crate::{FoundCrate, crate_name};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// The path of the runtime crate, e.g. `::agent_tools`.
pub(crate) fn crate_path(explicit: Option<&syn::Path>) -> syn::Result<TokenStream> {
    if let Some(path) = explicit {
        return Ok(quote!(#path));
    }
    for package in ["agent-tools", "tool-core"] {
        match crate_name(package) {
            // Inside the crate itself (its tests, examples and benches), `extern crate self
            // as …` in its lib.rs makes the usual path work.
            Ok(FoundCrate::Itself) => {
                let ident = format_ident!("{}", package.replace('-', "_"));
                return Ok(quote!(::#ident));
            }
            Ok(FoundCrate::Name(name)) => {
                let ident = format_ident!("{}", name);
                return Ok(quote!(::#ident));
            }
            Err(_) => continue,
        }
    }
    Err(syn::Error::new(
        Span::call_site(),
        "`#[tool]` needs the `agent-tools` crate: add it to [dependencies] in Cargo.toml, or name a re-export with `#[tool(crate = path::to::agent_tools)]`",
    ))
}
