//! The caller of a served call is the MCP client: [`ClientCaller`] sends a tool's log
//! messages as `notifications/message`, its questions as `elicitation/create` and its
//! sampling requests as `sampling/createMessage`.
//!
//! What reaches the client is what it said it can take: a question or sampling request
//! the client did not declare a capability for fails at once with
//! [`CallerError::NotAvailable`] (the tool's model reads why), and log messages below the
//! level the client chose with `logging/setLevel` are not sent. Until it chooses, every
//! message is sent, as the TypeScript SDK's server does.
//!
//! Requests carry the call's request id as rmcp's originating-request marker, so over
//! streamable HTTP they ride the call's own response stream (SEP-2260) even if the tool
//! sent them from a task of its own.

// MCP 2026-07-28 deprecates logging and sampling (SEP-2577) and rmcp marks their types so;
// clients on 2025-11-25 and earlier, nearly all of today's, use them.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use agent_tools_core::{
    caller::{
        Caller, CallerError, ElicitRequest, ElicitResponse, LogLevel, LogMessage, SamplingRequest,
        SamplingResponse,
    },
    tool::BoxFuture,
};
use rmcp::RoleServer;
use rmcp::model::{
    ClientResult, CustomRequest, CustomResult, ElicitRequest as McpElicitRequest, GetExtensions as _,
    RequestId, ServerRequest,
};
use rmcp::service::{ElicitationMode, OriginatingRequestId, Peer};

use super::notify::{NotificationQueue, Outgoing};
use crate::wire::caller;

/// The least severe level a session's client wants, shared by its calls.
#[derive(Debug, Default)]
pub(crate) struct SessionLogLevel(AtomicU8);

/// Stored for "no level chosen yet": every level passes.
const UNSET: u8 = 0;

impl SessionLogLevel {
    /// Records the client's `logging/setLevel`.
    pub(crate) fn set(&self, level: LogLevel) {
        self.0.store(level as u8 + 1, Ordering::Relaxed);
    }

    fn lets_through(&self, level: LogLevel) -> bool {
        match self.0.load(Ordering::Relaxed) {
            UNSET => true,
            threshold => level as u8 + 1 >= threshold,
        }
    }
}

/// The MCP client, as the [`Caller`] of one served call.
pub(crate) struct ClientCaller {
    peer: Peer<RoleServer>,
    request_id: RequestId,
    log_level: Arc<SessionLogLevel>,
    notifications: NotificationQueue,
}

impl ClientCaller {
    /// The caller of the call made by request `request_id`; its log messages go out
    /// through `notifications`, in order with the call's progress.
    pub(crate) fn new(
        peer: Peer<RoleServer>,
        request_id: RequestId,
        log_level: Arc<SessionLogLevel>,
        notifications: NotificationQueue,
    ) -> Self {
        Self {
            peer,
            request_id,
            log_level,
            notifications,
        }
    }

    /// Sends a request on the call's stream and waits for the client's answer.
    async fn send(&self, mut request: ServerRequest) -> Result<ClientResult, CallerError> {
        request
            .extensions_mut()
            .insert(OriginatingRequestId(self.request_id.clone()));
        self.peer.send_request(request).await.map_err(CallerError::failed)
    }

    async fn elicit_on_client(&self, request: ElicitRequest) -> Result<ElicitResponse, CallerError> {
        let mode = match &request {
            ElicitRequest::Url { .. } => ElicitationMode::Url,
            _ => ElicitationMode::Form,
        };
        if !self.peer.supported_elicitation_modes().contains(&mode) {
            let what = match mode {
                ElicitationMode::Url => "ask the user to open a URL (URL elicitation)",
                _ => "ask the user (elicitation)",
            };
            return Err(CallerError::not_available(what));
        }
        let params = caller::elicit_params(request)?;
        match self
            .send(ServerRequest::ElicitRequest(McpElicitRequest::new(params)))
            .await?
        {
            ClientResult::ElicitResult(result) => Ok(caller::elicit_response(result)),
            other => Err(unexpected(&other)),
        }
    }

    async fn sample_on_client(&self, request: SamplingRequest) -> Result<SamplingResponse, CallerError> {
        let sampling = self
            .peer
            .peer_info()
            .and_then(|info| info.capabilities.sampling.clone());
        if sampling.is_none() {
            return Err(CallerError::not_available("ask its model (sampling)"));
        }
        if !request.tools.is_empty() && !self.peer.supports_sampling_tools() {
            return Err(CallerError::not_available(
                "let its model call tools (sampling with tools)",
            ));
        }
        // Sent as the JSON it is (see `caller::sampling_params`); the answer is read
        // by its shape, whatever request rmcp thinks it answers.
        let params = caller::sampling_params(request)?;
        let request = CustomRequest::new("sampling/createMessage", Some(params));
        match self.send(ServerRequest::CustomRequest(request)).await? {
            ClientResult::CreateMessageResult(result) => caller::sampling_response(&result),
            ClientResult::CustomResult(CustomResult(result)) => serde_json::from_value(result)
                .map_err(|error| {
                    CallerError::failed(format!("the client's answer is not a sampling result: {error}"))
                })
                .and_then(|result| caller::sampling_response(&result)),
            other => Err(unexpected(&other)),
        }
    }
}

impl Caller for ClientCaller {
    fn log(&self, message: LogMessage) {
        if !self.log_level.lets_through(message.level) {
            return;
        }
        if let Some(notification) = caller::log_notification(message) {
            self.notifications.send(Outgoing::Log(notification));
        }
    }

    fn elicit(&self, request: ElicitRequest) -> BoxFuture<'_, Result<ElicitResponse, CallerError>> {
        Box::pin(self.elicit_on_client(request))
    }

    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, Result<SamplingResponse, CallerError>> {
        Box::pin(self.sample_on_client(request))
    }
}

fn unexpected(result: &ClientResult) -> CallerError {
    CallerError::failed(format!("the client answered with something else: {result:?}"))
}
