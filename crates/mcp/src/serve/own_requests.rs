//! The requests our server sends a client — `sampling/createMessage`,
//! `elicitation/create`, `roots/list`, `ping` — without a progress token.
//!
//! rmcp puts a fresh `progressToken` in the `_meta` of every request a peer sends. We
//! never follow a client's progress on these, and a request a gateway forwards from a
//! mounted server must reach the client as the server wrote it: a token the server did
//! not send would tell the client that someone waits for progress that goes nowhere.
//! [`WithoutProgressTokens`] takes the token out as the message leaves, on any transport;
//! [`SessionsWithoutProgressTokens`] does the same for each session of streamable HTTP.
//!
//! It does not touch requests from clients, responses or notifications, nor any other
//! `_meta` key.

use std::borrow::Cow;
use std::sync::Arc;

use futures_util::Stream;
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, GetExtensions as _, JsonRpcMessage, RequestMetaObject, ServerJsonRpcMessage,
    ServerRequest,
};
use rmcp::transport::Transport;
use rmcp::transport::common::server_side_http::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::session::{EventStore, RestoreOutcome, SessionManager};

/// A server transport whose outgoing requests carry no progress token.
pub(crate) struct WithoutProgressTokens<T>(pub(crate) T);

impl<T: Transport<RoleServer>> Transport<RoleServer> for WithoutProgressTokens<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        mut message: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(request) = &mut message {
            drop_progress_token(&mut request.request);
        }
        self.0.send(message)
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.0.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.0.close()
    }
}

/// Removes the progress token, and `_meta` with it when nothing else is left in it.
fn drop_progress_token(request: &mut ServerRequest) {
    let extensions = request.extensions_mut();
    let Some(meta) = extensions.get_mut::<RequestMetaObject>() else {
        return;
    };
    meta.0.0.remove("progressToken");
    if meta.0.0.is_empty() {
        extensions.remove::<RequestMetaObject>();
    }
}

/// A session manager whose sessions' transports are [`WithoutProgressTokens`].
pub(crate) struct SessionsWithoutProgressTokens<M>(pub(crate) M);

impl<M: SessionManager> SessionManager for SessionsWithoutProgressTokens<M> {
    type Error = M::Error;
    type Transport = WithoutProgressTokens<M::Transport>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.0.create_session().await?;
        Ok((id, WithoutProgressTokens(transport)))
    }

    fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<ServerJsonRpcMessage, Self::Error>> + Send {
        self.0.initialize_session(id, message)
    }

    fn has_session(&self, id: &SessionId) -> impl Future<Output = Result<bool, Self::Error>> + Send {
        self.0.has_session(id)
    }

    fn close_session(&self, id: &SessionId) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.0.close_session(id)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.0.create_stream(id, message).await
    }

    fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.0.accept_message(id, message)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.0.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.0.resume(id, last_event_id).await
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        Ok(match self.0.restore_session(id).await? {
            RestoreOutcome::Restored(transport) => RestoreOutcome::Restored(WithoutProgressTokens(transport)),
            RestoreOutcome::AlreadyPresent => RestoreOutcome::AlreadyPresent,
            // `NotSupported`, and any outcome rmcp adds later: the session is not there.
            _ => RestoreOutcome::NotSupported,
        })
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.0.event_store()
    }
}
