//! Telling observers that the set of tools changed, e.g. so an MCP server can send
//! `notifications/tools/list_changed`.
//!
//! A `watch` channel carries a change counter rather than the tools themselves: an
//! observer only needs to know *that* the list changed and re-reads the registry, and
//! a burst of changes wakes it once instead of queueing every step.

use tokio::sync::watch;

/// Waits for changes to a registry's tools; from [`ToolRegistry::changes`].
///
/// Registering, unregistering and replacing tools each count as one change. Registries
/// derived with [`ToolRegistry::filter`] and friends are snapshots with their own
/// changes.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), agent_tools_core::error::RegistryError> {
/// use serde_json::json;
/// use agent_tools_core::{ToolContext, ToolError, ToolRegistry, tool::DynamicTool};
///
/// let registry = ToolRegistry::new();
/// let mut changes = registry.changes();
/// registry.register(DynamicTool::new("noop", "Do nothing.", json!({"type": "object"}), |_, _: ToolContext| async {
///     Ok::<_, ToolError>("")
/// }))?;
/// assert!(changes.changed().await);
/// # Ok(())
/// # }
/// ```
///
/// [`ToolRegistry::changes`]: crate::registry::ToolRegistry::changes
/// [`ToolRegistry::filter`]: crate::registry::ToolRegistry::filter
#[derive(Debug, Clone)]
pub struct ToolChanges(watch::Receiver<u64>);

impl ToolChanges {
    pub(super) fn new(receiver: watch::Receiver<u64>) -> Self {
        Self(receiver)
    }

    /// Waits until the tools change after the last time this was called (or after this
    /// value was made). Returns `false` once the registry is gone and nothing more can
    /// change.
    pub async fn changed(&mut self) -> bool {
        self.0.changed().await.is_ok()
    }

    /// How many changes the registry has had, for observers that poll.
    pub fn version(&self) -> u64 {
        *self.0.borrow()
    }
}

/// The sending side, held by the registry.
#[derive(Debug)]
pub(super) struct ChangeSender(watch::Sender<u64>);

impl Default for ChangeSender {
    fn default() -> Self {
        Self(watch::Sender::new(0))
    }
}

impl ChangeSender {
    pub(super) fn subscribe(&self) -> ToolChanges {
        ToolChanges::new(self.0.subscribe())
    }

    pub(super) fn notify(&self) {
        self.0.send_modify(|version| *version += 1);
    }
}
