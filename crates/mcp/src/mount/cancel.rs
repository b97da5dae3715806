//! Cancelling a remote request, or a remote task, when its caller stops waiting.

use rmcp::RoleClient;
use rmcp::model::{
    CancelTaskParams, CancelTaskRequest, CancelledNotificationParam, ClientRequest, RequestId,
};
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

/// Sends `tasks/cancel` for a remote task whose call stopped waiting (cancelled, timed
/// out, its future dropped), so the server stops working on it.
pub(super) struct CancelTaskOnDrop {
    pub(super) peer: Peer<RoleClient>,
    pub(super) task_id: Option<String>,
}

impl CancelTaskOnDrop {
    pub(super) fn disarm(&mut self) {
        self.task_id = None;
    }
}

impl Drop for CancelTaskOnDrop {
    fn drop(&mut self) {
        let Some(task_id) = self.task_id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let request =
                ClientRequest::CancelTaskRequest(CancelTaskRequest::new(CancelTaskParams::new(task_id)));
            // A server that is gone has nothing left to cancel.
            let _ = peer.send_request(request).await;
        });
    }
}
