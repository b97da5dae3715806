//! Following a mounted server's tool list: on `list_changed` (or a new session), list
//! the tools again and swap this mount's tools in the registry in one change.
//!
//! The follower holds the registry weakly (its tools hold the connection, which must not
//! keep the registry alive) and watches the registry's changes to notice when it is
//! gone; then it ends, and with it the connection.

use std::sync::Arc;

use agent_tools_core::registry::ToolChanges;
use tokio::sync::watch;

use super::MountShared;
use super::remote_tool;

/// Starts following; the task ends on unmount or when the registry is dropped.
pub(super) fn spawn(
    shared: Arc<MountShared>,
    local_changes: ToolChanges,
    remote_changes: watch::Receiver<u64>,
) {
    tokio::spawn(follow(shared, local_changes, remote_changes));
}

async fn follow(
    shared: Arc<MountShared>,
    mut local_changes: ToolChanges,
    mut remote_changes: watch::Receiver<u64>,
) {
    loop {
        tokio::select! {
            () = shared.unmounted.cancelled() => return,
            alive = local_changes.changed() => {
                if !alive {
                    return; // The registry is gone.
                }
            }
            changed = remote_changes.changed() => {
                if changed.is_err() {
                    return;
                }
                refresh(&shared).await;
            }
        }
    }
}

/// Lists the remote tools, reviews them and replaces this mount's tools with the ones
/// offered, unless nothing changed; each tool newly held back is audited.
pub(super) async fn refresh(shared: &MountShared) {
    let Some(registry) = shared.registry.upgrade() else {
        return;
    };
    let _swap = shared.swap.lock().await;
    if shared.unmounted.is_cancelled() {
        return;
    }
    let old_names = shared.names();
    let listed = tokio::select! {
        () = shared.unmounted.cancelled() => return,
        listed = super::list_reviewed(&shared.connection, &shared.options, &registry, &old_names, None) => listed,
    };
    let reviewed = match listed {
        Ok(reviewed) => reviewed,
        Err(error) => {
            tracing::warn!(%error, "cannot follow the tool list of a mounted MCP server");
            return;
        }
    };
    let taken = |name: &str| registry.contains(name) && !old_names.iter().any(|old| old == name);
    let imported = remote_tool::import(reviewed, &shared.options, &shared.connection, taken);
    if shared.mounted().same_as(&imported) {
        return;
    }
    // Recorded before the swap, so whoever sees the tool gone finds the reason logged.
    super::record_withheld(&registry, &shared.server, &imported).await;
    let remove: Vec<&str> = old_names.iter().map(String::as_str).collect();
    {
        // Locked across the swap, so `tool_names` never disagrees with the registry.
        let mut mounted = shared.mounted();
        if let Err(error) = registry.replace_tools(&remove, imported.tools.clone()) {
            tracing::warn!(server = %shared.server, %error, "cannot update the tools of a mounted MCP server");
            return;
        }
        *mounted = imported;
    }
}
