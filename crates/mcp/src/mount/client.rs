//! [`MountClient`]: our side of a session with a mounted server, as rmcp calls it.

// Sampling and logging are deprecated for MCP 2026-07-28 (SEP-2577); see `client_caller`.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    Implementation, ListRootsResult, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient};
use tokio::sync::watch;

use super::requests::{self, CallsInFlight};

/// The client side of a session: notes `list_changed` and passes the server's questions,
/// sampling requests and requests for roots to the caller of the call in flight
/// ([`requests`]). Progress and log messages are taken off the
/// transport before they get here ([`InOrder`](super::in_order::InOrder)).
pub(super) struct MountClient {
    pub(super) list_changed: Arc<watch::Sender<u64>>,
    pub(super) calls: CallsInFlight,
}

impl ClientHandler for MountClient {
    /// The version offered is the one of `initialize` (rmcp's default, 2026-07-28, is
    /// negotiated with `server/discover` instead and has no `initialize`): a mount that
    /// connects with `initialize` speaks 2025-11-25, as
    /// [`prefer_initialize`](super::MountOptions::prefer_initialize) promises.
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            requests::capabilities(),
            Implementation::new("agent-tools", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        requests::elicit(&self.calls, params, &context.extensions).await
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        requests::sample(&self.calls, &params, &context.extensions).await
    }

    async fn list_roots(&self, context: RequestContext<RoleClient>) -> Result<ListRootsResult, McpError> {
        requests::list_roots(&self.calls, &context.extensions).await
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed
            .send_modify(|version| *version = version.wrapping_add(1));
    }
}
