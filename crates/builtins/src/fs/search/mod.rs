//! `file_search`: find lines in the workspace's files (like ripgrep), or find files by name.
//!
//! Models search code constantly, so this has to be as fast as ripgrep: it is built on
//! ripgrep's own crates (`ignore` for a parallel walk that honors `.gitignore`,
//! `grep-regex` and `grep-searcher` for the search itself).
//!
//! It must also never read outside the workspace. The walk lists paths with `std`, which
//! follows a directory that is swapped for a symbolic link while the walk runs, so the
//! walk only *proposes* paths: every file is opened through the workspace's capability
//! (`openat2` with `RESOLVE_BENEATH`, see [`Workspace::open_file`]) and only the opened
//! handle is searched. Symbolic links are never followed by the walk, and in `files` mode
//! a path is only reported if the capability can still see it beneath the root.
//!
//! The output is deterministic whatever the thread schedule (sorted by path, then line)
//! and bounded (`max_results`, long lines clipped), with totals so the model knows what
//! it is not seeing.

mod collect;
mod content;
mod files;
mod glob;
mod render;
mod walk;

use std::path::PathBuf;

use crate::Workspace;
use agent_tools_core::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;

use self::glob::PathGlob;
use self::render::Request;
use self::walk::Walk;

/// The most context lines around a match.
const MAX_CONTEXT: u8 = 10;
/// The default and the largest `max_results`.
const DEFAULT_RESULTS: u32 = 100;
const MAX_RESULTS: u32 = 1000;

/// Arguments of `file_search`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct FileSearchArgs {
    /// What to look for. In `content` mode: a regular expression (Rust/ripgrep syntax)
    /// matched against each line, or plain text with `literal: true`. In `files` mode: a
    /// glob matched against file names (`*.rs`, `Cargo.toml`), or against paths relative
    /// to the workspace root when it contains `/` (`src/**/test_*.py`).
    pub pattern: String,
    /// The directory or file to search, relative to the workspace root. Default: the
    /// whole workspace.
    pub path: Option<String>,
    /// `content` (default) lists the lines that match `pattern`; `files` lists the paths
    /// of files whose name matches the glob `pattern`.
    pub mode: Option<SearchMode>,
    /// Only search files matching this glob: a file-name glob like `*.rs`, or a path glob
    /// relative to the workspace root like `src/**/*.ts`.
    pub glob: Option<String>,
    /// Content mode: treat `pattern` as plain text instead of a regular expression (no
    /// need to escape `(`, `.`, `*`, …). Default false.
    pub literal: Option<bool>,
    /// Content mode: match upper and lower case exactly. Default: case-insensitive unless
    /// `pattern` contains an uppercase letter.
    pub case_sensitive: Option<bool>,
    /// Content mode: lines to show before and after each matching line. Default 0.
    #[schemars(range(max = 10))]
    pub context_lines: Option<u8>,
    /// List at most this many matching lines (content mode) or paths (files mode); the
    /// rest are still counted. Default 100.
    #[schemars(range(min = 1, max = 1000))]
    pub max_results: Option<u32>,
    /// Also search hidden files and directories (names starting with `.`). Default
    /// false. `.git` is never searched.
    pub include_hidden: Option<bool>,
    /// Skip files ignored by `.gitignore`, `.ignore` and git's exclude files. Default
    /// true.
    pub respect_gitignore: Option<bool>,
}

/// What `file_search` looks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// Lines of files that match the pattern.
    #[default]
    Content,
    /// Paths of files whose name matches the glob pattern.
    Files,
}

/// Searches the workspace as [`FileSearchArgs`] describe and renders the result for a
/// model: matching lines (`path:line: text`) or paths, sorted, with a footer of totals.
/// Finding nothing is not an error.
pub(crate) fn file_search(ws: &Workspace, args: FileSearchArgs) -> Result<String, ToolError> {
    if args.pattern.is_empty() {
        return Err(ToolError::invalid_arguments(
            "`pattern` is empty; give the text or regular expression to look for",
        ));
    }
    let start = start_path(ws, args.path.as_deref())?;
    let filter = args.glob.as_deref().map(PathGlob::new).transpose()?;
    let walk = Walk::new(ws.root(), &start, filter.as_ref())
        .include_hidden(args.include_hidden.unwrap_or(false))
        .respect_gitignore(args.respect_gitignore.unwrap_or(true));
    let request = Request {
        pattern: &args.pattern,
        scope: &start,
        limit: args.max_results.unwrap_or(DEFAULT_RESULTS).clamp(1, MAX_RESULTS) as usize,
    };
    match args.mode.unwrap_or_default() {
        SearchMode::Content => {
            let context = args.context_lines.unwrap_or(0).min(MAX_CONTEXT);
            let query = content::Query::new(&args.pattern, args.literal, args.case_sensitive, context)?;
            let found = content::search(ws, &walk, &query, request.limit);
            Ok(render::content(&request, found, context > 0))
        }
        SearchMode::Files => {
            let pattern = PathGlob::new(&args.pattern)?;
            Ok(render::files(
                &request,
                files::search(ws, &walk, &pattern, request.limit),
            ))
        }
    }
}

/// The directory or file to search, relative to the root, with symbolic links resolved
/// (inside the workspace only) so that the walk starts at a real path.
fn start_path(ws: &Workspace, path: Option<&str>) -> Result<PathBuf, ToolError> {
    let Some(path) = path.filter(|path| !path.is_empty()) else {
        return Ok(PathBuf::new());
    };
    let relative = ws.relative_path(path)?;
    let shown = Workspace::display(&relative);
    if shown == "." {
        return Ok(PathBuf::new());
    }
    ws.dir()
        .canonicalize(&relative)
        .map_err(|source| ws.io_error(&relative, source).into())
}

#[cfg(test)]
mod tests;
