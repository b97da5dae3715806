//! Cancelling a remote request when its caller stops waiting.

use rmcp::RoleClient;
use rmcp::model::{CancelledNotificationParam, RequestId};
use rmcp::service::Peer;

/// Sends `notifications/cancelled` for a request whose caller stopped waiting (the call
/// timed out, was cancelled, or its future was dropped), so the server stops working on
/// it.
pub(super) struct CancelOnDrop {
    pub(super) peer: Peer<RoleClient>,
    pub(super) id: Option<RequestId>,
}

impl CancelOnDrop {
    pub(super) fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let reason = "the caller stopped waiting".to_owned();
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(Some(id), Some(reason)))
                .await;
        });
    }
}
