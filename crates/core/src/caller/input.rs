//! Input asked by name: [`InputRequest`] out, [`InputResponse`] back, and the client's
//! [`Root`]s.
//!
//! A tool that asks through [`ToolContext::ask`](crate::context::ToolContext::ask) names
//! each question. The name matters where the answers come back in a later request rather
//! than on the same connection: MCP 2026-07-28's input-required results (SEP-2322) end the
//! call with the questions, keyed by these names, and run it again with the answers under
//! the same names. Questions asked through [`elicit`](crate::context::ToolContext::elicit)
//! and [`sample`](crate::context::ToolContext::sample) are named by their order
//! (`elicit-1`, `sample-1`, …), which is stable as long as the tool asks in the same order
//! each time it runs.

use super::{ElicitRequest, ElicitResponse, SamplingRequest, SamplingResponse};

/// A question for the caller, one of the three kinds MCP lets a server ask.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputRequest {
    /// Ask the user (elicitation).
    Elicit(ElicitRequest),
    /// Ask the caller's model (sampling). Boxed: a sampling request is several times
    /// the size of the other questions.
    Sample(Box<SamplingRequest>),
    /// Ask for the client's roots: the directories or files it works in.
    ListRoots,
}

impl InputRequest {
    /// A question for the user.
    pub fn elicit(request: ElicitRequest) -> Self {
        Self::Elicit(request)
    }

    /// A question for the caller's model.
    pub fn sample(request: SamplingRequest) -> Self {
        Self::Sample(Box::new(request))
    }

    /// What the request asks the caller to do, as [`CallerError::NotAvailable`](super::CallerError::NotAvailable) words it.
    pub fn what(&self) -> &'static str {
        match self {
            InputRequest::Elicit(_) => "ask the user (elicitation)",
            InputRequest::Sample(_) => "ask its model (sampling)",
            InputRequest::ListRoots => "list its roots",
        }
    }
}

/// The answer to an [`InputRequest`], of the same kind.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputResponse {
    /// The user's answer.
    Elicit(ElicitResponse),
    /// The model's message.
    Sample(SamplingResponse),
    /// The client's roots.
    Roots(Vec<Root>),
}

impl InputResponse {
    /// The user's answer, if this is one.
    pub fn into_elicit(self) -> Option<ElicitResponse> {
        match self {
            Self::Elicit(response) => Some(response),
            _ => None,
        }
    }

    /// The model's message, if this is one.
    pub fn into_sample(self) -> Option<SamplingResponse> {
        match self {
            Self::Sample(response) => Some(response),
            _ => None,
        }
    }

    /// The client's roots, if this is the answer to [`InputRequest::ListRoots`].
    pub fn into_roots(self) -> Option<Vec<Root>> {
        match self {
            Self::Roots(roots) => Some(roots),
            _ => None,
        }
    }
}

/// A directory or file the client works in (MCP's `roots/list`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Root {
    /// Its URI, `file://…` today.
    pub uri: String,
    /// A name to show for it.
    pub name: Option<String>,
}

impl Root {
    /// A root at `uri`, without a name.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
        }
    }

    /// Names the root.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}
