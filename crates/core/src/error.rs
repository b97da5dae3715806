//! The two kinds of failure in this crate.
//!
//! [`ToolError`] is a tool's failure. It is *for the model*: the registry turns it into a
//! tool result with `is_error = true` and the error's message as its text, so the message
//! should say what went wrong and, where possible, what to do instead.
//!
//! [`RegistryError`] is for the application: a registration conflict, an invalid name or an
//! unusable schema. No model input can cause one. Its causes are typed and kept as
//! sources: [`ToolNameError`] for a name, [`SchemaError`] for a schema.

use std::error::Error as StdError;
use std::fmt;

use crate::spec::ToolNameError;

/// A tool's failure, reported to the model as an error result.
///
/// Tools usually return their own error type (anything that implements `Display`); the
/// `#[tool]` macro converts it. Return a `ToolError` directly to choose its
/// [`kind`](ToolErrorKind), e.g. to blame the arguments:
///
/// ```
/// use agent_tools_core::ToolError;
///
/// fn check_range(start: u64, end: u64) -> Result<(), ToolError> {
///     if start > end {
///         return Err(ToolError::invalid_arguments(format!(
///             "`start` ({start}) must not be after `end` ({end})"
///         )));
///     }
///     Ok(())
/// }
/// assert!(check_range(5, 1).is_err());
/// ```
#[derive(Debug)]
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
    source: Option<Box<dyn StdError + Send + Sync>>,
}

/// What a [`ToolError`] blames; decides the call's audit outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// The tool ran and failed (file not found, command failed, …).
    Execution,
    /// The arguments were well-formed JSON but unusable (rejected by deserialization or by
    /// the tool's own checks).
    InvalidArguments,
    /// The tool noticed that its call was cancelled and stopped.
    Cancelled,
    /// The tool stopped work that ran out of its own time limit (audit outcome
    /// `timeout`, like a call the registry stopped).
    TimedOut,
    /// The model should fix its call and try again ([`ToolError::retry`]).
    Retry,
}

impl ToolError {
    /// A failure of the tool with a message for the model.
    pub fn new(message: impl fmt::Display) -> Self {
        Self::with_kind(ToolErrorKind::Execution, message)
    }

    /// A failure caused by the arguments; reported like a validation error.
    pub fn invalid_arguments(message: impl fmt::Display) -> Self {
        Self::with_kind(ToolErrorKind::InvalidArguments, message)
    }

    /// The model should correct its call and try again: the message says how. The
    /// registry counts these per tool and session against a budget
    /// ([`ToolRegistryBuilder::retries`](crate::registry::ToolRegistryBuilder::retries),
    /// `#[tool(retries = N)]`); once it is spent, the call is refused for good.
    pub fn retry(message: impl fmt::Display) -> Self {
        Self::with_kind(ToolErrorKind::Retry, message)
    }

    /// The tool stopped because its call was cancelled.
    pub fn cancelled() -> Self {
        Self::cancelled_with("the call was cancelled")
    }

    /// The tool stopped because its call was cancelled; the message says what it had done
    /// by then (e.g. a command's output so far).
    pub fn cancelled_with(message: impl fmt::Display) -> Self {
        Self::with_kind(ToolErrorKind::Cancelled, message)
    }

    /// The tool stopped work that ran out of time; the message says what it had done by
    /// then. Recorded with the outcome `timeout`.
    pub fn timed_out(message: impl fmt::Display) -> Self {
        Self::with_kind(ToolErrorKind::TimedOut, message)
    }

    /// Wraps an error, keeping it as the source; the message is its [`error_chain`].
    pub fn from_error(error: impl StdError + Send + Sync + 'static) -> Self {
        Self {
            kind: ToolErrorKind::Execution,
            message: error_chain(&error),
            source: Some(Box::new(error)),
        }
    }

    fn with_kind(kind: ToolErrorKind, message: impl fmt::Display) -> Self {
        Self {
            kind,
            message: message.to_string(),
            source: None,
        }
    }

    /// What the error blames.
    pub fn kind(&self) -> ToolErrorKind {
        self.kind
    }

    /// The message shown to the model.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl StdError for ToolError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn StdError + 'static))
    }
}

/// An error and its sources, joined with `": "`: the whole story in one line, as a
/// message for a model or a log should tell it (`Display` of most errors says only the
/// outermost step, e.g. "error sending request" without the refused connection).
///
/// A source whose text the message already contains is left out: many errors repeat
/// their source in their own message, and it should not be said twice.
pub fn error_chain(error: &dyn StdError) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !message.contains(&cause_text) {
            message.push_str(": ");
            message.push_str(&cause_text);
        }
        source = cause.source();
    }
    message
}

/// An application error from registering or composing tools.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// A tool with this name is already registered.
    #[error("a tool named `{name}` is already registered")]
    DuplicateName {
        /// The conflicting name.
        name: String,
    },
    /// The name does not match `^[a-zA-Z0-9_-]{1,64}$`, which every provider accepts.
    #[error("invalid tool name `{name}`: {source}")]
    InvalidName {
        /// The rejected name.
        name: String,
        /// Why it was rejected.
        #[source]
        source: ToolNameError,
    },
    /// The tool's input schema cannot be used (not an object, or not a valid JSON Schema).
    #[error("tool `{tool}` has an unusable input schema: {source}")]
    InvalidSchema {
        /// The tool's name.
        tool: String,
        /// What is wrong with the schema.
        #[source]
        source: SchemaError,
    },
    /// An argument declared to travel as an HTTP header
    /// ([`ToolMeta::header_argument`](crate::tool::ToolMeta::header_argument)) cannot.
    #[error("tool `{tool}` declares a header it cannot serve: {reason}")]
    InvalidHeaderArgument {
        /// The tool's name.
        tool: String,
        /// Which declaration is wrong and why.
        reason: String,
    },
    /// A name given to [`ToolRegistry::subset`](crate::registry::ToolRegistry::subset) is not
    /// registered.
    #[error("no tool named `{name}` is registered")]
    UnknownTool {
        /// The missing name.
        name: String,
    },
}

/// Why a schema cannot describe a tool's arguments
/// ([`check_input_schema`](crate::schema::check_input_schema),
/// [`ArgValidator::new`](crate::validation::ArgValidator::new)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The schema is not a JSON object (e.g. `true`, which JSON Schema allows but which
    /// names no arguments).
    #[error("the schema must be a JSON object, got `{found}`")]
    NotAnObject {
        /// The JSON type the schema has instead (`boolean`, `string`, …).
        found: &'static str,
    },
    /// The root's `type` is not `"object"`.
    #[error(
        "the root must have `\"type\": \"object\"` (tool arguments are named fields), got `\"type\": {found}`; wrap the value in a struct"
    )]
    RootNotObject {
        /// The root's `type` as it is.
        found: serde_json::Value,
    },
    /// The root has no `type`.
    #[error(
        "the root must have `\"type\": \"object\"` (tool arguments are named fields); use a struct, or an enum whose variants are all structs"
    )]
    RootTypeMissing,
    /// The root's `$schema` names a dialect other than JSON Schema drafts 4, 6, 7,
    /// 2019-09 and 2020-12.
    #[error(
        "the schema declares `\"$schema\": {declared}`, a dialect this library does not know; drafts 4, 6, 7, 2019-09 and 2020-12 (the default) are supported"
    )]
    UnknownDraft {
        /// The root's `$schema` as it is.
        declared: serde_json::Value,
    },
    /// The schema is an object schema but not a valid JSON Schema (e.g. it names a
    /// `type` that does not exist).
    #[error("not a valid JSON Schema: {source}")]
    Invalid {
        /// The validator's complaint. Boxed so that the validator's own error type is not
        /// part of this crate's API.
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer(std::io::Error);
    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("could not read config")
        }
    }
    impl StdError for Outer {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn from_error_joins_the_source_chain() {
        let error = ToolError::from_error(Outer(std::io::Error::other("disk on fire")));
        assert_eq!(error.message(), "could not read config: disk on fire");
        assert_eq!(error.kind(), ToolErrorKind::Execution);
        assert!(error.source().is_some());
    }

    #[test]
    fn the_chain_says_a_repeated_source_once() {
        #[derive(Debug)]
        struct Repeats(std::io::Error);
        impl fmt::Display for Repeats {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "could not connect: {}", self.0)
            }
        }
        impl StdError for Repeats {
            fn source(&self) -> Option<&(dyn StdError + 'static)> {
                Some(&self.0)
            }
        }
        let error = Outer(std::io::Error::other("refused"));
        assert_eq!(
            error_chain(&Repeats(std::io::Error::other("refused"))),
            "could not connect: refused"
        );
        assert_eq!(error_chain(&error), "could not read config: refused");
    }

    #[test]
    fn constructors_set_the_kind() {
        assert_eq!(
            ToolError::invalid_arguments("x").kind(),
            ToolErrorKind::InvalidArguments
        );
        assert_eq!(ToolError::cancelled().kind(), ToolErrorKind::Cancelled);
        assert_eq!(ToolError::new("boom").to_string(), "boom");
    }
}
