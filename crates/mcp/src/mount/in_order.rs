//! [`InOrder`]: a mount's transport that hands a server's progress and log notifications
//! to the calls they belong to as they are read, in the order they came, before anything
//! read after them.
//!
//! rmcp runs each incoming notification's handler as a task of its own, so two progress
//! reports can reach a call in either order, and a report the server sent just before its
//! result can reach the call after the result — when nobody is listening any more. Taking
//! them off the transport as it is read, in the service loop's one sequential `receive`,
//! delivers every report, in order, before the result it preceded.

use rmcp::RoleClient;
use rmcp::model::{ServerJsonRpcMessage, ServerNotification};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use super::progress::ProgressRoutes;
use super::requests::{self, CallsInFlight};

/// Wraps a client transport; see the [module docs](self).
pub(super) struct InOrder<T> {
    inner: T,
    progress: ProgressRoutes,
    calls: CallsInFlight,
}

impl<T> InOrder<T> {
    pub(super) fn new(inner: T, progress: ProgressRoutes, calls: CallsInFlight) -> Self {
        Self {
            inner,
            progress,
            calls,
        }
    }

    /// Delivers a progress or log notification; gives back every other message.
    #[allow(deprecated)] // Logging: see `client_caller`.
    fn deliver(&self, message: ServerJsonRpcMessage) -> Option<ServerJsonRpcMessage> {
        let ServerJsonRpcMessage::Notification(notification) = &message else {
            return Some(message);
        };
        match &notification.notification {
            ServerNotification::ProgressNotification(progress) => {
                self.progress.report(progress.params.clone());
                None
            }
            ServerNotification::LoggingMessageNotification(log) => {
                requests::log(&self.calls, &log.params, &log.extensions);
                None
            }
            _ => Some(message),
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for InOrder<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let message = self.inner.receive().await?;
            if let Some(message) = self.deliver(message) {
                return Some(message);
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
