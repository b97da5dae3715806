//! [`McpHandler`]: a [`ToolRegistry`] as an rmcp server handler.
//!
//! The handler adds no behaviour of its own to a call: `tools/call` goes through
//! [`ToolRegistry::call`], so validation, timeouts, panic isolation and the audit log
//! are the registry's. It only translates: definitions from [`Dialect::Mcp`], results
//! through [`Dialect::tool_result`], the request's cancellation token and progress token
//! into the call, and registry changes into `notifications/tools/list_changed`. Each call
//! gets the client as its [`Caller`] ([`ClientCaller`]), so a tool's
//! log messages, questions and sampling requests reach the client. With deferred tools,
//! what a session's `tool_search` calls found joins that session's list
//! ([`LoadedTools`]). Served with OAuth, each request's principal and the tools its
//! token reaches ([`Authorized`]) go with the call: the list, the search's results and an
//! unknown tool's error show only those tools.

use std::sync::Arc;

use std::ops::ControlFlow;

use agent_tools_core::caller::Caller;
use agent_tools_core::task::{MemoryTaskStore, TaskCall, Tasks};
use agent_tools_core::tool::TaskSupport;
use agent_tools_core::{
    Dialect, ToolCall, ToolRegistry, ToolResult, audit::Outcome, dialect::DefinitionOptions,
    registry::ToolChanges, search::ToolVisibility, trace::TraceContext,
};
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
    CreateTaskResult, GetTaskParams, GetTaskResult, Implementation, InputRequiredResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ResourceContents, ResourcesCapability, ServerCapabilities, ServerConfig,
    SubscriptionFilter, ToolsCapability, UpdateTaskParams,
};
use rmcp::service::{MaybeSendFuture, NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::authorized::Authorized;
use super::client_caller::{ClientCaller, SessionLogLevel};
use super::input_round::{InputRound, RoundEnd, run_round, wire_request};
use super::loaded_tools::LoadedTools;
use super::notify::Notifier;
use super::request_state::{Binding, RoundState, StateSeal};
use super::task_requests;
use super::task_runner::TaskRunner;
use crate::wire::{self, caller, tools};

/// Serves the tools of a [`ToolRegistry`] to MCP clients.
///
/// [`serve_stdio`](crate::serve_stdio) and [`serve_http`](crate::serve_http) build one
/// with defaults; build it yourself to name the server or give clients instructions,
/// then hand it to [`McpHandler::serve_stdio`] / [`McpHandler::serve_http`] (or to any
/// rmcp transport):
///
/// ```no_run
/// # async fn example() -> Result<(), agent_tools_mcp::ServeError> {
/// use agent_tools_core::ToolRegistry;
/// use agent_tools_mcp::McpHandler;
///
/// let registry = ToolRegistry::new();
/// McpHandler::new(registry)
///     .server_info("my-agent-tools", "1.2.0")
///     .instructions("Paths are relative to the project root.")
///     .serve_stdio()
///     .await
/// # }
/// ```
#[derive(Clone)]
pub struct McpHandler {
    registry: ToolRegistry,
    config: Arc<ServerConfig>,
    /// Made with the handler, so a watcher started later still wakes for a change made
    /// between a client's handshake and its watcher starting: a client may get one
    /// notification too many, never one too few.
    changes: ToolChanges,
    /// Cancelled when the session's last handle is dropped (rmcp drops its handler when
    /// the session ends), which ends the session's list-change watcher; otherwise every
    /// finished session would leave a task waiting for the next change. It also ends the
    /// session in the registry, so tools let go of what they kept for it.
    session: Arc<SessionEnd>,
    /// The client's `logging/setLevel`, for every call of the session.
    log_level: Arc<SessionLogLevel>,
    /// Deferred tools the session's searches found, listed to it from then on.
    loaded: Arc<LoadedTools>,
    /// Served without sessions: nothing reaches a client outside its own request.
    stateless: bool,
    /// Seals the `requestState` of input-required results (MCP 2026-07-28).
    request_state: Arc<StateSeal>,
    /// How long a 2026-07-28 client may keep a tool list (`ttlMs`).
    list_ttl: std::time::Duration,
    /// Runs the calls that became tasks (MCP's tasks extension).
    tasks: Arc<TaskRunner>,
}

/// Cancels its token on drop, and ends the session the handler stamps on its calls
/// ([`ToolRegistry::end_session`]): over HTTP when the client's session ends (a `DELETE`,
/// or the session expiring), over stdio when the connection closes.
struct SessionEnd(CancellationToken, agent_tools_core::registry::WeakToolRegistry);

impl Drop for SessionEnd {
    fn drop(&mut self) {
        self.0.cancel();
        if let Some(registry) = self.1.upgrade()
            && let Some(session) = registry.session_id()
        {
            registry.end_session(session);
        }
    }
}

impl McpHandler {
    /// A handler for `registry`, named `agent-tools` with this crate's version.
    #[allow(deprecated)] // Logging: see `client_caller`.
    pub fn new(registry: ToolRegistry) -> Self {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_logging()
            .enable_tasks()
            .build();
        // The results cut to their budget link to the whole text, which a client reads as
        // a resource (none are listed: each is reached by its link).
        if registry.keeps_results() {
            capabilities.resources = Some(ResourcesCapability::default());
        }
        let config = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("agent-tools", env!("CARGO_PKG_VERSION")));
        Self {
            changes: registry.changes(),
            config: Arc::new(config),
            session: SessionEnd::new(&registry),
            log_level: Arc::default(),
            loaded: Arc::default(),
            stateless: false,
            request_state: Arc::new(StateSeal::random()),
            list_ttl: std::time::Duration::ZERO,
            tasks: Arc::new(TaskRunner::new(
                Tasks::new(MemoryTaskStore::new()),
                registry.clone(),
            )),
            registry,
        }
    }

    /// Where tasks are kept, and how they live (by default in this process's memory, with
    /// [`TaskOptions`](agent_tools_core::task::TaskOptions)' defaults). A call of a tool
    /// that supports tasks ([`ToolMeta::task`](agent_tools_core::tool::ToolMeta::task),
    /// [`ToolRegistryBuilder::task_support`](agent_tools_core::registry::ToolRegistryBuilder::task_support))
    /// from a client that declares MCP's tasks extension is answered at once with a task,
    /// run on in the background, and read, answered and cancelled with `tasks/get`,
    /// `tasks/update` and `tasks/cancel`. Replicas behind one address need a store they
    /// share (PostgreSQL's, in `agent-tools-postgres`), so that any of them can answer
    /// for a task another created.
    pub fn tasks(mut self, tasks: Tasks) -> Self {
        self.tasks = Arc::new(TaskRunner::new(tasks, self.registry.clone()));
        self
    }

    /// How long a client on MCP 2026-07-28 may use a tool list before asking again (the
    /// list's `ttlMs` cache hint). The default is zero, ask every time: a registry can
    /// change while served (tools registered, a mounted server's list changing) and a
    /// client should not call a tool that is gone. Raise it for a registry that does not
    /// change after it is served. The list's `cacheScope` is `private` when the list
    /// depends on the caller's OAuth token, else `public`.
    pub fn list_cache_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.list_ttl = ttl;
        self
    }

    /// The key that seals the `requestState` of input-required results (clients on MCP
    /// 2026-07-28 get one when a tool asks a question; see
    /// [`ToolContext::ask`](agent_tools_core::ToolContext::ask)). Replicas behind one
    /// address must share it, or a client's next request may reach a replica that cannot
    /// open the state; the default is a random key, good for one process. Keep it secret:
    /// it both hides the state from the client and proves it unchanged.
    pub fn request_state_key(mut self, key: [u8; 32]) -> Self {
        self.request_state = Arc::new(StateSeal::new(&key));
        self
    }

    /// The name and version clients see in `serverInfo`.
    pub fn server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.config).server_info = Implementation::new(name.into(), version.into());
        self
    }

    /// Instructions a client may add to its model's context.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.config).instructions = Some(instructions.into());
        self
    }

    /// The same handler stamping `session_id` on its calls (see [`ToolRegistry::session`]).
    pub(crate) fn for_session(&self, session_id: String) -> Self {
        let registry = self.registry.session(session_id);
        Self {
            session: SessionEnd::new(&registry),
            registry,
            log_level: Arc::default(),
            loaded: Arc::default(),
            ..self.clone()
        }
    }

    /// The same handler for serving without sessions: it does not offer
    /// `notifications/tools/list_changed`, which it could not send (no stream outlives a
    /// request), and a search does not grow a list no later request would see.
    pub(crate) fn stateless(mut self) -> Self {
        self.stateless = true;
        Arc::make_mut(&mut self.config).capabilities.tools = Some(ToolsCapability::default());
        self
    }

    /// The registry served.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// The call for a `tools/call` request: the request id as call id, the request's
    /// cancellation, `caller` as its caller, the principal and what it may see when the
    /// request was authorized, and progress forwarded (through `notifier`) when the
    /// client asked for it.
    fn tool_call(
        &self,
        name: String,
        arguments: Value,
        context: &RequestContext<RoleServer>,
        visibility: Option<&ToolVisibility>,
        notifier: &Notifier,
        caller: Arc<dyn Caller>,
    ) -> ToolCall {
        let mut call = ToolCall::new(context.id.to_string(), name, arguments)
            .with_cancellation(context.ct.clone())
            .with_caller(caller);
        if let Some(authorized) = Authorized::of(context) {
            call = call.with_principal(authorized.principal.clone());
        }
        // The tools its token does not reach are, for this call, not registered: not
        // found by `tool_search`, not named in an unknown tool's error, not run.
        if let Some(visibility) = visibility {
            call = call.with_visibility(visibility.clone());
        }
        if let Some(token) = context.meta.get_progress_token() {
            call = call.with_progress(notifier.progress_reporter(token));
        }
        // Claude Code's cap on a result's size, honoured as the call's own.
        if let Some(chars) = context.meta.get(MAX_RESULT_SIZE_CHARS).and_then(Value::as_u64) {
            call = call.with_max_result_chars(usize::try_from(chars).unwrap_or(usize::MAX));
        }
        // SEP-414: the client's trace continues here (a malformed value is dropped).
        if let Some(traceparent) = context.meta.get_traceparent()
            && let Some(trace) = TraceContext::parse(traceparent, context.meta.get_tracestate())
        {
            call = call.with_trace_context(trace);
        }
        call
    }

    /// The client of the request as a call's caller: questions on the call's stream, log
    /// messages at `log_level` and above.
    fn client_caller(
        context: &RequestContext<RoleServer>,
        notifier: &Notifier,
        log_level: Arc<SessionLogLevel>,
    ) -> ClientCaller {
        ClientCaller::new(
            context.peer.clone(),
            context.id.clone(),
            log_level,
            notifier.queue(),
        )
    }

    /// A `tools/call` of 2026-07-28 or later: the call run as a round over the answers the
    /// request brings (see `input_round`), or made a task when the tool supports tasks
    /// and the client declared them. `Continue` with the call's result, or `Break` with
    /// the response that ends the request otherwise (questions, a task).
    async fn call_2026(
        &self,
        name: String,
        arguments: Value,
        request: Round2026,
        context: &RequestContext<RoleServer>,
        visibility: Option<&ToolVisibility>,
    ) -> Result<ControlFlow<CallToolResponse, ToolResult>, McpError> {
        let principal = Authorized::of(context).map(|authorized| authorized.principal.clone());
        let binding = Binding::new(&name, &arguments, principal.as_ref().map(|p| p.subject.as_str()));
        let state = match &request.request_state {
            Some(text) => self
                .request_state
                .open(text, &binding)
                .map_err(|error| McpError::invalid_params(error.to_string(), None))?,
            None => RoundState::default(),
        };
        let capabilities = context.client_capabilities().unwrap_or_default();
        match self.registry.task_support(&name) {
            Some(TaskSupport::Required) if !capabilities.supports_tasks() => {
                let tasks = ClientCapabilities::builder().enable_tasks().build();
                return Err(McpError::missing_required_client_capability(tasks));
            }
            Some(TaskSupport::Optional | TaskSupport::Required)
                if capabilities.supports_tasks() && !self.starts_task_itself(&name) =>
            {
                let mut state = state;
                state.answers.extend(request.responses);
                let task = TaskCall::new(name, arguments).with_principal(principal);
                return self.start_task(task, &capabilities, state).await;
            }
            _ => {}
        }
        let notifier = Notifier::new(context.peer.clone());
        let may_start_task = capabilities.supports_tasks() && self.starts_task_itself(&name);
        let task =
            may_start_task.then(|| TaskCall::new(name.clone(), arguments.clone()).with_principal(principal));
        let client = capabilities.clone();
        let mut round = InputRound::new(state, request.responses, capabilities);
        if may_start_task {
            round = round.may_start_task();
        }
        // Without a session, a request asks for log messages with a level of its own.
        if let Some(level) = context.meta.log_level().and_then(caller::log_level) {
            let threshold = Arc::new(SessionLogLevel::default());
            threshold.set(level);
            round = round.with_log(Self::client_caller(context, &notifier, threshold));
        }
        let round = Arc::new(round);
        let call = self.tool_call(name, arguments, context, visibility, &notifier, round.clone());
        let ended = run_round(&round, self.registry.call(call)).await;
        notifier.finish().await;
        match ended {
            // A call that failed after a question the client could not take is one the
            // client can make work: tell it which capability to declare.
            RoundEnd::Finished(result) if result.is_error() && round.undeclared().is_some() => {
                let required = round.undeclared().unwrap_or_default();
                Err(McpError::missing_required_client_capability(required))
            }
            RoundEnd::Finished(result) => Ok(ControlFlow::Continue(result)),
            RoundEnd::InputRequired(asked, state) => self
                .input_required(asked, state, &binding)
                .map(|result| ControlFlow::Break(result.into())),
            RoundEnd::InvalidAnswer(problem) => Err(McpError::invalid_params(problem, None)),
            RoundEnd::StartTask(state) => match task {
                Some(task) => self.start_task(task, &client, state).await,
                None => Err(McpError::internal_error("a call started a task it may not", None)),
            },
        }
    }

    /// Whether `name` is a task tool that becomes a task only where it says so.
    fn starts_task_itself(&self, name: &str) -> bool {
        self.registry
            .get(name)
            .is_some_and(|tool| tool.spec().meta.explicit_task_start)
    }

    /// Makes `call` a task for a client that declared `capabilities`, its first round
    /// starting from `state`: the response that gives the client the task.
    async fn start_task(
        &self,
        call: TaskCall,
        capabilities: &ClientCapabilities,
        state: RoundState,
    ) -> Result<ControlFlow<CallToolResponse, ToolResult>, McpError> {
        let call = call.with_client(serde_json::to_value(capabilities).unwrap_or_default());
        let task = self
            .tasks
            .start(call, state)
            .await
            .map_err(task_requests::store_error)?;
        let created = CreateTaskResult::new(wire::tasks::task(&task));
        Ok(ControlFlow::Break(CallToolResponse::Task(created)))
    }

    /// The input-required result of a call that asked `asked`, with `state` sealed for the
    /// call `binding` describes.
    fn input_required(
        &self,
        asked: std::collections::BTreeMap<String, agent_tools_core::caller::InputRequest>,
        state: RoundState,
        binding: &Binding,
    ) -> Result<InputRequiredResult, McpError> {
        let requests = asked
            .into_iter()
            .map(|(key, request)| wire_request(request).map(|request| (key, request)))
            .collect::<Result<_, _>>()
            .map_err(|error| McpError::internal_error(format!("cannot send a question: {error}"), None))?;
        let sealed = self.request_state.seal(state, binding);
        Ok(InputRequiredResult::new(Some(requests), Some(sealed)))
    }

    /// A `tools/call`, answered; see [`ServerHandler::call_tool`] for why it is boxed.
    async fn answer_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // The OAuth layer refuses calls of tools the token does not reach with a 403
        // naming the scopes that would; for any request it could not read, the call's
        // visibility makes such a tool an unknown one (`tool_call`).
        let visibility = Authorized::of(&context).map(Authorized::visibility);
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let name = request.name.into_owned();
        // From 2026-07-28 a question is answered in the client's next request.
        let result = if speaks_2026(&context) {
            let round = Round2026 {
                request_state: request.request_state,
                responses: request.input_responses.unwrap_or_default(),
            };
            match self
                .call_2026(name, arguments, round, &context, visibility.as_ref())
                .await?
            {
                ControlFlow::Continue(result) => result,
                ControlFlow::Break(response) => return Ok(response),
            }
        } else {
            let notifier = Notifier::new(context.peer.clone());
            let caller = Self::client_caller(&context, &notifier, self.log_level.clone());
            let call = self.tool_call(
                name,
                arguments,
                &context,
                visibility.as_ref(),
                &notifier,
                Arc::new(caller),
            );
            let result = self.registry.call(call).await;
            notifier.finish().await;
            result
        };
        // A search that found deferred tools lists them to this session from now on (only
        // those the caller reaches, as a search finds no other).
        if !self.stateless
            && self
                .loaded
                .add_found(&self.registry, &result, visibility.as_ref())
        {
            let _ = context.peer.notify_tool_list_changed().await; // A gone client is fine.
        }
        // The spec makes an unknown tool a protocol error; everything else the model can
        // act on (invalid arguments included) is an `isError` result.
        if result.outcome == Outcome::UnknownTool {
            return Err(McpError::invalid_params(result.text(), None));
        }
        let encoded = match speaks_2026(&context) {
            true => tools::call_result_2026(&result),
            false => tools::call_result(&result),
        };
        encoded
            .map(CallToolResponse::from)
            .map_err(|error| McpError::internal_error(format!("cannot encode the result: {error}"), None))
    }
}

/// The principal of an authorized request.
fn principal_of(context: &RequestContext<RoleServer>) -> Option<&agent_tools_core::context::Principal> {
    Authorized::of(context).map(|authorized| &authorized.principal)
}

/// Whether the request is of MCP 2026-07-28 or later: no requests to the client during a
/// call (questions come back as input-required results), and cache hints on lists.
fn speaks_2026(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// The `_meta` key of a request by which Claude Code caps a result's size in characters.
const MAX_RESULT_SIZE_CHARS: &str = "anthropic/maxResultSizeChars";

/// What a 2026-07-28 `tools/call` brings for its questions: the sealed state of earlier
/// rounds and the answers to the last round's questions.
struct Round2026 {
    request_state: Option<String>,
    responses: std::collections::BTreeMap<String, Value>,
}

impl ServerHandler for McpHandler {
    fn get_info(&self) -> ServerConfig {
        (*self.config).clone()
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let Some(text) = self.registry.kept_result(&request.uri).await else {
            return Err(McpError::resource_not_found(
                format!("no resource `{}`", request.uri),
                None,
            ));
        };
        let contents = vec![ResourceContents::text(text, request.uri)];
        // A kept result never changes (a day, not forever: the file may be pruned), and
        // is the caller's own.
        Ok(ReadResourceResult::new(contents)
            .with_ttl_ms(86_400_000)
            .with_cache_scope(CacheScope::Private)
            .into())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // A token whose scopes do not reach a tool does not see it (nor the search, while
        // it reaches no deferred tool).
        let visibility = Authorized::of(&context).map(Authorized::visibility);
        let mut definitions = match &visibility {
            Some(visibility) => self
                .registry
                .definitions_for(DefinitionOptions::new(Dialect::Mcp), visibility),
            None => self.registry.definitions(Dialect::Mcp),
        };
        definitions.extend(self.loaded.definitions(&self.registry, visibility.as_ref()));
        let tools = definitions
            .into_iter()
            .map(tools::tool_definition)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| McpError::internal_error(format!("cannot describe a tool: {error}"), None))?;
        if !speaks_2026(&context) {
            return Ok(ListToolsResult::with_all_items(tools));
        }
        // 2026-07-28 takes output schemas of any JSON type, which earlier revisions' lists
        // leave out.
        let tools = tools
            .into_iter()
            .map(|mut tool| {
                if tool.output_schema.is_none()
                    && let Some(spec) = self.registry.get(&tool.name)
                {
                    tool.output_schema = tools::output_schema_2026(spec.spec());
                }
                tool
            })
            .collect();
        let listed = ListToolsResult::with_all_items(tools);
        // Cache hints (SEP-2549), which 2026-07-28 requires on lists. A list that depends
        // on the caller's token is the caller's alone.
        let scope = if visibility.is_some() {
            CacheScope::Private
        } else {
            CacheScope::Public
        };
        Ok(listed
            .with_ttl_ms(self.list_ttl.as_millis().try_into().unwrap_or(u64::MAX))
            .with_cache_scope(scope))
    }

    /// Boxed, as [`listen`](Self::listen) is: rmcp runs each request in a task whose
    /// future is as large as the largest of the handler's futures, and copies it whole
    /// several times while spawning and finishing it. A call's future (the registry's
    /// dispatch, the 2026 round, a task's start) is kilobytes; unboxed, those copies were
    /// most of the difference between our served call and rmcp's own server (284,000
    /// instructions a served `echo` call against rmcp's 164,000, 160,000 boxed:
    /// `benches/serve_callgrind.sh`).
    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, McpError>> + MaybeSendFuture + '_ {
        Box::pin(self.answer_call(request, context))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        task_requests::get(&self.tasks, &request.task_id, principal_of(&context)).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let principal = principal_of(&context);
        task_requests::update(&self.tasks, &request.task_id, request.input_responses, principal).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        task_requests::cancel(&self.tasks, &request.task_id, principal_of(&context)).await
    }

    /// The tool's definition, which rmcp's HTTP transport reads to check the
    /// `Mcp-Param-*` headers of a call against its arguments (SEP-2243): an argument the
    /// tool declares as a header ([`ToolMeta::header_argument`]) must come with a header
    /// of the same value, or the request is refused with HTTP 400 before it reaches the
    /// tool.
    ///
    /// [`ToolMeta::header_argument`]: agent_tools_core::tool::ToolMeta::header_argument
    ///
    /// Asked for every call over HTTP, so a tool without header arguments — nearly every
    /// one — answers `None` (nothing to check) without rendering its definition.
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        let tool = self.registry.get(name)?;
        let spec = tool.spec();
        if spec.meta.header_arguments.is_empty() && !tools::marks_headers(&spec.input_schema) {
            return None;
        }
        tools::tool_definition(Dialect::Mcp.definition(spec)).ok()
    }

    /// Later log messages of the session's calls go out at `level` and above.
    #[allow(deprecated)] // Logging: see `client_caller`.
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let level = caller::log_level(request.level)
            .ok_or_else(|| McpError::invalid_params("unknown logging level", None))?;
        self.log_level.set(level);
        Ok(())
    }

    /// Clients that connect with `initialize` (protocol versions before 2026-07-28) get
    /// `notifications/tools/list_changed` on the session itself.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if self.stateless {
            return; // The handler ends with the request: nothing to watch for.
        }
        let mut changes = self.changes.clone();
        let ended = self.session.0.clone();
        let peer = context.peer;
        // The watcher waits for as long as the session lasts, so its task is part of what
        // an idle session costs: the rare notification's future is boxed, which keeps the
        // task about a quarter of the size.
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = ended.cancelled() => break,
                    alive = changes.changed() => {
                        if !alive || Box::pin(peer.notify_tool_list_changed()).await.is_err() {
                            break; // The registry or the client is gone.
                        }
                    }
                }
            }
        });
    }

    /// Later clients ask for list changes with `subscriptions/listen`.
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = requested.tools_list_changed;
        Some(accepted)
    }

    fn listen(
        &self,
        context: SubscriptionContext,
    ) -> impl Future<Output = Result<(), McpError>> + MaybeSendFuture + '_ {
        // Boxed, so that every request's task is not as large as this one (see `call_tool`).
        let mut changes = self.changes.clone();
        Box::pin(async move {
            loop {
                tokio::select! {
                    () = context.cancelled() => return Ok(()),
                    alive = changes.changed() => {
                        if !alive || context.sink().notify_tool_list_changed().await.is_err() {
                            return Ok(());
                        }
                    }
                }
            }
        })
    }
}

impl SessionEnd {
    fn new(registry: &ToolRegistry) -> Arc<Self> {
        Arc::new(Self(CancellationToken::new(), registry.downgrade()))
    }
}
