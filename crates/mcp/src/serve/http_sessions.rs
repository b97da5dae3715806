//! The sessions of streamable HTTP: rmcp's session manager, with what we add around it.
//!
//! - Each session's transport sends our requests without progress tokens
//!   ([`WithoutProgressTokens`]; see `own_requests`).
//! - A request whose JSON-RPC id is that of a request still in flight in the same session
//!   is answered at once with an `Invalid Request` error naming the id. rmcp's session
//!   routes a response to its HTTP request by the JSON-RPC id alone: a second request
//!   with the id took the first one's route, the first response went to the second
//!   request's stream and closed it, and the first HTTP request waited forever. JSON-RPC
//!   asks a client for ids unique among its requests in flight; a client that breaks
//!   that now learns so, and only the repeated request is refused.
//!
//! What the id check does not cover: an id counts as in flight until the stream of its
//! response ends, which a client that hangs up ends early — a request it sends again
//! with the same id while the first is still running is accepted, and the first
//! request's response may reach it. Stateless servers have no sessions and no routing
//! by id, so nothing here applies to them.

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use futures_util::future::Either;
use futures_util::{Stream, stream};
use rmcp::ErrorData;
use rmcp::model::{ClientJsonRpcMessage, JsonRpcError, JsonRpcMessage, RequestId, ServerJsonRpcMessage};
use rmcp::transport::common::server_side_http::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::session::{EventStore, RestoreOutcome, SessionManager};

use super::own_requests::WithoutProgressTokens;

/// rmcp's session manager `M` with what the [module docs](self) list.
pub(crate) struct HttpSessions<M> {
    inner: M,
    in_flight: Arc<InFlight>,
}

impl<M> HttpSessions<M> {
    pub(crate) fn new(inner: M) -> Self {
        Self {
            inner,
            in_flight: Arc::default(),
        }
    }
}

/// The requests of every session whose response has not ended, by session and id.
#[derive(Default)]
struct InFlight(Mutex<HashSet<(SessionId, RequestId)>>);

impl InFlight {
    /// Marks the request in flight until the mark is dropped; `None` when it already was.
    fn start(self: &Arc<Self>, key: (SessionId, RequestId)) -> Option<InFlightMark> {
        let fresh = self.lock().insert(key.clone());
        fresh.then(|| InFlightMark {
            in_flight: self.clone(),
            key,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<(SessionId, RequestId)>> {
        // A set of keys cannot be left half-changed by a panic elsewhere.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A request's place in [`InFlight`], given up when dropped.
struct InFlightMark {
    in_flight: Arc<InFlight>,
    key: (SessionId, RequestId),
}

impl Drop for InFlightMark {
    fn drop(&mut self) {
        self.in_flight.lock().remove(&self.key);
    }
}

/// A response's stream, holding its request's mark for as long as it is sent.
struct Responding<S> {
    stream: S,
    _mark: Option<InFlightMark>,
}

impl<S: Stream + Unpin> Stream for Responding<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        Pin::new(&mut self.stream).poll_next(cx)
    }
}

/// The answer to a request whose id is in flight in its session.
fn id_in_use(id: RequestId) -> ServerSseMessage {
    let problem = format!(
        "request id {id} is already in use by a request of this session still in flight; \
         give each request an id of its own"
    );
    let error = JsonRpcError::new(Some(id), ErrorData::invalid_request(problem, None));
    ServerSseMessage::from_message(ServerJsonRpcMessage::Error(error))
}

impl<M: SessionManager> SessionManager for HttpSessions<M> {
    type Error = M::Error;
    type Transport = WithoutProgressTokens<M::Transport>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        Ok((id, WithoutProgressTokens(transport)))
    }

    fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<ServerJsonRpcMessage, Self::Error>> + Send {
        self.inner.initialize_session(id, message)
    }

    fn has_session(&self, id: &SessionId) -> impl Future<Output = Result<bool, Self::Error>> + Send {
        self.inner.has_session(id)
    }

    fn close_session(&self, id: &SessionId) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close_session(id)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // rmcp opens a stream for requests only; anything else goes through unmarked.
        let mark = match &message {
            JsonRpcMessage::Request(request) => {
                let key = (id.clone(), request.id.clone());
                match self.in_flight.start(key) {
                    Some(mark) => Some(mark),
                    None => return Ok(Either::Right(stream::iter([id_in_use(request.id.clone())]))),
                }
            }
            _ => None,
        };
        // Marked before the request reaches the session, so that a duplicate arriving
        // meanwhile is refused; the mark goes with an error, or with the response's stream.
        let stream = Box::pin(self.inner.create_stream(id, message).await?);
        Ok(Either::Left(Responding { stream, _mark: mark }))
    }

    fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.accept_message(id, message)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        Ok(match self.inner.restore_session(id).await? {
            RestoreOutcome::Restored(transport) => RestoreOutcome::Restored(WithoutProgressTokens(transport)),
            RestoreOutcome::AlreadyPresent => RestoreOutcome::AlreadyPresent,
            // `NotSupported`, and any outcome rmcp adds later: the session is not there.
            _ => RestoreOutcome::NotSupported,
        })
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}
