//! Asking the user: [`ElicitRequest`] out, [`ElicitResponse`] back, [`Elicited`] for a
//! typed form.

use serde_json::{Map, Value};

/// A question for the user: a form to fill in, or a URL to visit (MCP's two elicitation
/// modes).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitRequest {
    /// A form: the user fills in an object matching `requested_schema`, a flat object
    /// schema of strings, numbers, booleans and enums (see
    /// [`form_schema_for`](crate::caller::form_schema_for)).
    Form {
        /// What is asked and why.
        message: String,
        /// The form.
        requested_schema: Value,
    },
    /// A URL the user should open (to sign in, pay, confirm…); the answer says only
    /// whether they agreed to, never what they did there.
    Url {
        /// Why the user should open it.
        message: String,
        /// The URL.
        url: String,
        /// Identifies this request, so a later notice of completion can name it.
        elicitation_id: String,
    },
}

impl ElicitRequest {
    /// A form request.
    pub fn form(message: impl Into<String>, requested_schema: Value) -> Self {
        Self::Form {
            message: message.into(),
            requested_schema,
        }
    }

    /// A URL request.
    pub fn url(
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Self {
        Self::Url {
            message: message.into(),
            url: url.into(),
            elicitation_id: elicitation_id.into(),
        }
    }

    /// What is asked.
    pub fn message(&self) -> &str {
        match self {
            Self::Form { message, .. } | Self::Url { message, .. } => message,
        }
    }
}

/// What the user did with a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElicitAction {
    /// Answered (a form's values are in [`ElicitResponse::content`]).
    Accept,
    /// Said no.
    Decline,
    /// Dismissed it without choosing.
    Cancel,
}

impl ElicitAction {
    /// The action as MCP writes it: `accept`, `decline` or `cancel`.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitAction::Accept => "accept",
            ElicitAction::Decline => "decline",
            ElicitAction::Cancel => "cancel",
        }
    }
}

/// The user's answer to an [`ElicitRequest`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ElicitResponse {
    /// What the user did.
    pub action: ElicitAction,
    /// A form's values, when the user accepted one.
    pub content: Option<Map<String, Value>>,
}

impl ElicitResponse {
    /// An answer without content (a decline, a cancel, an accepted URL).
    pub fn new(action: ElicitAction) -> Self {
        Self {
            action,
            content: None,
        }
    }

    /// An accepted form with its values.
    pub fn accept(content: Map<String, Value>) -> Self {
        Self {
            action: ElicitAction::Accept,
            content: Some(content),
        }
    }
}

/// The outcome of a typed form ([`ToolContext::elicit`](crate::context::ToolContext::elicit)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicited<T> {
    /// The user filled in the form.
    Accepted(T),
    /// The user said no.
    Declined,
    /// The user dismissed the form.
    Cancelled,
}

impl<T> Elicited<T> {
    /// The answer, if the user gave one.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicited::Accepted(value) => Some(value),
            Elicited::Declined | Elicited::Cancelled => None,
        }
    }
}
