//! What each parameter of a tool function is, and what it returns.
//!
//! Parameters are recognized by their type:
//! - `&ToolContext` is the call's context;
//! - any other `&T` is the tool's state (free functions only; a toolset's state is `self`);
//! - a by-value parameter is the **argument struct** when it is named `args`, marked
//!   `#[args]`, or its type's name ends in `Args`; otherwise it is a plain parameter, and
//!   the macro generates the argument struct from all plain parameters.
//!
//! The return type is `T` or `Result<T, E>` (any path ending in `Result`, so
//! `anyhow::Result<T>` and `io::Result<T>` work too).

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, Pat, PathArguments, ReturnType, Signature as FnSignature, Type,
};

use crate::docs::is_forwarded_to_field;
use crate::errors::Errors;

/// Where a tool function is defined, which decides what `self` and `&T` may mean.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// A free function: `&T` is state; `self` is an error.
    Free,
    /// A method in a `#[toolset]` impl: `&self` is required; other `&T` is an error.
    Toolset,
}

/// What the generated code passes for one parameter, in order.
pub(crate) enum Param {
    State,
    Context,
    ArgsStruct,
    Plain(Ident),
}

/// A plain parameter that becomes a field of the generated argument struct.
pub(crate) struct PlainParam {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    /// `///`, `#[serde]` and `#[schemars]` attributes, moved to the field.
    pub(crate) attrs: Vec<Attribute>,
}

impl PlainParam {
    /// Whether it has `#[serde]` or `#[schemars]` attributes of its own, which may set
    /// how it is read or described (a doc comment only describes it).
    pub(crate) fn has_own_attrs(&self) -> bool {
        self.attrs
            .iter()
            .any(|attr| attr.path().is_ident("serde") || attr.path().is_ident("schemars"))
    }
}

/// The classified signature.
pub(crate) struct ToolSignature {
    pub(crate) is_async: bool,
    pub(crate) params: Vec<Param>,
    pub(crate) state: Option<Type>,
    pub(crate) args_struct: Option<Type>,
    pub(crate) plain: Vec<PlainParam>,
    /// `T` of `-> T` or `-> Result<T, E>`.
    pub(crate) output: Type,
    pub(crate) returns_result: bool,
    /// The return type's span: errors about converting its error type point there.
    pub(crate) return_span: Span,
}

impl ToolSignature {
    /// Classifies `sig`, reporting every unsupported part at once.
    pub(crate) fn classify(sig: &FnSignature, owner: Owner) -> syn::Result<Self> {
        let mut errors = Errors::default();
        check_qualifiers(sig, &mut errors);
        let mut signature = ToolSignature {
            is_async: sig.asyncness.is_some(),
            params: Vec::new(),
            state: None,
            args_struct: None,
            plain: Vec::new(),
            output: syn::parse_quote!(()),
            returns_result: false,
            return_span: match &sig.output {
                ReturnType::Default => sig.ident.span(),
                ReturnType::Type(_, ty) => ty.span(),
            },
        };
        let mut has_receiver = false;
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(receiver) => {
                    has_receiver = true;
                    errors.check(check_receiver(receiver, owner));
                }
                FnArg::Typed(param) => {
                    if let Some(error) = signature.add_param(param, owner).err() {
                        errors.push(error);
                    }
                }
            }
        }
        if owner == Owner::Toolset && !has_receiver {
            errors.push(syn::Error::new(
                sig.ident.span(),
                "a tool in a `#[toolset]` takes `&self`: it reaches the shared state through it",
            ));
        }
        if let Some((output, returns_result)) = errors.check(output_type(&sig.output)) {
            signature.output = output;
            signature.returns_result = returns_result;
        }
        errors.finish()?;
        Ok(signature)
    }

    fn add_param(&mut self, param: &syn::PatType, owner: Owner) -> syn::Result<()> {
        let ty = &*param.ty;
        if let Type::Reference(reference) = ty {
            if reference.mutability.is_some() {
                return Err(syn::Error::new_spanned(
                    ty,
                    "`&mut` parameters are not supported: calls of a tool may run at the same time; take `&T` and use interior mutability (a `Mutex` or atomics)",
                ));
            }
            check_borrowed_argument(&reference.elem)?;
            if last_segment_is(&reference.elem, "ToolContext") {
                if self.params.iter().any(|p| matches!(p, Param::Context)) {
                    return Err(syn::Error::new_spanned(
                        ty,
                        "a tool takes `&ToolContext` at most once",
                    ));
                }
                self.params.push(Param::Context);
                return Ok(());
            }
            if owner == Owner::Toolset {
                return Err(syn::Error::new_spanned(
                    ty,
                    "a tool in a `#[toolset]` reaches its state through `&self`; remove this parameter and put the value in the toolset",
                ));
            }
            if self.state.is_some() {
                return Err(syn::Error::new_spanned(
                    ty,
                    "a tool takes at most one state parameter (`&State`); group the values in one struct",
                ));
            }
            self.state = Some((*reference.elem).clone());
            self.params.push(Param::State);
            return Ok(());
        }
        if let Type::ImplTrait(_) = ty {
            return Err(syn::Error::new_spanned(
                ty,
                "`impl Trait` parameters are not supported; use a concrete type",
            ));
        }
        if is_args_struct(param) {
            return self.add_args_struct(param);
        }
        self.add_plain(param)
    }

    fn add_args_struct(&mut self, param: &syn::PatType) -> syn::Result<()> {
        if let Some(first) = &self.args_struct {
            let first = quote::quote!(#first).to_string();
            return Err(syn::Error::new_spanned(
                &param.ty,
                format!(
                    "a tool takes one argument struct, and `{first}` is already it; merge the two structs into one"
                ),
            ));
        }
        if let Some(plain) = self.plain.first() {
            return Err(mixed_error(plain.ident.span()));
        }
        self.args_struct = Some((*param.ty).clone());
        self.params.push(Param::ArgsStruct);
        Ok(())
    }

    fn add_plain(&mut self, param: &syn::PatType) -> syn::Result<()> {
        let Pat::Ident(pattern) = &*param.pat else {
            return Err(syn::Error::new_spanned(
                &param.pat,
                "a plain tool parameter needs a name (it becomes the argument's name); destructure inside the function",
            ));
        };
        if self.args_struct.is_some() {
            return Err(mixed_error(pattern.ident.span()));
        }
        let attrs = param
            .attrs
            .iter()
            .filter(|a| is_forwarded_to_field(a))
            .cloned()
            .collect();
        let ident = field_name(&pattern.ident);
        self.plain.push(PlainParam {
            ident: ident.clone(),
            ty: (*param.ty).clone(),
            attrs,
        });
        self.params.push(Param::Plain(ident));
        Ok(())
    }
}

/// The argument's name for a parameter: `_unused` is offered to the model as `unused`
/// (the underscore only silences a lint). Raw identifiers and all-underscore names stay as
/// they are.
fn field_name(ident: &Ident) -> Ident {
    let text = ident.to_string();
    let trimmed = text.trim_start_matches('_');
    if text.starts_with("r#") || trimmed.is_empty() || trimmed == text {
        return ident.clone();
    }
    Ident::new(trimmed, ident.span())
}

fn mixed_error(span: Span) -> syn::Error {
    syn::Error::new(
        span,
        "a tool takes either one argument struct or plain parameters, not both; move this parameter into the argument struct",
    )
}

fn check_qualifiers(sig: &FnSignature, errors: &mut Errors) {
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.push(syn::Error::new_spanned(
            &sig.generics,
            "a tool function cannot be generic: its arguments and output need one concrete schema",
        ));
    }
    let qualifiers: [(Option<Span>, &str); 3] = [
        (sig.constness.map(|t| t.span), "const"),
        (sig.unsafety.map(|t| t.span), "unsafe"),
        (sig.abi.as_ref().map(|abi| abi.extern_token.span), "extern"),
    ];
    for (span, keyword) in qualifiers {
        if let Some(span) = span {
            errors.push(syn::Error::new(
                span,
                format!("a tool function cannot be `{keyword}`"),
            ));
        }
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new(
            variadic.span(),
            "a tool function cannot be variadic",
        ));
    }
}

fn check_receiver(receiver: &syn::Receiver, owner: Owner) -> syn::Result<()> {
    if owner == Owner::Free {
        return Err(syn::Error::new_spanned(
            receiver,
            "`#[tool]` on a method needs `#[toolset]` on its `impl` block",
        ));
    }
    let shared_ref =
        receiver.reference.is_some() && receiver.mutability.is_none() && receiver.colon_token.is_none();
    if !shared_ref {
        return Err(syn::Error::new_spanned(
            receiver,
            "a tool in a `#[toolset]` takes `&self` (tools of a set run at the same time and share it)",
        ));
    }
    Ok(())
}

/// Arguments are deserialized into owned values; borrowed types cannot be.
fn check_borrowed_argument(referent: &Type) -> syn::Result<()> {
    let owned = if last_segment_is(referent, "str") {
        Some("String")
    } else if last_segment_is(referent, "Path") {
        Some("PathBuf")
    } else if matches!(referent, Type::Slice(_)) {
        Some("Vec<T>")
    } else {
        None
    };
    match owned {
        Some(owned) => Err(syn::Error::new_spanned(
            referent,
            format!("tool arguments are owned values: use `{owned}` instead of a reference"),
        )),
        None => Ok(()),
    }
}

fn is_args_struct(param: &syn::PatType) -> bool {
    let marked = param.attrs.iter().any(|attr| attr.path().is_ident("args"));
    let named_args = matches!(&*param.pat, Pat::Ident(p) if p.ident == "args");
    let type_named_args = last_segment(&param.ty).is_some_and(|ident| ident.to_string().ends_with("Args"));
    marked || named_args || type_named_args
}

fn last_segment(ty: &Type) -> Option<&Ident> {
    match ty {
        Type::Path(path) => path.path.segments.last().map(|segment| &segment.ident),
        _ => None,
    }
}

fn last_segment_is(ty: &Type, name: &str) -> bool {
    last_segment(ty).is_some_and(|ident| ident == name)
}

/// `(T, returns_result)` for `-> T` / `-> Result<T, E>`; `()` when nothing is returned.
fn output_type(output: &ReturnType) -> syn::Result<(Type, bool)> {
    let ty = match output {
        ReturnType::Default => return Ok((syn::parse_quote!(()), false)),
        ReturnType::Type(_, ty) => &**ty,
    };
    if let Type::ImplTrait(_) = ty {
        return Err(syn::Error::new_spanned(
            ty,
            "a tool cannot return `impl Trait`; return a concrete type such as `String` or `Json<T>`",
        ));
    }
    if let Type::Path(path) = ty
        && let Some(segment) = path.path.segments.last()
        && segment.ident == "Result"
        && let PathArguments::AngleBracketed(generics) = &segment.arguments
        && let Some(GenericArgument::Type(ok)) = generics.args.first()
    {
        return Ok((ok.clone(), true));
    }
    Ok((ty.clone(), false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_drop_silencing_underscores_only() {
        let name = |ident: Ident| field_name(&ident).to_string();
        assert_eq!(name(syn::parse_quote!(_unused)), "unused");
        assert_eq!(name(syn::parse_quote!(path)), "path");
        assert_eq!(name(syn::parse_quote!(r#type)), "r#type");
        assert_eq!(name(syn::parse_quote!(__)), "__");
    }
}
