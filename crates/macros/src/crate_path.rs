//! How generated code names the runtime crate.
//!
//! Users depend on the facade (package `agent-tools-sdk`, library `agent_tools`) or on
//! `agent-tools-core` directly, possibly renamed in their `Cargo.toml`; `proc-macro-crate`
//! reads the manifest to find which, under what name. `#[tool(crate = path)]` overrides the
//! search (for re-exports from other crates).

use proc_macro_crate::{FoundCrate, crate_name};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// The path of the runtime crate, e.g. `::agent_tools`.
pub(crate) fn crate_path(explicit: Option<&syn::Path>) -> syn::Result<TokenStream> {
    if let Some(path) = explicit {
        return Ok(quote!(#path));
    }
    // (package, its library's name): the facade's package is not named for its library,
    // because `agent-tools` on crates.io belongs to another project.
    for (package, library) in [
        ("agent-tools-sdk", "agent_tools"),
        ("agent-tools-core", "agent_tools_core"),
    ] {
        let name = match crate_name(package) {
            // Inside the crate itself (its tests, examples and benches), `extern crate self
            // as …` in its lib.rs makes the usual path work.
            Ok(FoundCrate::Itself) => library.to_owned(),
            // proc-macro-crate answers with the dependency's key; an unrenamed dependency is
            // known to rustc by its library's name instead.
            Ok(FoundCrate::Name(name)) if name == package.replace('-', "_") => library.to_owned(),
            Ok(FoundCrate::Name(name)) => name,
            Err(_) => continue,
        };
        let ident = format_ident!("{}", name);
        return Ok(quote!(::#ident));
    }
    Err(syn::Error::new(
        Span::call_site(),
        "`#[tool]` needs the `agent-tools-sdk` crate: add it to [dependencies] in Cargo.toml, or name a re-export with `#[tool(crate = path::to::agent_tools)]`",
    ))
}
