//! `list_dir`: the entries of a directory, optionally recursive, as an indented tree.
//!
//! The walk goes through directory handles opened beneath the workspace root and never
//! follows symbolic links (they are shown with their target), so it cannot leave the
//! workspace or loop. Directories that are almost always noise for a model (`.git`,
//! `node_modules`, `target`, …) are shown but not descended into.

use std::path::{Path, PathBuf};

use crate::{Workspace, WorkspaceError};
use agent_tools_core::ToolError;
use cap_std::fs::{Dir, DirEntry};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::text_format::{human_size, plural};

/// Entries listed when the call does not say.
pub(crate) const DEFAULT_LIMIT: u32 = 200;
/// Depth of a recursive listing when the call does not say.
pub(crate) const DEFAULT_DEPTH: u8 = 3;
/// Directories shown but not descended into.
const NOISE: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "__pycache__",
    ".venv",
    ".mypy_cache",
    ".tox",
];
/// Entries counted past the limit before the count gives up (it is only for the notice).
const MAX_COUNTED: usize = 100_000;

/// Arguments of `list_dir`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ListDirArgs {
    /// Directory to list, relative to the workspace root. Default the root.
    pub path: Option<String>,
    /// List the contents of subdirectories too.
    pub recursive: Option<bool>,
    /// How many levels to list when recursive (1 = only this directory). Default 3.
    #[schemars(range(min = 1, max = 10))]
    pub max_depth: Option<u8>,
    /// Include entries whose names start with a dot.
    pub include_hidden: Option<bool>,
    /// Most entries to list. Default 200.
    #[schemars(range(min = 1, max = 2000))]
    pub limit: Option<u32>,
}

/// Lists a workspace directory.
pub(crate) fn list_dir(ws: &Workspace, args: ListDirArgs) -> Result<String, ToolError> {
    let given = args.path.as_deref().unwrap_or(".");
    let relative = ws.relative_path(given)?;
    let shown = Workspace::display(&relative);
    let dir = open_dir(ws, &relative, &shown)?;
    let depth = if args.recursive.unwrap_or(false) {
        args.max_depth.unwrap_or(DEFAULT_DEPTH)
    } else {
        1
    };
    let mut listing = Listing {
        max_depth: usize::from(depth.max(1)),
        include_hidden: args.include_hidden.unwrap_or(false),
        limit: args.limit.unwrap_or(DEFAULT_LIMIT) as usize,
        ..Listing::default()
    };
    listing.walk(&dir, 1);
    Ok(listing.render(&shown))
}

fn open_dir(ws: &Workspace, relative: &Path, shown: &str) -> Result<Dir, ToolError> {
    ws.dir().open_dir(relative).map_err(|error| {
        if ws
            .dir()
            .metadata(relative)
            .is_ok_and(|metadata| metadata.is_file())
        {
            return ToolError::new(format!("`{shown}` is a file; use read_file to read it"));
        }
        match ws.io_error(relative, error) {
            WorkspaceError::NotFound { .. } => {
                let suggestions = super::nearby::similar_paths(ws, shown);
                let hint = if suggestions.is_empty() {
                    String::new()
                } else {
                    format!("; did you mean {}?", suggestions.join(", "))
                };
                ToolError::new(format!("`{shown}` does not exist{hint}"))
            }
            other => other.into(),
        }
    })
}

/// What a walk collected.
#[derive(Default)]
struct Listing {
    max_depth: usize,
    include_hidden: bool,
    limit: usize,
    lines: Vec<String>,
    directories: usize,
    files: usize,
    /// Entries found past the limit.
    unlisted: usize,
    hidden: usize,
    not_descended: Vec<PathBuf>,
    /// Directories that could not be read (permissions), by path.
    unreadable: Vec<PathBuf>,
    /// The path of the directory being walked, relative to the listed one.
    current: PathBuf,
}

impl Listing {
    fn walk(&mut self, dir: &Dir, depth: usize) {
        let Ok(entries) = dir.entries() else {
            self.unreadable.push(self.current.clone());
            return;
        };
        let mut entries: Vec<DirEntry> = entries.flatten().collect();
        entries.sort_by_key(|entry| {
            (
                !entry.file_type().is_ok_and(|kind| kind.is_dir()),
                entry.file_name(),
            )
        });
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && !self.include_hidden {
                self.hidden += 1;
                continue;
            }
            self.entry(dir, &entry, &name, depth);
        }
    }

    fn entry(&mut self, dir: &Dir, entry: &DirEntry, name: &str, depth: usize) {
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        if is_dir {
            self.directories += 1;
        } else {
            self.files += 1;
        }
        if self.lines.len() >= self.limit {
            self.unlisted += 1;
            if self.unlisted < MAX_COUNTED && is_dir && depth < self.max_depth && !NOISE.contains(&name) {
                self.descend(dir, name, depth);
            }
            return;
        }
        let indent = "  ".repeat(depth - 1);
        let noise = is_dir && NOISE.contains(&name);
        self.lines
            .push(format!("{indent}{}", describe(dir, entry, name, noise)));
        if !is_dir || depth >= self.max_depth {
            return;
        }
        if noise {
            self.not_descended.push(self.current.join(name));
        } else {
            self.descend(dir, name, depth);
        }
    }

    /// Walks a subdirectory through a handle opened from its parent's (symbolic links
    /// are never entries of this kind, so nothing is followed).
    fn descend(&mut self, dir: &Dir, name: &str, depth: usize) {
        self.current.push(name);
        match dir.open_dir(name) {
            Ok(sub) => self.walk(&sub, depth + 1),
            Err(_) => self.unreadable.push(self.current.clone()),
        }
        self.current.pop();
    }

    fn render(self, shown: &str) -> String {
        let mut out = format!(
            "`{shown}`: {}, {}\n",
            plural(self.directories, "directory", "directories"),
            plural(self.files, "file", "files")
        );
        if self.lines.is_empty() {
            out.push_str("(empty)\n");
        }
        for line in &self.lines {
            out.push_str(line);
            out.push('\n');
        }
        if self.unlisted > 0 {
            let more = if self.unlisted >= MAX_COUNTED {
                format!("at least {MAX_COUNTED}")
            } else {
                self.unlisted.to_string()
            };
            out.push_str(&format!(
                "[{more} more entries not listed; raise limit (at most 2000) or list a subdirectory]\n"
            ));
        }
        if !self.not_descended.is_empty() {
            let names: Vec<String> = self.not_descended.iter().map(|p| Workspace::display(p)).collect();
            out.push_str(&format!(
                "[not descended into: {}; list them directly if needed]\n",
                names.join(", ")
            ));
        }
        if self.hidden > 0 {
            let hidden = plural(self.hidden, "hidden entry", "hidden entries");
            out.push_str(&format!("[{hidden}; set include_hidden to show them]\n"));
        }
        if !self.unreadable.is_empty() {
            let names: Vec<String> = self.unreadable.iter().map(|p| Workspace::display(p)).collect();
            out.push_str(&format!("[could not read: {}]\n", names.join(", ")));
        }
        out
    }
}

/// One entry's line: `name/`, `name  1.2 KB`, `name -> target`.
fn describe(dir: &Dir, entry: &DirEntry, name: &str, noise: bool) -> String {
    let Ok(kind) = entry.file_type() else {
        return format!("{name}  [unreadable]");
    };
    if kind.is_dir() {
        return if noise {
            format!("{name}/  [not descended]")
        } else {
            format!("{name}/")
        };
    }
    if kind.is_symlink() {
        let target = dir
            .read_link_contents(name)
            .map_or_else(|_| "?".to_owned(), |target| target.display().to_string());
        return format!("{name} -> {target}");
    }
    if kind.is_file() {
        let size = entry.metadata().map_or(0, |metadata| metadata.len());
        return format!("{name}  {}", human_size(size));
    }
    format!("{name}  [special file]")
}

#[cfg(test)]
mod tests;
