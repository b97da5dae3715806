//! What a running tool may ask of its caller: the [`Caller`] trait and the requests it
//! answers (logging, elicitation, sampling). The trait's docs say what reaches it and how.

mod elicit;
mod form_schema;
mod input;
mod log;
mod sampling;

use std::error::Error as StdError;

pub use elicit::{ElicitAction, ElicitRequest, ElicitResponse, Elicited};
pub use form_schema::form_schema_for;
pub use input::{InputRequest, InputResponse, Root};
pub use log::{LogLevel, LogMessage};
pub use sampling::{Role, SamplingContent, SamplingMessage, SamplingRequest, SamplingResponse};

use crate::tool::BoxFuture;

/// Answers what a running tool may ask of whoever called it: to log, to ask the user
/// ([elicitation](ElicitRequest)), to ask the caller's model ([sampling](SamplingRequest)),
/// to list the client's [roots](Root); and keeps what a tool's steps produced for a later
/// run of the same call ([`recall`](Caller::recall)).
///
/// Over MCP the caller is the client: `agent-tools-mcp` gives each served call a caller that sends `notifications/message`,
/// `elicitation/create` and `sampling/createMessage` to it. Elsewhere the application sets
/// one on the registry ([`ToolRegistryBuilder::caller`](crate::registry::ToolRegistryBuilder::caller))
/// or on a call ([`ToolCall::with_caller`](crate::registry::ToolCall::with_caller)). A tool reaches
/// it through [`ToolContext::log`](crate::context::ToolContext::log),
/// [`elicit`](crate::context::ToolContext::elicit) and [`sample`](crate::context::ToolContext::sample); a
/// request nobody can answer fails with [`CallerError::NotAvailable`], which says so to the
/// model when the tool passes it on with `?`.
///
/// What this layer does not do: it does not keep a human's answer beyond the call, and it
/// does not check that a client's model said anything sensible. An elicited answer is
/// checked against the form's types ([`ToolContext::elicit`](crate::context::ToolContext::elicit)
/// deserializes it), nothing more.
///
///
/// Every method has a default: logging does nothing (the
/// [`ToolContext::log`](crate::context::ToolContext::log) `tracing` event is emitted anyway), and
/// elicitation and sampling fail with [`CallerError::NotAvailable`]. Implement what you
/// can answer:
///
/// ```
/// use agent_tools_core::{tool::BoxFuture, caller::{Caller, CallerError, ElicitAction, ElicitRequest, ElicitResponse}};
///
/// /// Declines every question: a non-interactive run.
/// struct Unattended;
///
/// impl Caller for Unattended {
///     fn elicit(&self, _request: ElicitRequest) -> BoxFuture<'_, Result<ElicitResponse, CallerError>> {
///         Box::pin(async { Ok(ElicitResponse::new(ElicitAction::Decline)) })
///     }
/// }
/// ```
pub trait Caller: Send + Sync + 'static {
    /// Receives a log message from a tool. Called for every message; filtering by level is
    /// the caller's business (an MCP client sets its level with `logging/setLevel`).
    fn log(&self, message: LogMessage) {
        let _ = message;
    }

    /// Asks the user, through a form or a URL to visit.
    fn elicit(&self, request: ElicitRequest) -> BoxFuture<'_, Result<ElicitResponse, CallerError>> {
        let _ = request;
        Box::pin(async { Err(CallerError::not_available("ask the user (elicitation)")) })
    }

    /// Asks the caller's model to generate a message.
    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, Result<SamplingResponse, CallerError>> {
        let _ = request;
        Box::pin(async { Err(CallerError::not_available("ask its model (sampling)")) })
    }

    /// Asks for the client's roots, the directories or files it works in.
    fn list_roots(&self) -> BoxFuture<'_, Result<Vec<Root>, CallerError>> {
        Box::pin(async { Err(CallerError::not_available("list its roots")) })
    }

    /// Asks the question named `key` (see [`InputRequest`]'s module for why it has a
    /// name). The default ignores the name and asks through [`elicit`](Self::elicit),
    /// [`sample`](Self::sample) or [`list_roots`](Self::list_roots); a caller that answers
    /// in a later request, by name, overrides it.
    fn ask(&self, key: &str, request: InputRequest) -> BoxFuture<'_, Result<InputResponse, CallerError>> {
        let _ = key;
        match request {
            InputRequest::Elicit(request) => {
                let answer = self.elicit(request);
                Box::pin(async move { answer.await.map(InputResponse::Elicit) })
            }
            InputRequest::Sample(request) => {
                let answer = self.sample(*request);
                Box::pin(async move { answer.await.map(InputResponse::Sample) })
            }
            InputRequest::ListRoots => {
                let answer = self.list_roots();
                Box::pin(async move { answer.await.map(InputResponse::Roots) })
            }
        }
    }

    /// The value a step named `key` produced in an earlier run of this call, if the caller
    /// kept it ([`ToolContext::remember`](crate::context::ToolContext::remember)). The
    /// default keeps nothing.
    fn recall(&self, key: &str) -> Option<serde_json::Value> {
        let _ = key;
        None
    }

    /// Keeps the value of the step named `key` for a later run of this call. The default
    /// drops it.
    fn keep(&self, key: &str, value: serde_json::Value) {
        let _ = (key, value);
    }

    /// Whether a question put to this caller may be answered after the request that made
    /// the call has ended, by whoever reaches where it is kept — a task's questions, kept
    /// in its store, answered by the client or from another program. A policy's approval
    /// that an approver deferred ([`Approval::Defer`](crate::approval::Approval::Defer))
    /// is then asked here, so that it waits with the call rather than apart from it. The
    /// default: no.
    fn asks_later(&self) -> bool {
        false
    }

    /// Who gave the answer to the question named `key`, when the caller knows (a person's
    /// name given with a task's answer); recorded in the audit log with an approval.
    fn answered_by(&self, key: &str) -> Option<String> {
        let _ = key;
        None
    }

    /// The questions this call was put aside for, when the caller ends the call to have
    /// them answered (an input-required round, a task's round): the audit log then
    /// records the ended run as pending on them, not as cancelled. The default: `None`.
    fn waiting_for(&self) -> Option<Vec<String>> {
        None
    }

    /// Makes the rest of the call a task ([`ToolContext::start_task`](crate::ToolContext::start_task)):
    /// a caller that can (an MCP server whose client takes tasks) ends this run of the
    /// call and never returns; the default returns at once, the call going on as it is.
    fn start_task(&self) -> BoxFuture<'_, Result<(), CallerError>> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// A shared caller, so an application can keep a handle on the one it gives a registry.
impl<C: Caller + ?Sized> Caller for std::sync::Arc<C> {
    fn log(&self, message: LogMessage) {
        (**self).log(message);
    }

    fn elicit(&self, request: ElicitRequest) -> BoxFuture<'_, Result<ElicitResponse, CallerError>> {
        (**self).elicit(request)
    }

    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, Result<SamplingResponse, CallerError>> {
        (**self).sample(request)
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Vec<Root>, CallerError>> {
        (**self).list_roots()
    }

    fn ask(&self, key: &str, request: InputRequest) -> BoxFuture<'_, Result<InputResponse, CallerError>> {
        (**self).ask(key, request)
    }

    fn recall(&self, key: &str) -> Option<serde_json::Value> {
        (**self).recall(key)
    }

    fn keep(&self, key: &str, value: serde_json::Value) {
        (**self).keep(key, value);
    }

    fn asks_later(&self) -> bool {
        (**self).asks_later()
    }

    fn answered_by(&self, key: &str) -> Option<String> {
        (**self).answered_by(key)
    }

    fn start_task(&self) -> BoxFuture<'_, Result<(), CallerError>> {
        (**self).start_task()
    }

    fn waiting_for(&self) -> Option<Vec<String>> {
        (**self).waiting_for()
    }
}

/// Why a request to the caller failed.
///
/// The messages are written for the model (a tool usually passes the error on with `?`,
/// which makes it the call's error result): they say what could not be done and why.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallerError {
    /// Nobody can answer: the client did not declare the capability, or no handler is
    /// set on the registry.
    #[error("this tool needs its caller to {what}, which the caller of this call cannot do")]
    NotAvailable {
        /// What was asked, e.g. `ask the user (elicitation)`.
        what: String,
    },
    /// The call was cancelled (or timed out) while waiting for the answer.
    #[error("the call was cancelled while waiting for its caller's answer")]
    Cancelled,
    /// A form type that the restricted schema of elicitation cannot express.
    #[error("the form cannot be shown: {0}")]
    UnsupportedForm(String),
    /// The user accepted, but the answer does not fit the form's type.
    #[error("the answer does not fit the form: {source}")]
    InvalidAnswer {
        /// Why it does not fit.
        #[source]
        source: serde_json::Error,
    },
    /// The caller could not be reached or answered with an error.
    #[error("the caller failed to answer: {}", crate::error::error_chain(.0.as_ref()))]
    Failed(#[source] Box<dyn StdError + Send + Sync>),
}

impl CallerError {
    /// [`CallerError::NotAvailable`] for `what` (e.g. `"ask the user (elicitation)"`).
    pub fn not_available(what: impl Into<String>) -> Self {
        Self::NotAvailable { what: what.into() }
    }

    /// [`CallerError::Failed`] with `error` as its source.
    pub fn failed(error: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        Self::Failed(error.into())
    }
}

/// A caller error becomes the call's error result; a cancellation keeps its kind.
impl From<CallerError> for crate::error::ToolError {
    fn from(error: CallerError) -> Self {
        match error {
            CallerError::Cancelled => crate::error::ToolError::cancelled_with(error),
            error => crate::error::ToolError::from_error(error),
        }
    }
}

#[cfg(test)]
mod tests;
