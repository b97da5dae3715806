//! What a dialect could not express.

use std::fmt;

/// A part of a schema a dialect cannot express, with where it is and why.
///
/// The path is a JSON Pointer into the schema as the dialect rewrote it (often the same
/// as the canonical schema), e.g. `/properties/tags`; empty for the root or the tool as a
/// whole.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaIssue {
    /// Where in the schema, as a JSON Pointer.
    pub path: String,
    /// What cannot be expressed and why.
    pub message: String,
}

impl SchemaIssue {
    /// An issue at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for SchemaIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "`{}`: {}", self.path, self.message)
        }
    }
}
