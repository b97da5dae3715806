//! [`TypedTool`]: a tool with a typed argument struct — what `#[tool]` generates.
//!
//! The macro only implements this small trait; everything generic (schema generation and
//! caching, deserialization, output conversion) happens here, in the blanket
//! `impl<T: TypedTool> Tool for T` — also deserializing a call's JSON text straight into
//! the arguments, for the tools `#[tool]` marks with `__DIRECT_ARGUMENTS` (`direct/`).

use std::any::TypeId;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{OnceLock, PoisonError, RwLock};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::direct::{self, DirectCall};
use crate::tool::BoxFuture;
use crate::{
    context::ToolContext,
    error::ToolError,
    output::{IntoToolOutput, ToolOutput},
    schema,
    spec::{ToolMeta, ToolSpec},
    tool::Tool,
};

/// A tool whose arguments are a Rust type. Implemented by `#[tool]`; implement it by hand
/// when a macro does not fit.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use agent_tools_core::{ToolContext, ToolError, TypedTool, tool::ToolMeta};
///
/// /// Arguments of `add`.
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs {
///     /// The first addend.
///     a: i64,
///     /// The second addend.
///     b: i64,
/// }
///
/// struct Add;
///
/// impl TypedTool for Add {
///     type Args = AddArgs;
///     type Output = String;
///
///     fn meta() -> ToolMeta {
///         ToolMeta::new("add", "Add two integers.").read_only(true)
///     }
///
///     async fn run(&self, args: AddArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
///         Ok((args.a + args.b).to_string())
///     }
/// }
/// ```
pub trait TypedTool: Send + Sync + 'static {
    /// The argument type; its JSON Schema is the tool's input schema.
    type Args: ToolArgs;
    /// What the tool returns on success.
    type Output: IntoToolOutput + Send + 'static;

    /// Name, description and hints.
    fn meta() -> ToolMeta;

    /// Runs the tool on deserialized arguments.
    fn run(
        &self,
        args: Self::Args,
        ctx: &ToolContext,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;

    /// What a call with `args` would do, for a person asked to approve it; it must change
    /// nothing ([`Tool::preview`]). `#[tool(preview = function)]` implements it.
    fn preview(&self, args: Self::Args) -> impl Future<Output = Option<String>> + Send {
        let _ = args;
        std::future::ready(None)
    }

    /// Not public API: whether the schema of `Args` says nothing its deserialization does
    /// not, so the registry may deserialize a call's JSON text straight into it (see
    /// `direct/mod.rs`). `#[tool]` sets it for the argument structs it generates from
    /// plain parameters of plain types; `false` for every other tool.
    #[doc(hidden)]
    const __DIRECT_ARGUMENTS: bool = false;
}

/// A type that can be a tool's arguments: implemented for every type that derives
/// `Deserialize` and `JsonSchema`.
///
/// The trait carries what the library needs from the argument type as methods (rather
/// than as supertraits), so that a missing derive is reported with the message below.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as tool arguments",
    label = "needs `Deserialize` and `JsonSchema`",
    note = "add `#[derive(serde::Deserialize, schemars::JsonSchema)]` to `{Self}` (serde 1 and schemars 1, the versions agent-tools uses); doc comments on its fields become the argument descriptions"
)]
pub trait ToolArgs: Send + Sized + 'static {
    /// The canonical JSON Schema of the arguments (see [`schema`]).
    fn input_schema() -> Value;

    /// Deserializes validated arguments.
    fn from_arguments(arguments: Value) -> Result<Self, ToolError>;

    /// Not public API: the arguments read straight from a call's JSON text, `None` for
    /// anything short of a clean read (see `direct/mod.rs`). Only asked for the tools
    /// that set `TypedTool::__DIRECT_ARGUMENTS`.
    #[doc(hidden)]
    fn __from_json_text(text: &str) -> Option<Self> {
        let _ = text;
        None
    }
}

// `do_not_recommend` makes the compiler report a missing derive as "cannot be used as tool
// arguments" with the note above, instead of the bare `JsonSchema` bound it comes from.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolArgs for T {
    fn input_schema() -> Value {
        schema::input_schema_for::<T>()
    }

    /// A failure here (custom `Deserialize` logic the schema cannot express) is still the
    /// arguments' fault.
    fn from_arguments(arguments: Value) -> Result<Self, ToolError> {
        serde_json::from_value(arguments).map_err(ToolError::invalid_arguments)
    }

    fn __from_json_text(text: &str) -> Option<Self> {
        direct::from_json_text(text)
    }
}

impl<T: TypedTool> Tool for T {
    fn spec(&self) -> &ToolSpec {
        spec_of::<T>()
    }

    fn call(&self, arguments: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args = T::Args::from_arguments(arguments)?;
            let output = self.run(args, &ctx).await?;
            Ok(output.into_tool_output())
        })
    }

    fn preview(&self, arguments: Value) -> BoxFuture<'_, Option<String>> {
        Box::pin(async move {
            let args = T::Args::from_arguments(arguments).ok()?;
            TypedTool::preview(self, args).await
        })
    }

    fn __takes_direct_arguments(&self) -> bool {
        T::__DIRECT_ARGUMENTS
    }

    fn __direct_call(&self, text: &str) -> Option<DirectCall<'_>> {
        if !T::__DIRECT_ARGUMENTS {
            return None;
        }
        let args = T::Args::__from_json_text(text)?;
        Some(DirectCall::new(args, move |args, ctx| async move {
            let output = self.run(args, &ctx).await?;
            Ok(output.into_tool_output())
        }))
    }
}

/// The spec of a typed tool, built on first use and kept for the life of the process (one
/// per tool type, so the memory is bounded by the program's tool types).
fn spec_of<T: TypedTool>() -> &'static ToolSpec {
    // foldhash, not SipHash: this is looked up at every call of a typed tool, and its keys
    // are the program's own types.
    type Specs = HashMap<TypeId, &'static ToolSpec, foldhash::fast::RandomState>;
    static SPECS: OnceLock<RwLock<Specs>> = OnceLock::new();
    let specs = SPECS.get_or_init(Default::default);
    let key = TypeId::of::<T>();
    if let Some(spec) = specs.read().unwrap_or_else(PoisonError::into_inner).get(&key) {
        return spec;
    }
    // Built without holding the lock, which schema generation would keep for a long time;
    // two threads racing here only build the same spec twice.
    let built = build_spec::<T>();
    let mut specs = specs.write().unwrap_or_else(PoisonError::into_inner);
    specs.entry(key).or_insert_with(|| Box::leak(Box::new(built)))
}

///
/// Descriptions written as doc comments are rejoined where the comment was wrapped.
pub(crate) fn build_spec<T: TypedTool>() -> ToolSpec {
    let mut meta = T::meta();
    meta.description = crate::soft_breaks::unwrap_soft_breaks(&meta.description);
    meta.into_spec(
        T::Args::input_schema(),
        <T::Output as IntoToolOutput>::output_schema(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema)]
    struct EchoArgs {
        text: String,
    }

    struct Echo;

    impl TypedTool for Echo {
        type Args = EchoArgs;
        type Output = String;

        fn meta() -> ToolMeta {
            ToolMeta::new("echo", "Echo text.")
        }

        async fn run(&self, args: EchoArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
            Ok(args.text)
        }
    }

    #[tokio::test]
    async fn typed_tools_are_tools() {
        let tool: &dyn Tool = &Echo;
        assert_eq!(tool.spec().meta.name, "echo");
        assert!(std::ptr::eq(tool.spec(), Echo.spec()), "spec is cached");
        let output = tool
            .call(serde_json::json!({"text": "hi"}), ToolContext::new("1"))
            .await
            .unwrap();
        assert_eq!(output.text_content(), "hi");
    }

    #[tokio::test]
    async fn undeserializable_arguments_blame_the_arguments() {
        let error = Echo
            .call(serde_json::json!({"text": 5}), ToolContext::new("1"))
            .await
            .unwrap_err();
        assert_eq!(error.kind(), crate::error::ToolErrorKind::InvalidArguments);
    }
}
