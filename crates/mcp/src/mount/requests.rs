//! A remote server's requests and log messages, passed to the caller of the call that
//! caused them: the gateway half of mounting.
//!
//! When a mounted tool's server asks the user something (`elicitation/create`), asks for
//! a model (`sampling/createMessage`) or the client's roots (`roots/list`), or logs (`notifications/message`) while one of our
//! calls runs, the request goes to that call's [`ToolContext`]: to our own MCP client
//! when we serve the call, else to the registry's [`Caller`](agent_tools_core::caller::Caller). Which call
//! caused a request is known exactly over streamable HTTP, where the request arrives on
//! the response stream of our `tools/call` (rmcp marks it with [`InboundStreamOrigin`]);
//! over stdio MCP does not say, and the most recently started call is taken. A request
//! with no call in flight is refused: there is nobody to ask.

// Sampling and logging are deprecated for MCP 2026-07-28 (SEP-2577); see `client_caller`.
#![allow(deprecated)]

use std::sync::{Arc, Mutex, PoisonError};

use agent_tools_core::{ToolContext, caller::CallerError};
use rmcp::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ListRootsResult, LoggingMessageNotificationParam, RequestId,
};
use rmcp::service::InboundStreamOrigin;
use rmcp::{ErrorData as McpError, model::Extensions};
use serde_json::json;

use crate::wire::caller;

/// What the mount tells servers it can do: elicitation (forms and URLs), sampling with
/// tools and roots, all passed on to the caller of the call. Declared whoever that will
/// be; a caller that cannot answer turns the request into an error the server sees.
pub(super) fn capabilities() -> ClientCapabilities {
    // Tasks (MCP's extension): a call the server makes a task is followed to its result
    // (`remote_task`).
    let declared = json!({
        "elicitation": {"form": {}, "url": {}},
        "sampling": {"tools": {}},
        "roots": {},
        "extensions": {"io.modelcontextprotocol/tasks": {}},
    });
    serde_json::from_value(declared).unwrap_or_default()
}

/// `elicitation/create` from the server, answered by the caller.
pub(super) async fn elicit(
    calls: &CallsInFlight,
    params: ElicitRequestParams,
    extensions: &Extensions,
) -> Result<ElicitResult, McpError> {
    let ctx = calls.caller_of(extensions.get()).ok_or_else(no_call)?;
    let request = caller::elicit_request(params).map_err(|why| McpError::invalid_params(why, None))?;
    let response = ctx.elicit_request(request).await.map_err(refused)?;
    Ok(caller::elicit_result(response))
}

/// `sampling/createMessage` from the server, answered by the caller.
pub(super) async fn sample(
    calls: &CallsInFlight,
    params: &CreateMessageRequestParams,
    extensions: &Extensions,
) -> Result<CreateMessageResult, McpError> {
    let ctx = calls.caller_of(extensions.get()).ok_or_else(no_call)?;
    let request = caller::sampling_request(params).map_err(|why| McpError::invalid_params(why, None))?;
    let response = ctx.sample(request).await.map_err(refused)?;
    caller::sampling_result(response).map_err(|why| McpError::internal_error(why, None))
}

/// `roots/list` from the server, answered by the caller.
pub(super) async fn list_roots(
    calls: &CallsInFlight,
    extensions: &Extensions,
) -> Result<ListRootsResult, McpError> {
    let ctx = calls.caller_of(extensions.get()).ok_or_else(no_call)?;
    let roots = ctx.list_roots().await.map_err(refused)?;
    Ok(caller::roots_result(roots))
}

/// `notifications/message` from the server, logged to the caller of the call in flight
/// (and to `tracing` by [`ToolContext::log_message`]); without a call, to `tracing` only.
pub(super) fn log(calls: &CallsInFlight, params: &LoggingMessageNotificationParam, extensions: &Extensions) {
    let Some(message) = caller::log_message(params) else {
        return;
    };
    match calls.caller_of(extensions.get()) {
        Some(ctx) => ctx.log_message(message),
        None => {
            tracing::info!(target: "agent_tools_mcp::mounted_log", data = %message.data, "a mounted MCP server logged")
        }
    }
}

fn no_call() -> McpError {
    McpError::invalid_request("no tool call is in flight to ask on behalf of", None)
}

/// The caller's refusal as the server sees it: it can tell "not available" from a failure.
fn refused(error: CallerError) -> McpError {
    match error {
        CallerError::NotAvailable { .. } => {
            McpError::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, error.to_string(), None)
        }
        error => McpError::internal_error(error.to_string(), None),
    }
}

/// The calls in flight on a session, oldest first.
#[derive(Clone, Default)]
pub(super) struct CallsInFlight(Arc<Mutex<Vec<(RequestId, ToolContext)>>>);

impl CallsInFlight {
    /// Records the call sent as request `id` until the guard is dropped.
    pub(super) fn enter(&self, id: RequestId, ctx: ToolContext) -> InFlight {
        self.lock().push((id.clone(), ctx));
        InFlight {
            calls: self.clone(),
            id,
        }
    }

    /// The context of the call a remote request belongs to, as its origin says, else the
    /// most recent call.
    pub(super) fn caller_of(&self, origin: Option<&InboundStreamOrigin>) -> Option<ToolContext> {
        let calls = self.lock();
        if let Some(InboundStreamOrigin::OutboundRequest(id)) = origin
            && let Some((_, ctx)) = calls.iter().find(|(call, _)| call == id)
        {
            return Some(ctx.clone());
        }
        calls.last().map(|(_, ctx)| ctx.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(RequestId, ToolContext)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Removes a call from [`CallsInFlight`] when it ends.
pub(super) struct InFlight {
    calls: CallsInFlight,
    id: RequestId,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut calls = self.calls.lock();
        if let Some(position) = calls.iter().position(|(id, _)| *id == self.id) {
            let removed = calls.remove(position);
            drop(calls);
            drop(removed);
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::NumberOrString;

    use super::*;

    fn id(n: i64) -> RequestId {
        NumberOrString::Number(n)
    }

    #[test]
    fn a_request_goes_to_the_call_it_came_with_else_to_the_latest() {
        let calls = CallsInFlight::default();
        assert!(calls.caller_of(None).is_none(), "no call, nobody to ask");
        let first = calls.enter(id(1), ToolContext::new("first"));
        let second = calls.enter(id(2), ToolContext::new("second"));
        let origin = InboundStreamOrigin::OutboundRequest(id(1));
        assert_eq!(calls.caller_of(Some(&origin)).unwrap().call_id(), "first");
        assert_eq!(calls.caller_of(None).unwrap().call_id(), "second");
        assert_eq!(
            calls
                .caller_of(Some(&InboundStreamOrigin::Unassociated))
                .unwrap()
                .call_id(),
            "second"
        );
        drop(second);
        assert_eq!(calls.caller_of(None).unwrap().call_id(), "first");
        drop(first);
        assert!(calls.caller_of(None).is_none());
    }
}
