//! [`ToolDef`]: everything known about one tool function once its attribute, doc comment
//! and signature are parsed — the input of code generation.

use proc_macro2::{Span, TokenStream};
use quote::format_ident;
use syn::{Attribute, Ident, Signature, Visibility};

use crate::attr::ToolAttrs;
use crate::docs::doc_text;
use crate::errors::Errors;
use crate::name::{check_tool_name, pascal_case};
use crate::signature::{Owner, ToolSignature};

/// One tool, ready to expand.
pub(crate) struct ToolDef {
    pub(crate) attrs: ToolAttrs,
    /// The name models call it by.
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) fn_ident: Ident,
    /// Visibility of the generated structs: the function's for free functions, private for
    /// toolset methods (see `toolset::method_tool`).
    pub(crate) vis: Visibility,
    /// `ReadFileTool` for `read_file`.
    pub(crate) struct_ident: Ident,
    pub(crate) sig: ToolSignature,
    /// A free function or a toolset method.
    pub(crate) owner: Owner,
    /// The runtime crate, e.g. `::agent_tools`.
    pub(crate) krate: TokenStream,
    /// The function's `#[cfg(...)]` attributes, repeated on everything generated for it.
    pub(crate) cfgs: Vec<Attribute>,
}

impl ToolDef {
    /// Builds the model of a tool function, reporting every problem at once.
    pub(crate) fn new(
        attr_tokens: TokenStream,
        fn_attrs: &[Attribute],
        vis: &Visibility,
        sig: &Signature,
        owner: Owner,
    ) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let attrs = errors.check(ToolAttrs::parse(attr_tokens));
        let classified = errors.check(ToolSignature::classify(sig, owner));
        // Unparsable attributes are reported; the checks below still run on the defaults.
        let attrs = attrs.unwrap_or_default();
        let name = match &attrs.name {
            Some((name, _)) => name.clone(),
            None => {
                let name = sig.ident.to_string().trim_start_matches("r#").to_owned();
                errors.check(check_tool_name(&name, sig.ident.span()));
                name
            }
        };
        let description = attrs.description.clone().unwrap_or_else(|| doc_text(fn_attrs));
        if description.is_empty() {
            errors.push(syn::Error::new(
                sig.ident.span(),
                format!(
                    "tool `{name}` needs a description for the model: add a `///` doc comment saying what it does, or `#[tool(description = \"...\")]`"
                ),
            ));
        }
        if owner == Owner::Free
            && let Some((_, span)) = &attrs.enabled
        {
            errors.push(syn::Error::new(
                *span,
                "`enabled` only applies to tools in a `#[toolset]` (it is evaluated on the toolset's state)",
            ));
        }
        if owner == Owner::Toolset
            && let Some(path) = &attrs.preview
            && path.get_ident().is_none()
        {
            errors.push(syn::Error::new_spanned(
                path,
                "in a `#[toolset]`, `preview` names a method of the toolset: `preview = preview_write` for `fn preview_write(&self, args: &WriteArgs) -> Option<String>`",
            ));
        }
        let krate = errors.check(crate::crate_path::crate_path(attrs.crate_path.as_ref()));
        errors.finish()?;
        let (Some(sig_classified), Some(krate)) = (classified, krate) else {
            unreachable!("errors were reported above");
        };
        Ok(Self {
            name,
            description,
            fn_ident: sig.ident.clone(),
            vis: match owner {
                Owner::Free => vis.clone(),
                Owner::Toolset => Visibility::Inherited,
            },
            struct_ident: format_ident!(
                "{}Tool",
                pascal_case(&sig.ident.to_string()),
                span = sig.ident.span()
            ),
            sig: sig_classified,
            owner,
            krate,
            attrs,
            cfgs: crate::cfg::cfg_attributes(fn_attrs),
        })
    }

    /// `ReadFileArgs` for a generated argument struct.
    pub(crate) fn generated_args_ident(&self) -> Ident {
        format_ident!(
            "{}Args",
            pascal_case(&self.fn_ident.to_string()),
            span = self.fn_ident.span()
        )
    }

    /// The name of the generated schema test.
    pub(crate) fn test_ident(&self) -> Ident {
        format_ident!(
            "{}_tool_definition",
            self.fn_ident.to_string().trim_start_matches("r#"),
            span = Span::call_site()
        )
    }
}
