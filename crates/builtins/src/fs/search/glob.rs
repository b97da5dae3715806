//! Globs over workspace paths, with one rule for both uses (the `files` mode pattern and
//! the `glob` filter): a glob without `/` matches the file name, a glob with `/` the path
//! relative to the workspace root, where `*` stays within one directory and `**` crosses
//! any number.

use std::path::Path;

use agent_tools_core::ToolError;
use globset::{GlobBuilder, GlobMatcher};

/// A compiled glob and what it is matched against.
#[derive(Debug, Clone)]
pub(super) struct PathGlob {
    matcher: GlobMatcher,
    /// Whether the glob is matched against the whole relative path (it contains `/`)
    /// rather than the file name.
    whole_path: bool,
}

impl PathGlob {
    /// Compiles `pattern`; a leading `./` is dropped.
    pub(super) fn new(pattern: &str) -> Result<Self, ToolError> {
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|error| ToolError::invalid_arguments(format!("invalid glob: {error}")))?;
        Ok(Self {
            matcher: glob.compile_matcher(),
            whole_path: pattern.contains('/'),
        })
    }

    /// Whether a path relative to the workspace root matches.
    pub(super) fn is_match(&self, relative: &Path) -> bool {
        if self.whole_path {
            self.matcher.is_match(relative)
        } else {
            relative
                .file_name()
                .is_some_and(|name| self.matcher.is_match(name))
        }
    }
}
