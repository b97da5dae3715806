//! [`DynamicTool`]: a tool defined at run time from a name, a description, a JSON Schema
//! and a closure — for tools loaded from configuration or proxied from elsewhere.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use crate::tool::BoxFuture;
use crate::{
    context::ToolContext,
    error::ToolError,
    output::{IntoToolOutput, ToolOutput},
    spec::{ToolMeta, ToolSpec},
    tool::Tool,
};

type Handler = dyn Fn(Value, ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send + Sync;

/// A tool whose schema is data and whose body is a closure.
///
/// The schema is used as given (it must have an object root; the registry checks it when
/// the tool is registered).
///
/// ```
/// use serde_json::{json, Value};
/// use agent_tools_core::{ToolContext, ToolError, tool::DynamicTool};
///
/// let shout = DynamicTool::new(
///     "shout",
///     "Upper-case a text.",
///     json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
///     |args: Value, _ctx: ToolContext| async move {
///         let text = args["text"].as_str().unwrap_or_default();
///         Ok::<_, ToolError>(text.to_uppercase())
///     },
/// );
/// ```
#[derive(Clone)]
pub struct DynamicTool {
    spec: ToolSpec,
    handler: Arc<Handler>,
}

impl DynamicTool {
    /// A tool named `name` that runs `handler` on its (validated) arguments.
    pub fn new<F, Fut, O>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
        O: IntoToolOutput,
    {
        let meta = ToolMeta::new(name.into(), description.into());
        Self::from_meta(meta, input_schema, handler)
    }

    /// A tool described by `meta` (title, hints, timeout, …) that runs `handler`.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use serde_json::{Value, json};
    /// use agent_tools_core::{ToolContext, ToolError, tool::{DynamicTool, ToolMeta}};
    ///
    /// let meta = ToolMeta::new("wait", "Wait a moment.")
    ///     .idempotent(true)
    ///     .timeout(Duration::from_secs(5));
    /// let schema = json!({"type": "object", "properties": {}});
    /// let wait = DynamicTool::from_meta(meta, schema, |_: Value, _: ToolContext| async {
    ///     Ok::<_, ToolError>("waited")
    /// });
    /// ```
    pub fn from_meta<F, Fut, O>(meta: ToolMeta, input_schema: Value, handler: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
        O: IntoToolOutput,
    {
        let handler = Arc::new(handler);
        Self {
            spec: meta.into_spec(input_schema, None),
            handler: Arc::new(move |arguments, ctx| {
                let handler = handler.clone();
                // The closure runs inside the future, so a panic in it surfaces where the
                // registry catches panics.
                Box::pin(async move {
                    handler(arguments, ctx)
                        .await
                        .map(IntoToolOutput::into_tool_output)
                })
            }),
        }
    }

    /// Declares the schema of the structured output.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.spec.output_schema = Some(schema);
        self
    }
}

impl Tool for DynamicTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, arguments: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        (self.handler)(arguments, ctx)
    }
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}
