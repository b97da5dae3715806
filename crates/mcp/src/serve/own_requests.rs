//! The requests our server sends a client — `sampling/createMessage`,
//! `elicitation/create`, `roots/list`, `ping` — without a progress token.
//!
//! rmcp puts a fresh `progressToken` in the `_meta` of every request a peer sends. We
//! never follow a client's progress on these, and a request a gateway forwards from a
//! mounted server must reach the client as the server wrote it: a token the server did
//! not send would tell the client that someone waits for progress that goes nowhere.
//! [`WithoutProgressTokens`] takes the token out as the message leaves, on any transport
//! (each session of streamable HTTP gets it from `http_sessions`).
//!
//! It does not touch requests from clients, responses or notifications, nor any other
//! `_meta` key.

use std::borrow::Cow;

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, GetExtensions as _, JsonRpcMessage, RequestMetaObject, ServerJsonRpcMessage,
    ServerRequest,
};
use rmcp::transport::Transport;

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
