//! [`Toolset`]: several tools sharing one piece of state, registered together.

use std::sync::Arc;

use crate::tool::Tool;

/// A group of tools built from one shared value; `#[toolset]` implements it for an `impl`
/// block whose `#[tool]` methods take `&self`.
///
/// `tools` decides which tools exist (a `#[tool(enabled = …)]` condition is evaluated
/// here), so the same toolset can expose different tools under different configurations.
pub trait Toolset: Send + Sync + 'static {
    /// The tools of this set, each holding a clone of `self`.
    fn tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>>;
}
