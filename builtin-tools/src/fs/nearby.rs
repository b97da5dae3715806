//! "Did you mean": existing paths close to one that does not exist.

use std::path::Path;

use crate::Workspace;

/// Names at least this similar are suggested.
const MIN_SIMILARITY: f64 = 0.66;

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
    let wanted = name.to_string_lossy().to_lowercase();
    let mut scored: Vec<(f64, &String)> = names
        .iter()
        .map(|candidate| (similarity(&wanted, &candidate.to_lowercase()), candidate))
        .filter(|(score, _)| *score >= MIN_SIMILARITY)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(3)
        .map(|(_, found)| format!("`{}`", Workspace::display(&parent.join(found))))
        .collect()
}

/// Jaro-Winkler catches shared prefixes in long names; Damerau-Levenshtein catches swapped
/// letters in short ones (`scr` for `src`), which Jaro's match window misses.
fn similarity(a: &str, b: &str) -> f64 {
    strsim::jaro_winkler(a, b).max(strsim::normalized_damerau_levenshtein(a, b))
}
