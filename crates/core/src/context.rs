//! [`ToolContext`]: what a running tool may know about its call besides its arguments.

pub use crate::principal::Principal;
pub use tokio_util::sync::CancellationToken;

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::{self, Either};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::{
    audit::AuditDetails,
    call_state::{CallCancellation, CallState},
    caller::{
        Caller, CallerError, ElicitAction, ElicitRequest, ElicitResponse, Elicited, InputRequest,
        InputResponse, LogLevel, LogMessage, Root, SamplingRequest, SamplingResponse,
    },
    tokens::ResultBudget,
    trace_context::TraceContext,
};

/// The call a tool is running for: ids, cancellation, deadline, application state, a
/// progress channel, and its [`Caller`] — to log to, ask the user ([`elicit`](Self::elicit))
/// or ask the caller's model ([`sample`](Self::sample)).
///
/// The registry builds one per call. Tools that run long should watch
/// [`cancelled`](Self::cancelled) (or pass the token on) so a timeout or a client's cancel
/// stops their work, not just the wait for it. A question to the user waits for a human:
/// give a tool that elicits a timeout long enough for one (`#[tool(timeout = "5m")]`).
#[derive(Clone, Default)]
pub struct ToolContext {
    session_id: Option<Arc<str>>,
    /// Cancelled when the call's session ends; `None` outside a registry.
    session_end: Option<Arc<CancellationToken>>,
    /// The call's id and cancellation, shared with the registry running it.
    call: Arc<CallState>,
    deadline: Option<Instant>,
    extensions: Extensions,
    call_extensions: Option<Extensions>,
    progress: Option<ProgressReporter>,
    caller: Option<Arc<dyn Caller>>,
    tool_name: Option<Arc<str>>,
    principal: Option<Arc<Principal>>,
    trace_context: Option<Arc<TraceContext>>,
    result_budget: Option<ResultBudget>,
    /// Where [`audit_detail`](Self::audit_detail) records, when the call is audited.
    audit_details: Option<AuditDetails>,
}

impl ToolContext {
    /// A context for a call with the given id and nothing else; for calling tools directly
    /// (tests, custom dispatchers).
    pub fn new(call_id: impl Into<Arc<str>>) -> Self {
        let call_id: Arc<str> = call_id.into();
        Self {
            call: Arc::new(CallState::new(&call_id, CallCancellation::default())),
            ..Self::default()
        }
    }

    /// The context of a call the registry runs, built in one step: `new` would allocate
    /// a default cancellation and extension map only to replace them.
    pub(crate) fn for_call(call: CallParts) -> Self {
        Self {
            session_id: call.session_id,
            session_end: Some(call.session_end),
            call: call.call,
            deadline: call.deadline,
            extensions: call.extensions,
            call_extensions: call.call_extensions,
            progress: call.progress,
            caller: call.caller,
            tool_name: Some(call.tool_name),
            principal: call.principal,
            trace_context: call.trace_context,
            result_budget: call.result_budget,
            audit_details: call.audit_details,
        }
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, session_id: impl Into<Arc<str>>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }

    /// Uses `token` as the end of the call's session ([`session_ended`](Self::session_ended)),
    /// for calling tools directly.
    pub fn with_session_end(mut self, token: CancellationToken) -> Self {
        self.session_end = Some(Arc::new(token));
        self
    }

    /// Uses this cancellation token.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        let cancellation = CallCancellation::of_token(token);
        self.call = Arc::new(CallState::new(self.call.id(), cancellation));
        self
    }

    /// Sets the deadline.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Sets the application state tools can ask for with [`extension`](Self::extension).
    pub fn with_extensions(mut self, extensions: Extensions) -> Self {
        self.extensions = extensions;
        self
    }

    /// Adds per-call state, looked up before the registry-wide extensions.
    #[cfg(test)]
    pub(crate) fn with_call_extensions(mut self, extensions: Option<Extensions>) -> Self {
        self.call_extensions = extensions;
        self
    }

    /// Sets where progress reports go.
    pub fn with_progress(mut self, progress: ProgressReporter) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Sends logs, questions and sampling requests to `caller`.
    pub fn with_caller(mut self, caller: Arc<dyn Caller>) -> Self {
        self.caller = Some(caller);
        self
    }

    /// Adds `value` under `key` to the call's audit record
    /// ([`AuditEvent::details`](crate::audit::AuditEvent::details)), replacing an earlier
    /// value of that key: facts only the tool knows, such as the connections a command
    /// made. Name the key after what it holds (`network`); a later call with the same key
    /// replaces the value, so record a whole list at once. Does nothing when the call is
    /// not audited (no sinks, or a context built outside a registry).
    pub fn audit_detail(&self, key: &str, value: serde_json::Value) {
        if let Some(details) = &self.audit_details {
            details.insert(key, value);
        }
    }

    /// Who the call is made for, when the transport authenticated a user (see
    /// [`Principal`]).
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.as_deref()
    }

    /// What the call's result may take of the model's context, when something limits it
    /// (see [`ToolRegistryBuilder::max_result_tokens`](crate::registry::ToolRegistryBuilder::max_result_tokens)).
    /// The registry fits the result to it in any case; a tool that pages its output can
    /// size its pages by it ([`ResultBudget::text_bytes`]) and say itself where to go on.
    pub fn result_budget(&self) -> Option<&ResultBudget> {
        self.result_budget.as_ref()
    }

    /// Sets the call's result budget (see [`result_budget`](Self::result_budget)); for
    /// calling tools directly.
    pub fn with_result_budget(mut self, budget: Option<ResultBudget>) -> Self {
        self.result_budget = budget;
        self
    }

    /// Where this call sits in a distributed trace: its span's context when the registry
    /// traces calls ([`CallTracer`](crate::tracer::CallTracer)), else the context the call came
    /// with. A tool that calls another service passes it on (as `traceparent`), so the
    /// trace continues there; a mounted MCP server's calls do.
    pub fn trace_context(&self) -> Option<&TraceContext> {
        self.trace_context.as_deref()
    }

    /// Sets the trace context, for calling tools directly.
    pub fn with_trace_context(mut self, context: TraceContext) -> Self {
        self.trace_context = Some(Arc::new(context));
        self
    }

    /// The name the tool was called by, when a registry runs the call.
    pub fn tool_name(&self) -> Option<&str> {
        self.tool_name.as_deref()
    }

    /// The session this call belongs to, if the application named one.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// A token cancelled when this call's session ends: when the application calls
    /// [`ToolRegistry::end_session`](crate::ToolRegistry::end_session) for it (the MCP
    /// server does when a client's session ends), or when the registry is dropped. Calls
    /// without a session share one token that only the registry's end cancels. A tool
    /// that keeps something for the session after the call returns (a background process,
    /// an open connection) watches it to let that go.
    ///
    /// The token is the session's child: cancelling it ends nothing but itself. Outside
    /// a registry (a context from [`new`](Self::new)) it is never cancelled, unless
    /// [`with_session_end`](Self::with_session_end) gave one.
    pub fn session_ended(&self) -> CancellationToken {
        self.session_end
            .as_ref()
            .map_or_else(CancellationToken::new, |token| token.child_token())
    }

    /// The provider's id for this call (e.g. `call_abc123`).
    pub fn call_id(&self) -> &str {
        self.call.id()
    }

    /// The call's cancellation token; cancelled on timeout or when the caller cancels.
    pub fn cancellation(&self) -> &CancellationToken {
        self.call.cancellation().token()
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.call.cancellation().is_cancelled()
    }

    /// Completes when the call is cancelled; use in `tokio::select!`.
    pub async fn cancelled(&self) {
        self.cancellation().cancelled().await;
    }

    /// When the call times out, if it has a timeout.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Time left before the deadline (zero once it has passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|deadline| deadline.saturating_duration_since(Instant::now()))
    }

    /// Whether the registry's policy resolved this call's path arguments (those of kind
    /// [`WorkspacePath`](crate::spec::ArgumentKind::WorkspacePath) that a rule looked at) before
    /// the call ran: each now names where it lands, relative to the workspace, with the
    /// links on the way already followed. A tool should then open such a path following
    /// no link, so that a link swapped in since the decision cannot redirect it.
    pub fn paths_pinned(&self) -> bool {
        self.call_extensions
            .as_ref()
            .is_some_and(|extensions| extensions.get::<PathsPinned>().is_some())
    }

    /// The provider format the call's result goes to, when the caller said
    /// ([`ToolCall::with_definition_options`](crate::registry::ToolCall::with_definition_options),
    /// or [`DefinitionOptions`](crate::dialect::DefinitionOptions) among the registry's
    /// extensions). A tool that shapes its output for the provider — an image scaled to
    /// what the provider accepts — reads it here; `None` means nobody said, and the output
    /// should suit every provider.
    ///
    /// ```
    /// use agent_tools_core::{Dialect, ToolContext, context::Extensions, dialect::DefinitionOptions};
    ///
    /// let mut extensions = Extensions::new();
    /// extensions.insert(DefinitionOptions::new(Dialect::Anthropic));
    /// let ctx = ToolContext::new("call_1").with_extensions(extensions);
    /// assert_eq!(ctx.dialect(), Some(Dialect::Anthropic));
    /// assert_eq!(ToolContext::new("call_2").dialect(), None);
    /// ```
    pub fn dialect(&self) -> Option<crate::dialect::Dialect> {
        self.extension::<crate::dialect::DefinitionOptions>()
            .map(|options| options.dialect)
    }

    /// Application state of type `T`, from the call or else the registry.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.call_extensions
            .as_ref()
            .and_then(Extensions::get::<T>)
            .or_else(|| self.extensions.get::<T>())
    }

    /// Reports progress to whoever asked for it (e.g. an MCP client); a no-op otherwise.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(reporter) = &self.progress {
            reporter.report(Progress {
                progress,
                total,
                message: message.map(str::to_owned),
            });
        }
    }
}

/// Talking to the caller: logging, elicitation, sampling.
impl ToolContext {
    /// Logs `message` at `level`: a `tracing` event (target `agent_tools_core::tool_log`, with
    /// the tool's name and call id) and a message to the caller — for an MCP client a
    /// `notifications/message`, sent if the client's `logging/setLevel` lets it through.
    pub fn log(&self, level: LogLevel, message: impl Into<String>) {
        let mut message = LogMessage::new(level, message.into());
        message.logger = self.tool_name.as_deref().map(str::to_owned);
        self.log_message(message);
    }

    /// Logs a message built by the caller of this method (any JSON as data, an own
    /// logger name); see [`log`](Self::log).
    pub fn log_message(&self, message: LogMessage) {
        trace_log(&message, self.call_id());
        if let Some(caller) = &self.caller {
            caller.log(message);
        }
    }

    /// Asks the user to fill in a form for `T` (a struct of strings, numbers, booleans
    /// and enums; see [`form_schema_for`](crate::caller::form_schema_for)), and waits for the
    /// answer, which is deserialized into `T`.
    ///
    /// ```
    /// use schemars::JsonSchema;
    /// use serde::Deserialize;
    /// use agent_tools_core::{ToolContext, ToolError, caller::Elicited};
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Confirm {
    ///     /// Really delete the branch?
    ///     proceed: bool,
    /// }
    ///
    /// async fn delete_branch(ctx: &ToolContext, branch: &str) -> Result<String, ToolError> {
    ///     let question = format!("Delete the branch `{branch}`?");
    ///     match ctx.elicit::<Confirm>(question).await? {
    ///         Elicited::Accepted(Confirm { proceed: true }) => Ok(format!("deleted {branch}")),
    ///         _ => Ok("the user chose not to delete it".to_owned()),
    ///     }
    /// }
    /// ```
    ///
    /// Fails with [`CallerError::NotAvailable`] when nobody can answer,
    /// [`CallerError::UnsupportedForm`] when `T` cannot be a form, and
    /// [`CallerError::Cancelled`] when the call ends first.
    pub async fn elicit<T: JsonSchema + DeserializeOwned>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, CallerError> {
        let form = crate::caller::form_schema_for::<T>()?;
        let response = self.elicit_request(ElicitRequest::form(message, form)).await?;
        match response.action {
            ElicitAction::Accept => {
                let content = serde_json::Value::Object(response.content.unwrap_or_default());
                serde_json::from_value(content)
                    .map(Elicited::Accepted)
                    .map_err(|source| CallerError::InvalidAnswer { source })
            }
            ElicitAction::Decline => Ok(Elicited::Declined),
            ElicitAction::Cancel => Ok(Elicited::Cancelled),
        }
    }

    /// Sends a question as it is — a form with a hand-written schema, or a URL — and
    /// waits for the answer.
    pub async fn elicit_request(&self, request: ElicitRequest) -> Result<ElicitResponse, CallerError> {
        let caller = self.caller("ask the user (elicitation)")?;
        self.unless_cancelled(caller.elicit(request)).await
    }

    /// Asks the caller's model to write the next message of `request`'s conversation.
    pub async fn sample(&self, request: SamplingRequest) -> Result<SamplingResponse, CallerError> {
        let caller = self.caller("ask its model (sampling)")?;
        self.unless_cancelled(caller.sample(request)).await
    }

    /// Asks for the client's roots, the directories or files it works in.
    pub async fn list_roots(&self) -> Result<Vec<Root>, CallerError> {
        let caller = self.caller("list its roots")?;
        self.unless_cancelled(caller.list_roots()).await
    }

    /// Asks the question named `key` and waits for the answer.
    ///
    /// The name is how the answer finds its way back when it comes in a later request:
    /// served over MCP 2026-07-28 without a session, a call that asks ends with an
    /// input-required result listing its questions by name, and the client calls again
    /// with the answers, which this returns when the tool asks again. The tool runs from
    /// its start each time, so what it did before asking is done again: keep the result
    /// of a step that must not be repeated with [`remember`](Self::remember). Names are
    /// the tool's own; use the same name for the same question on every run.
    ///
    /// ```
    /// use agent_tools_core::{ToolContext, ToolError, caller::{ElicitRequest, InputRequest, InputResponse}};
    /// use serde_json::json;
    ///
    /// async fn greet(ctx: &ToolContext) -> Result<String, ToolError> {
    ///     let form = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    ///     let question = InputRequest::Elicit(ElicitRequest::form("What is your name?", form));
    ///     match ctx.ask("user_name", question).await? {
    ///         InputResponse::Elicit(answer) => {
    ///             let name = answer.content.and_then(|c| c.get("name").cloned());
    ///             Ok(format!("Hello, {}!", name.and_then(|n| n.as_str().map(str::to_owned)).unwrap_or_default()))
    ///         }
    ///         _ => Err(ToolError::new("the caller answered another question")),
    ///     }
    /// }
    /// ```
    pub async fn ask(&self, key: &str, request: InputRequest) -> Result<InputResponse, CallerError> {
        let caller = self.caller(request.what())?;
        self.unless_cancelled(caller.ask(key, request)).await
    }

    /// Runs the step named `key` once per call: when the call runs again (after its
    /// caller answered an input-required result, see [`ask`](Self::ask)) the value the
    /// step produced the first time is returned instead of running it again. Where no
    /// caller keeps values (most callers: a call runs once), the step simply runs.
    ///
    /// The value travels with the call's state to the client and back, sealed: keep it
    /// small (an id, a receipt), not a file's contents. A value that no longer
    /// deserializes as `T` (the tool changed) runs the step again.
    pub async fn remember<T, F>(&self, key: &str, step: F) -> Result<T, crate::error::ToolError>
    where
        T: serde::Serialize + DeserializeOwned,
        F: Future<Output = Result<T, crate::error::ToolError>>,
    {
        if let Some(kept) = self.caller.as_ref().and_then(|caller| caller.recall(key))
            && let Ok(value) = serde_json::from_value(kept)
        {
            return Ok(value);
        }
        let value = step.await?;
        if let Some(caller) = &self.caller
            && let Ok(json) = serde_json::to_value(&value)
        {
            caller.keep(key, json);
        }
        Ok(value)
    }

    /// Goes on as a task from here, for a tool that starts its task itself
    /// ([`ToolMeta::explicit_task_start`](crate::tool::ToolMeta::explicit_task_start)):
    /// what the call asked so far was answered within its request (an input-required
    /// round trip), and now the client gets a task and the rest runs in the background —
    /// from the tool's start again, with the answers, as every round does (see
    /// [`ask`](Self::ask)). Returns at once where the call does not become a task (it
    /// runs within its request, or is a task already).
    pub async fn start_task(&self) -> Result<(), CallerError> {
        match &self.caller {
            Some(caller) => self.unless_cancelled(caller.start_task()).await,
            None => Ok(()),
        }
    }

    fn caller(&self, what: &str) -> Result<&Arc<dyn Caller>, CallerError> {
        self.caller
            .as_ref()
            .ok_or_else(|| CallerError::not_available(what))
    }

    /// `answer`, or [`CallerError::Cancelled`] if the call ends first (dropping `answer`,
    /// which withdraws the request).
    async fn unless_cancelled<T>(
        &self,
        answer: impl Future<Output = Result<T, CallerError>>,
    ) -> Result<T, CallerError> {
        let answer = std::pin::pin!(answer);
        let cancelled = std::pin::pin!(self.cancelled());
        match future::select(answer, cancelled).await {
            Either::Left((answer, _)) => answer,
            Either::Right(((), _)) => Err(CallerError::Cancelled),
        }
    }
}

/// The `tracing` event of a tool's log message, at the nearest `tracing` level.
fn trace_log(message: &LogMessage, call_id: &str) {
    let tool = message.logger.as_deref().unwrap_or("");
    let data = &message.data;
    match message.level {
        LogLevel::Debug => tracing::debug!(target: "agent_tools_core::tool_log", tool, call_id, %data),
        LogLevel::Info | LogLevel::Notice => {
            tracing::info!(target: "agent_tools_core::tool_log", tool, call_id, %data)
        }
        LogLevel::Warning => tracing::warn!(target: "agent_tools_core::tool_log", tool, call_id, %data),
        LogLevel::Error | LogLevel::Critical | LogLevel::Alert | LogLevel::Emergency => {
            tracing::error!(target: "agent_tools_core::tool_log", tool, call_id, %data)
        }
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("session_id", &self.session_id)
            .field("call_id", &self.call_id())
            .field("cancelled", &self.is_cancelled())
            .field("deadline", &self.deadline)
            .field("principal", &self.principal)
            .finish_non_exhaustive()
    }
}

/// What the registry knows of a call when it builds the call's context
/// ([`ToolContext::for_call`]).
/// In a call's extensions when the policy pinned its paths ([`ToolContext::paths_pinned`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathsPinned;

pub(crate) struct CallParts {
    pub(crate) session_id: Option<Arc<str>>,
    pub(crate) session_end: Arc<CancellationToken>,
    pub(crate) call: Arc<CallState>,
    pub(crate) tool_name: Arc<str>,
    pub(crate) deadline: Option<Instant>,
    pub(crate) extensions: Extensions,
    pub(crate) call_extensions: Option<Extensions>,
    pub(crate) progress: Option<ProgressReporter>,
    pub(crate) caller: Option<Arc<dyn Caller>>,
    pub(crate) principal: Option<Arc<Principal>>,
    pub(crate) trace_context: Option<Arc<TraceContext>>,
    pub(crate) result_budget: Option<ResultBudget>,
    pub(crate) audit_details: Option<AuditDetails>,
}

/// A typed map of application state (database pools, clients, configuration) that tools
/// read through [`ToolContext::extension`]. Cheap to clone.
///
/// ```
/// use agent_tools_core::context::Extensions;
///
/// struct ApiBase(String);
/// let mut extensions = Extensions::new();
/// extensions.insert(ApiBase("https://example.test".into()));
/// assert_eq!(extensions.get::<ApiBase>().unwrap().0, "https://example.test");
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    /// Hashed with foldhash, not SipHash: a call looks values up by type several times,
    /// and the keys are the program's own types, which no input can choose.
    map: Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>, foldhash::fast::RandomState>>,
}

impl Extensions {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores a value, replacing any earlier value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(&mut self.map).insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if stored.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.map.len())
            .finish()
    }
}

/// One progress report from a running tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Work done so far, in the tool's units; increases with each report.
    pub progress: f64,
    /// Total work, when known.
    pub total: Option<f64>,
    /// What the tool is doing.
    pub message: Option<String>,
}

/// Receives a call's [`Progress`] reports.
#[derive(Clone)]
pub struct ProgressReporter(Arc<dyn Fn(Progress) + Send + Sync>);

impl ProgressReporter {
    /// Sends reports to `sink`.
    pub fn new(sink: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        Self(Arc::new(sink))
    }

    fn report(&self, progress: Progress) {
        (self.0)(progress);
    }
}

impl fmt::Debug for ProgressReporter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressReporter")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn call_extensions_shadow_registry_extensions() {
        let mut registry = Extensions::new();
        registry.insert(1_u32);
        registry.insert("registry");
        let mut call = Extensions::new();
        call.insert(2_u32);
        let ctx = ToolContext::new("c1")
            .with_extensions(registry)
            .with_call_extensions(Some(call));
        assert_eq!(ctx.extension::<u32>(), Some(&2));
        assert_eq!(ctx.extension::<&str>(), Some(&"registry"));
        assert_eq!(ctx.extension::<u64>(), None);
    }

    #[test]
    fn the_dialect_comes_from_the_definition_options() {
        use crate::dialect::{DefinitionOptions, Dialect};
        let mut registry = Extensions::new();
        registry.insert(DefinitionOptions::new(Dialect::Gemini));
        let mut call = Extensions::new();
        call.insert(DefinitionOptions::new(Dialect::OpenAiResponses));
        let both = ToolContext::new("c1")
            .with_extensions(registry.clone())
            .with_call_extensions(Some(call));
        assert_eq!(both.dialect(), Some(Dialect::OpenAiResponses));
        let registry_only = ToolContext::new("c2").with_extensions(registry);
        assert_eq!(registry_only.dialect(), Some(Dialect::Gemini));
        assert_eq!(ToolContext::new("c3").dialect(), None);
    }

    #[test]
    fn progress_goes_to_the_reporter() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let ctx = ToolContext::new("c1").with_progress(ProgressReporter::new(move |p| {
            sink.lock().unwrap().push(p);
        }));
        ctx.report_progress(1.0, Some(2.0), Some("half"));
        ToolContext::new("c2").report_progress(1.0, None, None);
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].message.as_deref(), Some("half"));
    }

    #[test]
    fn remaining_time_never_goes_negative() {
        let ctx = ToolContext::new("c").with_deadline(Instant::now());
        assert_eq!(ctx.remaining(), Some(Duration::ZERO));
        assert_eq!(ToolContext::new("c").remaining(), None);
    }
}
