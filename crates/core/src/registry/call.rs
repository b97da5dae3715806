//! A call as the model made it ([`ToolCall`]) and what comes back ([`ToolResult`]).

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::{
    approval::{Approver, PendingCall},
    audit::Outcome,
    caller::Caller,
    context::{Extensions, ProgressReporter},
    dialect::DefinitionOptions,
    output::ToolOutput,
    principal::Principal,
    tool_search::ToolVisibility,
    trace_context::TraceContext,
};

/// The arguments of a call: the JSON text a provider sent (OpenAI sends a string) or an
/// already-parsed value (Anthropic and MCP send an object), or the raw text of a freeform call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolArguments {
    /// JSON text, parsed by the registry.
    Json(String),
    /// A parsed value.
    Value(Value),
    /// The raw text of a freeform call (an OpenAI custom tool call's `input`), which
    /// becomes the string argument the tool's [`Freeform`](crate::tool::Freeform) names.
    Freeform(String),
}

impl From<&str> for ToolArguments {
    fn from(json: &str) -> Self {
        ToolArguments::Json(json.to_owned())
    }
}

impl From<String> for ToolArguments {
    fn from(json: String) -> Self {
        ToolArguments::Json(json)
    }
}

impl From<Value> for ToolArguments {
    fn from(value: Value) -> Self {
        ToolArguments::Value(value)
    }
}

/// One tool call requested by a model.
///
/// ```
/// use std::time::Duration;
/// use agent_tools_core::ToolCall;
///
/// let call = ToolCall::new("call_1", "read_file", r#"{"path": "a.txt"}"#)
///     .with_timeout(Duration::from_secs(5))
///     .with_session_id("chat-42");
/// assert_eq!(call.name(), "read_file");
/// ```
#[derive(Debug, Clone)]
pub struct ToolCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: ToolArguments,
    pub(crate) options: CallOptions,
}

/// Per-call settings beyond id, name and arguments.
#[derive(Clone, Default)]
pub(crate) struct CallOptions {
    pub(crate) timeout: Option<Duration>,
    pub(crate) session_id: Option<Arc<str>>,
    pub(crate) cancellation: Option<CancellationToken>,
    pub(crate) extensions: Option<Extensions>,
    pub(crate) progress: Option<ProgressReporter>,
    pub(crate) caller: Option<Arc<dyn Caller>>,
    pub(crate) approver: Option<Arc<dyn Approver>>,
    pub(crate) principal: Option<Arc<Principal>>,
    /// The client's cap on the result, in characters.
    pub(crate) max_result_chars: Option<usize>,
    /// The trace context the call came with, until the registry replaces it with the
    /// call's own span's.
    pub(crate) trace_context: Option<Arc<TraceContext>>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("session_id", &self.session_id)
            .field("cancellation", &self.cancellation)
            .field("extensions", &self.extensions)
            .field("progress", &self.progress)
            .field("caller", &self.caller.as_ref().map(|_| "dyn Caller"))
            .field("approver", &self.approver.as_ref().map(|_| "dyn Approver"))
            .field("principal", &self.principal)
            .field("max_result_chars", &self.max_result_chars)
            .field("trace_context", &self.trace_context)
            .finish()
    }
}

impl ToolCall {
    /// A call of tool `name` with the provider's call `id`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: impl Into<ToolArguments>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            options: CallOptions::default(),
        }
    }

    /// A call of tool `name` with the raw text of a freeform call: an OpenAI custom tool
    /// call (Responses: `{"type": "custom_tool_call", "call_id", "name", "input"}`; Chat
    /// Completions: `{"type": "custom", "id", "custom": {"name", "input"}}`). The text
    /// fills the argument the tool's [`Freeform`](crate::tool::Freeform) names; a tool
    /// without a freeform form refuses the call.
    ///
    /// ```
    /// use agent_tools_core::{ToolCall, registry::ToolArguments};
    ///
    /// let call = ToolCall::freeform("call_1", "apply_patch", "*** Begin Patch\n*** End Patch\n");
    /// assert!(matches!(call.arguments(), ToolArguments::Freeform(_)));
    /// ```
    pub fn freeform(id: impl Into<String>, name: impl Into<String>, text: impl Into<String>) -> Self {
        Self::new(id, name, ToolArguments::Freeform(text.into()))
    }

    /// The provider's call id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The requested tool name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments as sent.
    pub fn arguments(&self) -> &ToolArguments {
        &self.arguments
    }

    /// Fits this call's result to `chars` characters as well as to its token budget (see
    /// [`ToolRegistryBuilder::max_result_tokens`](super::ToolRegistryBuilder::max_result_tokens)):
    /// a client's own cap, such as the `anthropic/maxResultSizeChars` an MCP request's
    /// `_meta` may carry.
    pub fn with_max_result_chars(mut self, chars: usize) -> Self {
        self.options.max_result_chars = Some(chars);
        self
    }

    /// Overrides the tool's and the registry's timeout for this call.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = Some(timeout);
        self
    }

    /// Names the session this call belongs to (recorded in the audit log and visible to
    /// the tool).
    pub fn with_session_id(mut self, session_id: impl Into<Arc<str>>) -> Self {
        self.options.session_id = Some(session_id.into());
        self
    }

    /// Cancels the call when `token` is cancelled. The tool sees a child token, so a
    /// timeout of this call does not cancel `token`.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.options.cancellation = Some(token);
        self
    }

    /// Per-call state for the tool, looked up before the registry's extensions.
    pub fn with_extensions(mut self, extensions: Extensions) -> Self {
        self.options.extensions = Some(extensions);
        self
    }

    /// The format the caller reads tool definitions in, for tools that answer with some:
    /// the registry's [`tool_search`](crate::tool_search::TOOL_SEARCH) returns the definitions of the
    /// tools it found in this format (MCP's when unset), for the caller's next request.
    /// Kept with the call's [extensions](Self::with_extensions).
    pub fn with_definition_options(mut self, options: DefinitionOptions) -> Self {
        self.options
            .extensions
            .get_or_insert_with(Extensions::new)
            .insert(options);
        self
    }

    /// Makes the call on behalf of a caller that may know of only the tools `visibility`
    /// sees: for this call, the others are as if they were not registered (not found by
    /// [`tool_search`](crate::tool_search::TOOL_SEARCH), not named in an unknown tool's error, not
    /// run). See [`ToolVisibility`]. Kept with the call's
    /// [extensions](Self::with_extensions).
    pub fn with_visibility(mut self, visibility: ToolVisibility) -> Self {
        self.options
            .extensions
            .get_or_insert_with(Extensions::new)
            .insert(visibility);
        self
    }

    /// Where the tool's progress reports go.
    pub fn with_progress(mut self, progress: ProgressReporter) -> Self {
        self.options.progress = Some(progress);
        self
    }

    /// Who answers the tool's log messages, questions and sampling requests for this
    /// call, instead of the registry's [`caller`](crate::registry::ToolRegistryBuilder::caller).
    pub fn with_caller(mut self, caller: Arc<dyn Caller>) -> Self {
        self.options.caller = Some(caller);
        self
    }

    /// Makes the call on behalf of `principal` (an authenticated user): the tool, the
    /// hooks, the approver and the audit log see it. See [`Principal`].
    pub fn with_principal(mut self, principal: Principal) -> Self {
        self.options.principal = Some(Arc::new(principal));
        self
    }

    /// Continues the trace of whoever made the call: the call's span (with a
    /// [tracer](crate::registry::ToolRegistryBuilder::tracer)) starts under `context`, and without
    /// a tracer the tool's outgoing calls carry `context` on. See [`TraceContext`].
    pub fn with_trace_context(mut self, context: TraceContext) -> Self {
        self.options.trace_context = Some(Arc::new(context));
        self
    }

    /// Who decides this call if the [policy](crate::policy::Policy) asks about it, instead of the
    /// registry's [`approver`](crate::registry::ToolRegistryBuilder::approver).
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.options.approver = Some(approver);
        self
    }
}

/// The result of one call; always produced, whatever went wrong.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolResult {
    /// The call id, to pair the result with its call.
    pub call_id: String,
    /// The tool name as called.
    pub name: String,
    /// What to show the model; `output.is_error` is set for every failure.
    pub output: ToolOutput,
    /// How the call ended.
    pub outcome: Outcome,
    /// How long the call took, validation included.
    pub duration: Duration,
    /// Repairs made to the arguments before validation (e.g. arguments sent as a string
    /// containing JSON).
    pub repairs: Vec<String>,
    /// The call waiting for a deferred approval ([`pending`](Self::pending)); boxed, since
    /// results are moved at every step and almost never carry one.
    pub(crate) pending: Option<Box<PendingCall>>,
}

impl ToolResult {
    /// A result made outside a registry, e.g. to render with [`Dialect::tool_result`]
    /// in a test: outcome `Ok` or `Error` as the output says, no duration, no repairs.
    ///
    /// [`Dialect::tool_result`]: crate::dialect::Dialect::tool_result
    pub fn new(call_id: impl Into<String>, name: impl Into<String>, output: ToolOutput) -> Self {
        Self {
            call_id: call_id.into(),
            name: name.into(),
            outcome: if output.is_error {
                Outcome::Error
            } else {
                Outcome::Ok
            },
            output,
            duration: Duration::ZERO,
            repairs: Vec::new(),
            pending: None,
        }
    }

    /// The call waiting for a deferred approval (outcome [`Outcome::Pending`]), if this
    /// result is one: what to keep to decide it with
    /// [`ToolRegistry::resume`](crate::registry::ToolRegistry::resume).
    pub fn pending(&self) -> Option<&PendingCall> {
        self.pending.as_deref()
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.output.is_error
    }

    /// The text parts of the output joined by newlines.
    pub fn text(&self) -> String {
        self.output.text_content()
    }

    /// The definitions of the tools a successful [`tool_search`](crate::tool_search::TOOL_SEARCH)
    /// call found, in the format the call asked for
    /// ([`ToolCall::with_definition_options`]), for an agent loop to add to its next
    /// request; empty for any other result.
    pub fn found_definitions(&self) -> &[Value] {
        if self.name != crate::tool_search::TOOL_SEARCH || self.is_error() {
            return &[];
        }
        self.output
            .structured
            .as_ref()
            .and_then(|structured| structured["tools"].as_array())
            .map_or(&[], Vec::as_slice)
    }
}
