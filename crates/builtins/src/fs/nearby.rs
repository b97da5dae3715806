//! "Did you mean": existing paths close to one that does not exist, scored like every
//! suggestion the project makes ([`agent_tools_core::suggest::closest`]).

use std::path::Path;

use crate::Workspace;

/// Up to three paths in the same directory as `path` whose names are close to its name.
pub(crate) fn similar_paths(ws: &Workspace, path: &str) -> Vec<String> {
    let Ok(relative) = ws.relative_path(path) else {
        return Vec::new();
    };
    let (Some(name), parent) = (relative.file_name(), relative.parent().unwrap_or(Path::new(""))) else {
        return Vec::new();
    };
    let listed = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let Ok(entries) = ws.dir().read_dir(listed) else {
        return Vec::new();
    };
    let names: Vec<String> = entries
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    let wanted = name.to_string_lossy();
    agent_tools_core::suggest::closest(&wanted, names.iter().map(String::as_str))
        .into_iter()
        .map(|found| format!("`{}`", Workspace::display(&parent.join(found))))
        .collect()
}
