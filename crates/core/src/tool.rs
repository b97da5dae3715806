//! What a tool is: the object-safe [`Tool`] trait a registry holds, the typed form
//! `#[tool]` generates ([`TypedTool`]), a tool defined at run time ([`DynamicTool`]),
//! what a tool declares about itself ([`ToolMeta`], [`ToolSpec`]) and groups of tools
//! ([`Toolset`]).

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::direct::DirectCall;
use crate::{context::ToolContext, error::ToolError, output::ToolOutput};

pub use crate::dynamic::DynamicTool;
pub use crate::spec::{
    ArgumentKind, Freeform, FreeformFormat, TaskSupport, ToolAnnotations, ToolMeta, ToolNameError, ToolSpec,
    validate_tool_name,
};
pub use crate::toolset::Toolset;
pub use crate::typed::{ToolArgs, TypedTool};

/// A boxed, sendable future, as returned by [`Tool::call`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A tool a model can call: a spec plus a way to run it on JSON arguments.
///
/// Object-safe, so a registry holds `Arc<dyn Tool>`. Rarely implemented by hand:
/// `#[tool]` implements [`TypedTool`], which implements `Tool`, and
/// [`DynamicTool`] covers tools defined at run time.
///
/// `call` receives arguments that the registry has already checked against
/// `spec().input_schema`; timeouts, cancellation and panics are the registry's job too.
pub trait Tool: Send + Sync + 'static {
    /// Name, description, schemas and hints.
    fn spec(&self) -> &ToolSpec;

    /// Runs the tool.
    fn call(&self, arguments: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>>;

    /// What a call with these (validated) arguments would do, for a person deciding
    /// whether to allow it — `write_file` and `edit_file` show the diff they would apply.
    /// Called only when the [policy](crate::policy::Policy) asks about a call, before the
    /// [approver](crate::approval::Approver) sees it; it must change nothing. `None` (the default):
    /// the person sees the arguments alone.
    fn preview(&self, arguments: Value) -> BoxFuture<'_, Option<String>> {
        let _ = arguments;
        Box::pin(std::future::ready(None))
    }

    /// Not public API: whether [`__direct_call`](Self::__direct_call) may answer, read
    /// once when the tool is registered. Only typed tools whose schema says nothing their
    /// argument type does not (`direct/mod.rs`) answer `true`.
    #[doc(hidden)]
    fn __takes_direct_arguments(&self) -> bool {
        false
    }

    /// Not public API: the call with its arguments deserialized straight from `text`,
    /// without the parsed value and the schema; `None` when the tool does not take its
    /// arguments so or `text` is not read cleanly (the registry then validates as usual).
    #[doc(hidden)]
    fn __direct_call(&self, text: &str) -> Option<DirectCall<'_>> {
        let _ = text;
        None
    }
}
