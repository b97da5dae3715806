//! The client side of a mount: one MCP session at a time with the remote server,
//! replaced by a new one when it dies.
//!
//! A [`Session`] is one running rmcp client (one child process, or one HTTP session). It
//! ends when its transport closes (the child exited, the HTTP server went away), when a
//! request shows the transport is broken, or when the mount closes it; requests in
//! flight then end at once with an error. [`Connection`] hands out the live session, or
//! starts a new one, at most one at a time.

use std::error::Error as StdError;
use std::sync::Arc;
use std::time::Duration;

use agent_tools_core::caller::CallerError;
use agent_tools_core::{ToolContext, ToolError, ToolOutput};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, GetMeta as _, ProtocolVersion, ServerNotification,
    ServerResult, SubscriptionFilter, Tool as McpTool,
};
use rmcp::service::{
    ClientInitializeError, Peer, PeerRequestOptions, RunningService, ServiceError, Subscription,
    SubscriptionEnd, serve_client_with_lifecycle_and_ct,
};
use rmcp::transport::common::client_side_sse::ExponentialBackoff;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess, Transport};
use rmcp::{ClientLifecycleMode, RoleClient};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::cancel::CancelOnDrop;
use super::client::MountClient;
use super::in_order::InOrder;
use super::input_rounds::{self, RoundError};
use super::progress::ProgressRoutes;
use super::requests::CallsInFlight;
use super::{McpServer, MountError};
#[cfg(feature = "oauth")]
use crate::oauth::client::transport::OAuthHttpClient;
use crate::wire::tools;

/// Bounds connecting and listing when the mount sets no timeout.
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long closing waits for the session to wind down (a child process gets this long
/// to exit before it is killed in the background).
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// How often an HTTP session's event stream is reopened before the server counts as
/// gone. The default retries forever, which would leave a call waiting on a dead server.
const HTTP_STREAM_RETRIES: usize = 2;

/// The mount's link to its server.
pub(super) struct Connection {
    server: McpServer,
    /// The server, as messages name it.
    name: String,
    timeout: Duration,
    /// Speak the latest protocol version with `initialize` (see
    /// [`MountOptions::prefer_initialize`](super::MountOptions::prefer_initialize)).
    prefer_initialize: bool,
    /// The current session; the async lock makes concurrent callers wait for one
    /// reconnect instead of starting one each.
    current: tokio::sync::Mutex<Option<Arc<Session>>>,
    /// Bumped when the server says its tool list changed, and when a new session starts
    /// (the list may have changed while we were away).
    list_changed: Arc<watch::Sender<u64>>,
    /// Cancelled when the mount is removed: no more sessions.
    closed: CancellationToken,
}

/// An error of any kind, as [`MountError`] keeps its causes.
type BoxError = Box<dyn StdError + Send + Sync>;

/// Why there is no session to send a request on.
#[derive(Debug)]
pub(super) enum ConnectError {
    /// Could not start the process or reach the endpoint.
    Connect(BoxError),
    /// Reached, but the handshake failed.
    Handshake(BoxError),
    /// Connecting took longer than this.
    Timeout(Duration),
    /// A request failed on the session.
    Request(ServiceError),
    /// The mount was removed.
    Closed,
}

/// The server's process could not be started.
#[derive(Debug, thiserror::Error)]
#[error("cannot start it")]
struct StartFailed(#[source] std::io::Error);

/// What opening a session needs besides its transport.
struct Handshake {
    client: MountClient,
    lifecycle: ClientLifecycleMode,
    stop: CancellationToken,
    progress: ProgressRoutes,
    calls: CallsInFlight,
}

impl Handshake {
    /// The handshake over `transport`, its notifications taken in order.
    async fn over<T>(self, transport: T) -> Result<RunningService<RoleClient, MountClient>, ConnectError>
    where
        T: Transport<RoleClient> + Send + 'static,
    {
        let transport = InOrder::new(transport, self.progress, self.calls);
        serve_client_with_lifecycle_and_ct(self.client, transport, self.lifecycle, self.stop)
            .await
            .map_err(|error| match error {
                // Only the transport's own error: rmcp's wrapper names its internal types
                // (`Transport [agent_tools_mcp::mount::in_order::InOrder<…>]`) and the step it
                // was at.
                ClientInitializeError::TransportError { error, .. } => ConnectError::Connect(error.error),
                ClientInitializeError::ConnectionClosed(_) => ConnectError::Connect(Box::new(error)),
                // The legacy `initialize` is the one an older server answers; its failure
                // says why.
                ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
                    ConnectError::Handshake(fallback)
                }
                error => ConnectError::Handshake(Box::new(error)),
            })
    }

    /// [`over`](Self::over) streamable HTTP, a failure to connect told by its cause.
    async fn over_http<C>(
        self,
        transport: StreamableHttpClientTransport<C>,
    ) -> Result<RunningService<RoleClient, MountClient>, ConnectError>
    where
        C: StreamableHttpClient,
    {
        self.over(transport).await.map_err(|error| match error {
            ConnectError::Connect(source) => ConnectError::Connect(http_cause::<C::Error>(source)),
            error => error,
        })
    }
}

/// What stopped an HTTP connection, without rmcp's wrapping: the HTTP client's own error
/// (`error sending request for url (…): … Connection refused`) rather than `Client
/// error: error sending request`, and a status with its reason.
fn http_cause<E>(error: Box<dyn StdError + Send + Sync>) -> Box<dyn StdError + Send + Sync>
where
    E: StdError + Send + Sync + 'static,
{
    match error.downcast::<StreamableHttpError<E>>() {
        Ok(error) => match *error {
            StreamableHttpError::Client(cause) => Box::new(cause),
            StreamableHttpError::HttpStatus(status) => Box::new(HttpStatus(status.status)),
            error => Box::new(error),
        },
        Err(error) => error,
    }
}

/// An HTTP status where an MCP answer was expected.
#[derive(Debug)]
struct HttpStatus(u16);

impl std::fmt::Display for HttpStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reason = axum::http::StatusCode::from_u16(self.0)
            .ok()
            .and_then(|status| status.canonical_reason())
            .map(|reason| format!(" {reason}"))
            .unwrap_or_default();
        write!(f, "the server answered HTTP {}{reason}", self.0)
    }
}

impl StdError for HttpStatus {}

impl super::HttpEndpoint {
    /// The HTTP client that logs in with OAuth, when the mount does.
    #[cfg(feature = "oauth")]
    fn oauth_http(&self) -> Result<Option<OAuthHttpClient>, ConnectError> {
        let Some(login) = &self.oauth else {
            return Ok(None);
        };
        let url = url::Url::parse(&self.url).map_err(|error| ConnectError::Connect(Box::new(error)))?;
        Ok(Some(OAuthHttpClient::new(login.clone(), url)))
    }

    #[cfg(not(feature = "oauth"))]
    fn oauth_http(&self) -> Result<Option<std::convert::Infallible>, ConnectError> {
        Ok(None)
    }
}

/// The mount was removed while a session was wanted.
#[derive(Debug, thiserror::Error)]
#[error("the mount was removed")]
struct Removed;

impl ConnectError {
    pub(super) fn into_mount_error(self, server: &str) -> MountError {
        let server = server.to_owned();
        match self {
            Self::Connect(source) => MountError::Connect { server, source },
            Self::Handshake(source) => MountError::Handshake { server, source },
            Self::Timeout(timeout) => MountError::Timeout { server, timeout },
            Self::Request(source) => MountError::List {
                server,
                source: Box::new(source),
            },
            Self::Closed => MountError::Connect {
                server,
                source: Box::new(Removed),
            },
        }
    }

    fn reason(&self) -> String {
        match self {
            Self::Connect(source) | Self::Handshake(source) => describe(source.as_ref()),
            Self::Request(source) => describe(source),
            Self::Timeout(timeout) => format!("it did not answer within {timeout:?}"),
            Self::Closed => "it was unmounted".to_owned(),
        }
    }
}

/// How a request on a session failed.
pub(super) enum Failure {
    /// The request could not be sent; it did not run.
    NotSent(String),
    /// The session ended while the request was out; it may have run.
    Lost(String),
    /// The server answered with a JSON-RPC error.
    Remote(String),
    /// The caller cancelled.
    Cancelled,
    /// The server asked for input that the caller of the call could not give.
    Caller(CallerError),
}

impl From<RoundError> for Failure {
    /// A round of questions that could not be answered ends the call: the caller's
    /// refusal as it is, a server's malformed questions as the server's error.
    fn from(error: RoundError) -> Self {
        match error {
            RoundError::Caller(error) => Failure::Caller(error),
            RoundError::Malformed(why) => Failure::Remote(why),
        }
    }
}

impl Connection {
    pub(super) fn new(server: McpServer, timeout: Option<Duration>, prefer_initialize: bool) -> Self {
        Self {
            name: server.to_string(),
            server,
            timeout: timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT),
            prefer_initialize,
            current: tokio::sync::Mutex::new(None),
            list_changed: Arc::new(watch::Sender::new(0)),
            closed: CancellationToken::new(),
        }
    }

    /// The server, as messages name it.
    pub(super) fn server_name(&self) -> &str {
        &self.name
    }

    /// Wakes when the server's tool list may have changed.
    pub(super) fn list_changes(&self) -> watch::Receiver<u64> {
        self.list_changed.subscribe()
    }

    /// Every tool the server lists (all pages), connecting first if needed.
    pub(super) async fn list_tools(&self) -> Result<Vec<McpTool>, ConnectError> {
        let (session, _) = self.session().await?;
        match tokio::time::timeout(self.timeout, session.peer.list_all_tools()).await {
            Ok(Ok(tools)) => Ok(tools),
            Ok(Err(error)) => {
                if is_transport_failure(&error) {
                    session.end();
                }
                Err(ConnectError::Request(error))
            }
            Err(_) => Err(ConnectError::Timeout(self.timeout)),
        }
    }

    /// Calls the remote tool `name`. A server that is gone gives an error at once; a
    /// request that could not be sent on a session that had died unnoticed is sent
    /// once more on a new one.
    pub(super) async fn call(
        &self,
        name: &str,
        arguments: Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let Value::Object(arguments) = arguments else {
            return Err(ToolError::invalid_arguments(
                "the arguments must be a JSON object",
            ));
        };
        let (session, fresh) = self
            .session()
            .await
            .map_err(|error| self.unavailable(&error.reason()))?;
        let failure = match session.call(name, arguments.clone(), ctx).await {
            Ok(output) => return Ok(output),
            Err(Failure::NotSent(reason)) if !fresh => {
                tracing::debug!(server = %self.name, %reason, "the MCP session is gone; reconnecting");
                session.end();
                let (session, _) = self
                    .session()
                    .await
                    .map_err(|error| self.unavailable(&error.reason()))?;
                match session.call(name, arguments, ctx).await {
                    Ok(output) => return Ok(output),
                    Err(failure) => failure,
                }
            }
            Err(failure) => failure,
        };
        Err(match failure {
            Failure::NotSent(reason) | Failure::Lost(reason) => self.unavailable(&reason),
            Failure::Remote(message) => ToolError::new(format!(
                "the MCP server `{}` returned an error: {message}",
                self.name
            )),
            Failure::Cancelled => ToolError::cancelled(),
            Failure::Caller(error) => ToolError::from(error),
        })
    }

    fn unavailable(&self, reason: &str) -> ToolError {
        if self.closed.is_cancelled() {
            return ToolError::new(format!("the MCP server `{}` was unmounted", self.name));
        }
        ToolError::new(format!(
            "the MCP server `{}` is not available: {reason}; it will be restarted on the next call",
            self.name
        ))
    }

    /// The live session, or a new one; `true` if it is new.
    async fn session(&self) -> Result<(Arc<Session>, bool), ConnectError> {
        let mut current = self.current.lock().await;
        if let Some(session) = current.as_ref()
            && session.is_alive()
        {
            return Ok((session.clone(), false));
        }
        if self.closed.is_cancelled() {
            return Err(ConnectError::Closed);
        }
        let session = match tokio::time::timeout(self.timeout, self.open()).await {
            Ok(session) => Arc::new(session?),
            Err(_) => return Err(ConnectError::Timeout(self.timeout)),
        };
        if current.replace(session.clone()).is_some() {
            self.list_changed
                .send_modify(|version| *version = version.wrapping_add(1));
        }
        Ok((session, true))
    }

    /// Starts the server (or opens an HTTP session) and completes the handshake:
    /// `server/discover` (protocol 2026-07-28), falling back to `initialize` for older
    /// servers.
    async fn open(&self) -> Result<Session, ConnectError> {
        let progress = ProgressRoutes::default();
        let calls = CallsInFlight::default();
        let client = MountClient {
            list_changed: self.list_changed.clone(),
            calls: calls.clone(),
        };
        let stop = CancellationToken::new();
        let lifecycle = match self.prefer_initialize {
            true => ClientLifecycleMode::Initialize,
            false => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::LATEST],
                legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            },
        };
        let handshake = Handshake {
            client,
            lifecycle,
            stop: stop.clone(),
            progress: progress.clone(),
            calls: calls.clone(),
        };
        let running = match &self.server {
            McpServer::Stdio(command) => {
                let (transport, _) = TokioChildProcess::builder(command.command())
                    .spawn()
                    .map_err(|error| ConnectError::Connect(Box::new(StartFailed(error))))?;
                handshake.over(transport).await
            }
            McpServer::Http(endpoint) => {
                let mut retry = ExponentialBackoff::default();
                retry.max_times = Some(HTTP_STREAM_RETRIES);
                retry.base_duration = Duration::from_millis(100);
                retry.max_delay = Some(Duration::from_secs(1));
                let mut config = StreamableHttpClientTransportConfig::with_uri(endpoint.url.as_str());
                if let Some(token) = &endpoint.bearer_token {
                    config = config.auth_header(token.clone());
                }
                config.retry_config = Arc::new(retry);
                match endpoint.oauth_http()? {
                    #[cfg(feature = "oauth")]
                    Some(login) => {
                        handshake
                            .over_http(StreamableHttpClientTransport::with_client(login, config))
                            .await
                    }
                    _ => {
                        handshake
                            .over_http(StreamableHttpClientTransport::from_config(config))
                            .await
                    }
                }
            }
        }?;
        Ok(Session::start(running, stop, progress, calls, self.list_changed.clone()).await)
    }

    /// Ends the current session and refuses new ones; waits a little for it to wind down.
    pub(super) async fn close(&self) {
        self.closed.cancel();
        let session = self.current.lock().await.take();
        if let Some(session) = session {
            session.end();
            let _ = tokio::time::timeout(CLOSE_WAIT, session.ended.cancelled()).await;
        }
    }
}

/// One running client session.
pub(super) struct Session {
    peer: Peer<RoleClient>,
    /// Cancelling it ends the session (and fails its requests in flight).
    stop: CancellationToken,
    /// Cancelled once the session's loop has ended.
    ended: CancellationToken,
    /// Set when the server ended our `list_changed` subscription: calls in flight may
    /// finish, new calls start a new session (which subscribes again).
    retired: CancellationToken,
    progress: ProgressRoutes,
    calls: CallsInFlight,
}

impl Session {
    /// Runs the session's loop in the background and, on protocol 2026-07-28, waits
    /// until the server acknowledged our `list_changed` subscription, so no change after
    /// this returns is missed (older protocols send it to [`MountClient`] unasked).
    async fn start(
        running: RunningService<RoleClient, MountClient>,
        stop: CancellationToken,
        progress: ProgressRoutes,
        calls: CallsInFlight,
        list_changed: Arc<watch::Sender<u64>>,
    ) -> Self {
        let peer = running.peer().clone();
        let ended = CancellationToken::new();
        let loop_ended = ended.clone();
        tokio::spawn(async move {
            let _ = running.waiting().await;
            loop_ended.cancel();
        });
        let retired = CancellationToken::new();
        let info = peer.peer_info();
        let modern = info
            .as_ref()
            .is_some_and(|info| !info.protocol_version.has_initialize());
        let announces_changes = info
            .as_ref()
            .and_then(|info| info.capabilities.tools.as_ref())
            .and_then(|tools| tools.list_changed)
            .unwrap_or(false);
        if modern && announces_changes {
            match peer.listen(list_changed_filter()).await {
                Ok(subscription) => {
                    tokio::spawn(follow_subscription(
                        subscription,
                        peer.clone(),
                        stop.clone(),
                        retired.clone(),
                        list_changed,
                    ));
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot follow the tool list of a mounted MCP server");
                }
            }
        }
        Self {
            peer,
            stop,
            ended,
            retired,
            progress,
            calls,
        }
    }

    fn is_alive(&self) -> bool {
        !(self.stop.is_cancelled()
            || self.ended.is_cancelled()
            || self.retired.is_cancelled()
            || self.peer.is_transport_closed())
    }

    /// The session's peer.
    pub(super) fn peer(&self) -> &Peer<RoleClient> {
        &self.peer
    }

    /// Ends the session; its requests in flight fail at once.
    fn end(&self) {
        self.stop.cancel();
    }

    /// Calls the tool: `tools/call`, made again with the answers as long as the server
    /// answers with an input-required result ([`input_rounds`]), at most
    /// [`MAX_ROUNDS`](input_rounds::MAX_ROUNDS) times.
    async fn call(
        &self,
        name: &str,
        arguments: serde_json::Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, Failure> {
        let mut params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        for round in 1..=input_rounds::MAX_ROUNDS {
            let asked = match self.send(params.clone(), ctx).await? {
                ServerResult::CallToolResult(result) => return Ok(tools::tool_output(&result)),
                ServerResult::EmptyResult(_) => return Ok(ToolOutput::default()),
                ServerResult::InputRequiredResult(asked) => asked,
                ServerResult::CreateTaskResult(created) => {
                    return super::remote_task::follow(self, created, ctx).await;
                }
                _ => {
                    return Err(Failure::Remote(
                        "it sent a response that is not a tool result".to_owned(),
                    ));
                }
            };
            let retry = input_rounds::answer(asked, round, ctx).await?;
            params.input_responses = retry.input_responses;
            params.request_state = retry.request_state;
        }
        Err(Failure::Remote(format!(
            "it asked for input {} times without finishing the call",
            input_rounds::MAX_ROUNDS
        )))
    }

    /// Sends one `tools/call` request and waits for its response, the caller's
    /// cancellation or the end of the session, whichever comes first.
    async fn send(&self, params: CallToolRequestParams, ctx: &ToolContext) -> Result<ServerResult, Failure> {
        self.request(ClientRequest::CallToolRequest(CallToolRequest::new(params)), ctx)
            .await
    }

    /// Sends `request` on behalf of the call `ctx` and waits for its response, the
    /// caller's cancellation or the end of the session, whichever comes first.
    pub(super) async fn request(
        &self,
        mut request: ClientRequest,
        ctx: &ToolContext,
    ) -> Result<ServerResult, Failure> {
        if self.stop.is_cancelled() || self.ended.is_cancelled() || self.peer.is_transport_closed() {
            return Err(Failure::NotSent("the connection is closed".to_owned()));
        }
        // SEP-414: the server continues this call's trace.
        if let Some(trace) = ctx.trace_context() {
            let meta = request.get_meta_mut();
            meta.set_traceparent(trace.traceparent());
            if let Some(state) = trace.tracestate() {
                meta.set_tracestate(state);
            }
        }
        let handle = self
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|error| Failure::NotSent(describe(&error)))?;
        let _progress = self.progress.route(handle.progress_token.clone(), ctx.clone());
        let _in_flight = self.calls.enter(handle.id.clone(), ctx.clone());
        let mut abandoned = CancelOnDrop {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
        };
        let response = tokio::select! {
            response = handle.await_response() => response,
            () = ctx.cancelled() => return Err(Failure::Cancelled),
            () = self.stop.cancelled() => Err(ServiceError::TransportClosed),
            () = self.ended.cancelled() => Err(ServiceError::TransportClosed),
        };
        abandoned.disarm();
        match response {
            Ok(result) => Ok(result),
            Err(ServiceError::McpError(error)) => Err(Failure::Remote(error.message.to_string())),
            Err(ServiceError::Cancelled { .. }) => Err(Failure::Cancelled),
            Err(error @ ServiceError::TransportSend(_)) => {
                self.end();
                Err(Failure::NotSent(describe(&error)))
            }
            Err(error @ ServiceError::TransportClosed) => {
                self.end();
                Err(Failure::Lost(describe(&error)))
            }
            Err(error) => Err(Failure::Remote(describe(&error))),
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Follows `list_changed` on a protocol 2026-07-28 session through a
/// `subscriptions/listen` stream. A stream that breaks means the server is gone: the
/// session ends. One the server closes retires the session, so the next call starts a
/// new one and subscribes again.
async fn follow_subscription(
    mut subscription: Subscription,
    peer: Peer<RoleClient>,
    stop: CancellationToken,
    retired: CancellationToken,
    list_changed: Arc<watch::Sender<u64>>,
) {
    loop {
        loop {
            let next = tokio::select! {
                () = stop.cancelled() => return,
                next = subscription.next() => next,
            };
            match next {
                Ok(Some(ServerNotification::ToolListChangedNotification(_))) => {
                    list_changed.send_modify(|version| *version = version.wrapping_add(1));
                }
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(error) => {
                    tracing::debug!(%error, "the list_changed subscription of a mounted MCP server failed");
                    stop.cancel();
                    return;
                }
            }
        }
        match subscription.end() {
            // Notifications were lost: re-list, and listen again.
            Some(SubscriptionEnd::Lagged { .. }) => {
                list_changed.send_modify(|version| *version = version.wrapping_add(1));
            }
            Some(SubscriptionEnd::Graceful(_) | SubscriptionEnd::Cancelled) => {
                retired.cancel();
                return;
            }
            _ => {
                stop.cancel();
                return;
            }
        }
        subscription = tokio::select! {
            () = stop.cancelled() => return,
            subscription = peer.listen(list_changed_filter()) => match subscription {
                Ok(subscription) => subscription,
                Err(error) => {
                    tracing::debug!(%error, "cannot listen again for list_changed; retiring the session");
                    retired.cancel();
                    return;
                }
            },
        };
    }
}

fn list_changed_filter() -> SubscriptionFilter {
    SubscriptionFilter::builder().tools_list_changed().build()
}

/// Whether a request failed because the transport is broken (rather than the server
/// answering with an error).
fn is_transport_failure(error: &ServiceError) -> bool {
    matches!(
        error,
        ServiceError::TransportSend(_) | ServiceError::TransportClosed
    )
}

/// An error and its sources ([`agent_tools_core::error::error_chain`]), or what to do about a 401.
pub(super) fn describe(error: &(dyn StdError + 'static)) -> String {
    // rmcp reports a 401 inside a message naming its internal types; say what to do.
    // (The mount tests check this wording, so a change in rmcp's shows up there.)
    if error.to_string().contains("Auth required") {
        return "the server answered 401 Unauthorized: it needs a bearer token \
                (McpServer::bearer_token), or refused the one given"
            .to_owned();
    }
    agent_tools_core::error::error_chain(error)
}
