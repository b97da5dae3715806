//! [`DynamicTool`]: a tool defined at run time from a name, a description, a JSON Schema
//! and a closure — for tools loaded from configuration or proxied from elsewhere.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::tool::BoxFuture;
use crate::{IntoToolOutput, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

type Handler = dyn Fn(Value, ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send + Sync;

/// A tool whose schema is data and whose body is a closure.
///
/// The schema is used as given (it must have an object root; the registry checks it when
/// the tool is registered).
///
/// ```
/// use serde_json::{json, Value};
/// use tool_core::{DynamicTool, ToolContext, ToolError};
///
/// let shout = DynamicTool::new(
///     "shout",
///     "Upper-case a text.",
///     json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
///     |args: Value, _ctx: ToolContext| async move {
///         let text = args["text"].as_str().unwrap_or_default();
///         Ok::<_, ToolError>(text.to_uppercase())
///     },
/// )
/// .read_only(true);
/// ```
#[derive(Clone)]
pub struct DynamicTool {
    spec: ToolSpec,
    handler: Arc<Handler>,
}

impl DynamicTool {
    /// A tool that runs `handler` on its (validated) arguments.
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
        let handler = Arc::new(handler);
        Self {
            spec: ToolSpec::new(name, description, input_schema),
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

    /// Sets the human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.spec.annotations.title = Some(title.into());
        self
    }

    /// States whether the tool only reads.
    pub fn read_only(mut self, yes: bool) -> Self {
        self.spec.annotations.read_only = Some(yes);
        self
    }

    /// States whether the tool may destroy data.
    pub fn destructive(mut self, yes: bool) -> Self {
        self.spec.annotations.destructive = Some(yes);
        self
    }

    /// States whether repeating a call has no further effect.
    pub fn idempotent(mut self, yes: bool) -> Self {
        self.spec.annotations.idempotent = Some(yes);
        self
    }

    /// States whether the tool talks to the outside world.
    pub fn open_world(mut self, yes: bool) -> Self {
        self.spec.annotations.open_world = Some(yes);
        self
    }

    /// Asks providers to enforce the schema strictly.
    pub fn strict(mut self, yes: bool) -> Self {
        self.spec.strict = yes;
        self
    }

    /// Sets the tool's own timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.spec.timeout = Some(timeout);
        self
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
