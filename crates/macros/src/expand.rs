//! Code generation shared by `#[tool]` and `#[toolset]`: the `TypedTool` impl, the
//! generated argument struct, and the schema test.
//!
//! Generated code stays thin: it names types and calls the function; deserialization,
//! validation, schema generation and error formatting are library code in `agent-tools-core`.
//! For an argument struct it generates from plain parameters, it also tells the library
//! which types they are (`__DIRECT_ARGUMENTS`); the library decides whether a call's JSON
//! text may be read straight into it.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::ToolDef;
use crate::signature::{Owner, Param};

/// `impl TypedTool for <Struct>`.
pub(crate) fn typed_tool_impl(def: &ToolDef) -> TokenStream {
    let krate = &def.krate;
    let struct_ident = &def.struct_ident;
    let args_ty = match &def.sig.args_struct {
        Some(ty) => quote!(#ty),
        None => {
            let ident = def.generated_args_ident();
            quote!(#ident)
        }
    };
    let output_ty = &def.sig.output;
    // Spanned on the user's types so an unmet bound points at them.
    let args_decl = quote_spanned!(args_ty.span()=> type Args = #args_ty;);
    let output_decl = quote_spanned!(output_ty.span()=> type Output = #output_ty;);
    let meta = meta_expr(def);
    let body = run_body(def);
    let preview = preview_method(def);
    let direct = direct_arguments(def);
    quote! {
        impl #krate::TypedTool for #struct_ident {
            #args_decl
            #output_decl

            fn meta() -> #krate::tool::ToolMeta {
                #meta
            }

            async fn run(
                &self,
                __tool_args: <Self as #krate::TypedTool>::Args,
                __tool_ctx: &#krate::ToolContext,
            ) -> ::core::result::Result<<Self as #krate::TypedTool>::Output, #krate::ToolError> {
                #body
            }

            #preview
            #direct
        }
    }
}

/// `TypedTool::__DIRECT_ARGUMENTS` for an argument struct generated from plain
/// parameters without `#[serde]` or `#[schemars]` attributes: true when the library lists
/// every parameter's type as plain (`__private::Plain`, asked about the type the compiler
/// resolves, not its spelling). Nothing for any other tool, which keeps the default
/// (`false`): the registry then validates its calls against the schema.
fn direct_arguments(def: &ToolDef) -> TokenStream {
    if def.sig.args_struct.is_some() || def.sig.plain.iter().any(|param| param.has_own_attrs()) {
        return TokenStream::new();
    }
    let krate = &def.krate;
    let answers = def.sig.plain.iter().map(|param| {
        let ty = &param.ty;
        quote_spanned!(ty.span()=> #krate::__private::Plain::<#ty>::DIRECT)
    });
    quote! {
        const __DIRECT_ARGUMENTS: bool = {
            #[allow(unused_imports)]
            use #krate::__private::NotPlain as _;
            #krate::__private::all_plain(&[#(#answers),*])
        };
    }
}

/// `TypedTool::preview`, when `#[tool(preview = ...)]` names a function: it runs on the
/// blocking pool like a plain `fn` tool, with the state and a reference to the arguments.
fn preview_method(def: &ToolDef) -> TokenStream {
    let Some(path) = &def.attrs.preview else {
        return TokenStream::new();
    };
    let krate = &def.krate;
    // Spanned on the path, so a function of the wrong shape is reported there.
    let (bind_state, call) = match def.owner {
        Owner::Toolset => (
            Some(quote!(let __tool_state = ::core::clone::Clone::clone(&self.0);)),
            quote_spanned!(path.span()=> __tool_state.#path(&__tool_args)),
        ),
        Owner::Free if def.sig.state.is_some() => (
            Some(quote!(let __tool_state = ::core::clone::Clone::clone(&self.state);)),
            quote_spanned!(path.span()=> #path(&*__tool_state, &__tool_args)),
        ),
        Owner::Free => (None, quote_spanned!(path.span()=> #path(&__tool_args))),
    };
    quote! {
        async fn preview(
            &self,
            __tool_args: <Self as #krate::TypedTool>::Args,
        ) -> ::core::option::Option<::std::string::String> {
            #bind_state
            #krate::__private::preview_blocking(move || #call).await
        }
    }
}

/// `ToolMeta::new(name, description)` plus one builder call per stated attribute.
fn meta_expr(def: &ToolDef) -> TokenStream {
    let krate = &def.krate;
    let name = &def.name;
    let description = &def.description;
    let attrs = &def.attrs;
    let mut calls = Vec::new();
    if let Some(title) = &attrs.title {
        calls.push(quote!(.title(#title)));
    }
    let flags = [
        ("read_only", attrs.read_only),
        ("destructive", attrs.destructive),
        ("idempotent", attrs.idempotent),
        ("open_world", attrs.open_world),
        ("strict", attrs.strict),
        ("edits_files", attrs.edits_files),
        ("defer", attrs.defer),
        ("explicit_task_start", attrs.explicit_task_start),
    ];
    for (method, value) in flags {
        if let Some(value) = value {
            let method = syn::Ident::new(method, proc_macro2::Span::call_site());
            calls.push(quote!(.#method(#value)));
        }
    }
    let durations = [("timeout", attrs.timeout), ("cancel_grace", attrs.cancel_grace)];
    for (method, value) in durations {
        if let Some(duration) = value {
            let method = syn::Ident::new(method, proc_macro2::Span::call_site());
            let millis = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
            calls.push(quote!(.#method(::core::time::Duration::from_millis(#millis))));
        }
    }
    let counts = [
        ("retries", attrs.retries),
        ("max_concurrency", attrs.max_concurrency),
    ];
    for (method, value) in counts {
        if let Some(count) = value {
            let method = syn::Ident::new(method, proc_macro2::Span::call_site());
            calls.push(quote!(.#method(#count)));
        }
    }
    if let Some(bytes) = attrs.audit_argument_bytes {
        let bytes = proc_macro2::Literal::usize_unsuffixed(usize::try_from(bytes).unwrap_or(usize::MAX));
        calls.push(quote!(.audit_argument_bytes(#bytes)));
    }
    if let Some(tokens) = attrs.max_result_tokens {
        // A `usize` in the generated code, whatever the target's width.
        let tokens = proc_macro2::Literal::usize_unsuffixed(usize::try_from(tokens).unwrap_or(usize::MAX));
        calls.push(quote!(.max_result_tokens(#tokens)));
    }
    for (argument, variant) in &attrs.kinds {
        let variant = syn::Ident::new(variant, proc_macro2::Span::call_site());
        calls.push(quote!(.argument_kind(#argument, #krate::tool::ArgumentKind::#variant)));
    }
    for (argument, header) in &attrs.headers {
        calls.push(quote!(.header_argument(#argument, #header)));
    }
    if let Some(freeform) = &attrs.freeform {
        calls.push(quote!(.freeform(#freeform)));
    }
    if let Some(variant) = attrs.task {
        let variant = syn::Ident::new(variant, proc_macro2::Span::call_site());
        calls.push(quote!(.task(#krate::tool::TaskSupport::#variant)));
    }
    quote!(#krate::tool::ToolMeta::new(#name, #description) #(#calls)*)
}

/// The body of `run`: call the function (on the blocking pool if it is not `async`) and
/// convert its error. Only what the function uses is bound, so generated code never
/// trips `unused` lints.
fn run_body(def: &ToolDef) -> TokenStream {
    let krate = &def.krate;
    let fn_ident = &def.fn_ident;
    let uses_context = def.sig.params.iter().any(|param| matches!(param, Param::Context));
    let arguments = def.sig.params.iter().map(|param| match param {
        Param::State => quote!(&*__tool_state),
        Param::Context => quote!(__tool_ctx),
        Param::ArgsStruct => quote!(__tool_args),
        Param::Plain(field) => quote!(__tool_args.#field),
    });
    // A free function is called by name, its state in the tool struct's `state` field; a
    // toolset method is called on the toolset, the tool struct's field `0`.
    let call = match def.owner {
        Owner::Free => quote!(#fn_ident(#(#arguments),*)),
        Owner::Toolset => quote!(__tool_state.#fn_ident(#(#arguments),*)),
    };
    let state = match def.owner {
        Owner::Free if def.sig.state.is_some() => Some(quote!(self.state)),
        Owner::Free => None,
        Owner::Toolset => Some(quote!(self.0)),
    };
    let convert = convert_result(def);
    if def.sig.is_async {
        let bind_state = state.map(|state| quote!(let __tool_state = &*#state;));
        return quote! {
            #bind_state
            let __tool_result = #call.await;
            #convert
        };
    }
    let bind_state = state.map(|state| quote!(let __tool_state = ::core::clone::Clone::clone(&#state);));
    let (clone_context, borrow_context) = if uses_context {
        (
            Some(quote!(let __tool_ctx = ::core::clone::Clone::clone(__tool_ctx);)),
            Some(quote!(let __tool_ctx = &__tool_ctx;)),
        )
    } else {
        (None, None)
    };
    quote! {
        #bind_state
        #clone_context
        #krate::__private::run_blocking(move || {
            #borrow_context
            let __tool_result = #call;
            #convert
        })
        .await
    }
}

/// `Ok(value)`, or the function's `Result` with its error converted to `ToolError`.
fn convert_result(def: &ToolDef) -> TokenStream {
    let krate = &def.krate;
    if !def.sig.returns_result {
        return quote!(::core::result::Result::Ok(__tool_result));
    }
    // Spanned on the return type, where an unsupported error type is reported.
    let convert = quote_spanned!(def.sig.return_span=> kind.convert(error));
    quote! {
        match __tool_result {
            ::core::result::Result::Ok(value) => ::core::result::Result::Ok(value),
            ::core::result::Result::Err(error) => {
                #[allow(unused_imports)]
                use #krate::__private::{ViaDisplay as _, ViaInto as _, ViaNothing as _};
                let kind = (&&&#krate::__private::ErrorProbe(&error)).tool_error_kind();
                ::core::result::Result::Err(#convert)
            }
        }
    }
}

/// The argument struct generated from plain parameters; nothing when the function takes
/// its own struct.
pub(crate) fn generated_args_struct(def: &ToolDef) -> TokenStream {
    if def.sig.args_struct.is_some() {
        return TokenStream::new();
    }
    let krate = &def.krate;
    let ident = def.generated_args_ident();
    let vis = &def.vis;
    let serde_path = quote!(#krate::__private::serde).to_string();
    let schemars_path = quote!(#krate::__private::schemars).to_string();
    let doc = format!("Arguments of the `{}` tool.", def.name);
    let fields = def.sig.plain.iter().map(|param| {
        let (attrs, ident, ty) = (&param.attrs, &param.ident, &param.ty);
        let through_library = parameter_attrs(def, param);
        quote!(#(#attrs)* #through_library pub #ident: #ty,)
    });
    quote! {
        #[doc = #doc]
        #[derive(#krate::__private::serde::Deserialize, #krate::__private::schemars::JsonSchema)]
        #[serde(crate = #serde_path, deny_unknown_fields)]
        #[schemars(crate = #schemars_path)]
        #vis struct #ident {
            #(#fields)*
        }
    }
}

/// Routes a plain parameter's field through `__private::{deserialize_parameter,
/// Parameter}`, whose bound carries our message, so a type without `Deserialize` or
/// `JsonSchema` is one error on the parameter's type rather than a page of errors from
/// inside the derives. The field is deserialized and described exactly as without them;
/// an `Option<T>` stays optional and gets no `"default"` in the schema.
///
/// A parameter with `serde` or `schemars` attributes of its own is left to the derives:
/// those attributes may set what these do.
fn parameter_attrs(def: &ToolDef, param: &crate::signature::PlainParam) -> TokenStream {
    if param.has_own_attrs() {
        return TokenStream::new();
    }
    let (krate, ty) = (&def.krate, &param.ty);
    let span = ty.span();
    let deserialize = syn::LitStr::new(
        &quote!(#krate::__private::deserialize_parameter).to_string(),
        span,
    );
    let schema = syn::LitStr::new(&quote!(#krate::__private::Parameter<#ty>).to_string(), span);
    // Without `deserialize_with`, serde reads a missing `Option` as `None` by itself; with
    // it, only a default does. Skipping a `None` keeps schemars from writing the default
    // (`null`) into the schema; the struct is never serialized.
    let optional = is_option(ty).then(
        || quote_spanned!(span=> #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]),
    );
    quote_spanned! {span=>
        #optional
        #[serde(deserialize_with = #deserialize)]
        #[schemars(with = #schema)]
    }
}

/// Whether a type is written `Option<…>` (with or without its path).
fn is_option(ty: &syn::Type) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    path.qself.is_none()
        && path
            .path
            .segments
            .last()
            .is_some_and(|last| last.ident == "Option" && !last.arguments.is_empty())
}

/// A `#[cfg(test)]` test that builds the tool's spec and validator.
pub(crate) fn schema_test(def: &ToolDef) -> TokenStream {
    let krate = &def.krate;
    let struct_ident = &def.struct_ident;
    let test_ident = def.test_ident();
    quote! {
        #[cfg(test)]
        #[test]
        fn #test_ident() {
            #krate::__private::check_tool::<#struct_ident>();
        }
    }
}
