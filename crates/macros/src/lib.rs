//! The `#[tool]` and `#[toolset]` attribute macros of agent-tools.
//!
//! The macros parse and generate; they hold no logic of their own. Generated code
//! implements `agent_tools_core::TypedTool` for a small struct and calls the annotated function;
//! schemas, validation, deserialization and error messages come from `agent-tools-core`.
//!
//! Layout, in the order a macro call flows through it: `attr` parses `#[tool(...)]`,
//! `docs` reads doc comments, `signature` classifies parameters and the return type,
//! `model` combines them into a `ToolDef`, and `expand` (with `tool_fn` and
//! `toolset`) writes the code. See the `agent-tools` crate for documentation and
//! examples.

#![warn(missing_docs)]

mod attr;
mod cfg;
mod crate_path;
mod docs;
mod errors;
mod expand;
mod model;
mod name;
mod signature;
mod tool_fn;
mod toolset;

use proc_macro::TokenStream;

/// Turns an async (or plain) function into a tool. See the `agent-tools` crate docs.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool_fn::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Turns the `#[tool]` methods of an `impl` block into tools sharing `self`. See the
/// `agent-tools` crate docs.
#[proc_macro_attribute]
pub fn toolset(attr: TokenStream, item: TokenStream) -> TokenStream {
    toolset::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
