//! [`ToolVisibility`]: which tools one call may know of.
//!
//! What it stops: a call learning, through the registry, of a tool it does not see — by
//! `tool_search`, an unknown tool's error, or a call of it. What it does not stop: what
//! tools themselves say, the audit log, timing, and anything outside the registry. The
//! type's docs list both in full, for users of the crate.

use std::fmt;
use std::sync::Arc;

use crate::spec::ToolSpec;

/// Which tools a call may know of.
///
/// A server that answers several users — an MCP server whose OAuth scopes grant each
/// token some of the tools — lists each caller only the tools it may use. But a registry
/// also reveals tools outside its list: its `tool_search` answers with the full
/// definitions of the deferred tools it finds, and an unknown tool's error names the
/// tools whose names are close and those that are available. A call made
/// [with a visibility](crate::registry::ToolCall::with_visibility) is answered, on each of those
/// paths, as if the tools it does not see were not registered.
///
/// What it stops, for that call: the registry's search finding a tool it does not see,
/// or letting one weigh in the ranking of the others (it searches the deferred tools the
/// call sees as a registry holding only those would, BM25's word weights included); an
/// unknown tool's "did you mean" and list of available tools naming one; a call of one
/// running (it is an unknown tool, with the same message as a name never registered);
/// and the registry's search itself while the call sees none of the tools it searches.
/// [`ToolRegistry::definitions_for`](crate::registry::ToolRegistry::definitions_for) offers what a
/// caller sees, by the same rule.
///
/// What it does not stop: what tools say in their own output (a tool that lists other
/// tools, a mounted server's own search, which answers from that server); the audit log,
/// which records a call of a hidden tool as an unknown tool, with its principal; the
/// time a search takes (the first search by a new set of visible tools builds that set's
/// index); and anything outside the registry, such as an HTTP layer that refuses a call
/// naming the scopes it needs. It decides what a call is shown, not who may make it: pair
/// it with authentication (the MCP server sets it from the token's scopes).
///
/// The predicate is asked about tools while a call is dispatched and a search runs (up
/// to once per deferred tool for a search), so it should be cheap, and it should give the
/// same answer for the same tool throughout a call. Cloning shares it.
///
/// ```
/// use serde_json::json;
/// use agent_tools_core::{tool::ToolSpec, search::ToolVisibility};
///
/// let read_only = ToolVisibility::new(|spec: &ToolSpec| spec.meta.annotations.read_only == Some(true));
/// let mut peek = ToolSpec::new("peek", "Look.", json!({"type": "object"}));
/// peek.meta.annotations.read_only = Some(true);
/// let poke = ToolSpec::new("poke", "Touch.", json!({"type": "object"}));
/// assert!(read_only.sees(&peek));
/// assert!(!read_only.sees(&poke));
/// ```
#[derive(Clone)]
pub struct ToolVisibility(Arc<dyn Fn(&ToolSpec) -> bool + Send + Sync>);

impl ToolVisibility {
    /// Sees the tools for which `sees` returns `true`.
    pub fn new(sees: impl Fn(&ToolSpec) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(sees))
    }

    /// Whether the tool `spec` describes is visible.
    pub fn sees(&self, spec: &ToolSpec) -> bool {
        (self.0)(spec)
    }
}

impl fmt::Debug for ToolVisibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ToolVisibility(..)")
    }
}
