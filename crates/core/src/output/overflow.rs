//! Where the part of a result that did not fit its token budget goes, so that the model
//! can page through it instead of losing it.
//!
//! The registry cuts a result to its budget (see
//! [`ToolRegistryBuilder::max_result_tokens`](crate::registry::ToolRegistryBuilder::max_result_tokens))
//! and hands the whole text to the registry's [`ResultOverflow`], which keeps it and says
//! where; the result then ends with a note naming the place and the line to go on from.
//! `agent-tools-builtins` keeps it as a file in the workspace that `read_file` pages
//! through; a server can also offer it as a resource (MCP's `resource_link`).

use crate::tool::BoxFuture;

/// The whole text of a result that did not fit, and whose it was.
#[derive(Debug)]
#[non_exhaustive]
pub struct OverflowedResult<'a> {
    /// The provider's call id.
    pub call_id: &'a str,
    /// The tool that returned it.
    pub tool: &'a str,
    /// The call's session, if any.
    pub session_id: Option<&'a str>,
    /// Every text part of the result, joined by newlines.
    pub text: &'a str,
}

/// Where an overflowed result was kept.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeptResult {
    /// A path the model can read with `read_file` (relative to the workspace).
    pub path: Option<String>,
    /// A URI a client can read the text from (`resources/read` over MCP); the result then
    /// carries a link to it for clients that follow links.
    pub uri: Option<String>,
}

impl KeptResult {
    /// Kept at `path`, which the model reads with `read_file`.
    pub fn file(path: impl Into<String>) -> Self {
        Self {
            path: Some(path.into()),
            uri: None,
        }
    }

    /// Also readable at `uri`.
    pub fn with_uri(mut self, uri: impl Into<String>) -> Self {
        self.uri = Some(uri.into());
        self
    }
}

/// Keeps results that did not fit their budget (see [`ToolRegistryBuilder::result_overflow`](crate::registry::ToolRegistryBuilder::result_overflow)).
pub trait ResultOverflow: Send + Sync + 'static {
    /// Keeps `result.text` and says where, or why it could not (the result is then cut
    /// with a note saying so, as without a store).
    fn keep<'a>(&'a self, result: OverflowedResult<'a>) -> BoxFuture<'a, Result<KeptResult, String>>;

    /// The text kept at `uri`, for a client reading a link this store handed out; `None`
    /// for a URI it does not know.
    fn read<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Option<String>> {
        let _ = uri;
        Box::pin(async { None })
    }
}
