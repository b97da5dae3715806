//! `[exec] deny_read` and `allow_read`: the paths their settings name, found on disk.
//!
//! A pattern names paths by their components: `~/.ssh`, `/etc/ssh/ssh_host_*_key`,
//! `~/projects/*/.env`. Each component is either literal or a glob that matches one
//! directory entry (`*`, `?`, `[…]`); `**` is refused, since finding what it matches means
//! walking whole trees before every command. The patterns are checked once, when `exec`
//! is set up, and matched against the file system before each command, because what
//! exists changes between commands (a project checked out, a key generated).
//!
//! Every match is resolved (`canonicalize`), because the sandbox decides on the file a
//! path reaches, not on its spelling: a hidden `~/.ssh` that is a link to
//! `/data/keys` hides `/data/keys`.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use globset::{Glob, GlobMatcher};

use crate::SetupError;
use crate::config::exec::{ExecConfig, ExecRead, ExecSandbox, SYSTEM_READ};

/// One checked pattern of `deny_read`.
#[derive(Debug, Clone)]
struct PathPattern {
    /// Where the pattern starts.
    base: Base,
    /// The components after the base.
    parts: Vec<Part>,
}

#[derive(Debug, Clone, Copy)]
enum Base {
    Root,
    Home,
    Workspace,
}

#[derive(Debug, Clone)]
enum Part {
    Literal(String),
    Glob(GlobMatcher),
}

/// The read settings of `[exec]`, checked.
#[derive(Debug, Clone)]
pub(crate) struct ReadSettings {
    read: ExecRead,
    allow: Vec<PathPattern>,
    deny: Vec<PathPattern>,
}

/// What one command may read, as paths that exist now.
#[derive(Debug, Default)]
pub(crate) struct ReadScope {
    /// The trees the command may read; `None` for the whole file system (`read = "all"`).
    pub(crate) readable: Option<Vec<PathBuf>>,
    /// The resolved paths hidden from it, inside what it may read or write.
    pub(crate) hidden: Vec<PathBuf>,
}

impl ReadSettings {
    /// Checks the patterns of `config`.
    pub(crate) fn new(config: &ExecConfig) -> Result<Self, SetupError> {
        let parse = |setting: &'static str, patterns: &[String], globs: bool| {
            patterns
                .iter()
                .map(|text| {
                    PathPattern::parse(text, globs).map_err(|reason| SetupError::ReadPattern {
                        setting,
                        pattern: text.clone(),
                        reason,
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let (allow, deny) = (
            parse("allow_read", &config.allow_read, false)?,
            parse("deny_read", &config.deny_read, true)?,
        );
        // Without the sandbox nothing enforces them: keep them checked, but find nothing
        // on disk before each command.
        if config.sandbox == ExecSandbox::None {
            return Ok(Self {
                read: ExecRead::All,
                allow: Vec::new(),
                deny: Vec::new(),
            });
        }
        Ok(Self {
            read: config.read,
            allow,
            deny,
        })
    }

    /// What a command may read, found on disk now. `workspace` is the workspace's root,
    /// `shell` the shell that runs the command (readable wherever it lies).
    pub(crate) fn scope(&self, workspace: &Path, shell: &Path) -> ReadScope {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let resolve = |pattern: &PathPattern| pattern.matches(home.as_deref(), workspace);
        let readable = (self.read == ExecRead::Workspace).then(|| {
            let system = SYSTEM_READ.iter().map(PathBuf::from);
            let allowed = self.allow.iter().flat_map(resolve);
            let mut trees: Vec<PathBuf> = system
                .chain(allowed)
                .chain(std::iter::once(shell.to_path_buf()))
                .filter_map(|path| path.canonicalize().ok())
                .collect();
            trees.sort();
            trees.dedup();
            trees
        });
        let mut hidden: Vec<PathBuf> = self.deny.iter().flat_map(resolve).collect();
        hidden.sort();
        hidden.dedup();
        ReadScope { readable, hidden }
    }
}

impl ReadScope {
    /// What reading is confined to and what is hidden, for a command that was refused a
    /// read; `None` when nothing is.
    pub(crate) fn describe(&self, read: ExecRead) -> Option<String> {
        const SHOWN: usize = 8;
        let mut parts = Vec::new();
        if self.readable.is_some() || read == ExecRead::Workspace {
            parts.push(
                "reading is confined to the workspace, its TMPDIR and the system's directories \
                 (`read = \"workspace\"`; `allow_read` adds paths)"
                    .to_owned(),
            );
        }
        if !self.hidden.is_empty() {
            let home = std::env::var_os("HOME").map(PathBuf::from);
            let mut names: Vec<String> = self
                .hidden
                .iter()
                .take(SHOWN)
                .map(|path| shown(path, home.as_deref()))
                .collect();
            if self.hidden.len() > SHOWN {
                names.push(format!("and {} more", self.hidden.len() - SHOWN));
            }
            parts.push(format!("hidden by `deny_read`: {}", names.join(", ")));
        }
        (!parts.is_empty()).then(|| format!("sandbox: {}", parts.join("; ")))
    }
}

/// `path` with the home directory as `~`.
fn shown(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|home| path.strip_prefix(home).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

impl PathPattern {
    fn parse(text: &str, globs: bool) -> Result<Self, String> {
        let (base, rest) = if let Some(rest) = text.strip_prefix("~/") {
            (Base::Home, rest)
        } else if text == "~" {
            (Base::Home, "")
        } else if text.starts_with('/') {
            (Base::Root, text)
        } else {
            (Base::Workspace, text)
        };
        let mut parts = Vec::new();
        for component in Path::new(rest).components() {
            match component {
                Component::RootDir | Component::CurDir => {}
                Component::ParentDir => return Err("`..` is not allowed: name the path itself".to_owned()),
                Component::Prefix(_) => return Err("not a Unix path".to_owned()),
                Component::Normal(name) => parts.push(Part::parse(name, globs)?),
            }
        }
        if parts.is_empty() && !matches!(base, Base::Home) {
            return Err("it names no path".to_owned());
        }
        Ok(Self { base, parts })
    }

    /// The resolved paths this pattern names that exist now.
    fn matches(&self, home: Option<&Path>, workspace: &Path) -> Vec<PathBuf> {
        let start = match self.base {
            Base::Root => PathBuf::from("/"),
            Base::Workspace => workspace.to_path_buf(),
            // Without a home directory, `~` names nothing.
            Base::Home => match home {
                Some(home) => home.to_path_buf(),
                None => return Vec::new(),
            },
        };
        let mut found = vec![start];
        for part in &self.parts {
            found = found.iter().flat_map(|dir| part.entries_in(dir)).collect();
        }
        found
            .into_iter()
            .filter_map(|path| path.canonicalize().ok())
            .collect()
    }
}

impl Part {
    fn parse(name: &OsStr, globs: bool) -> Result<Self, String> {
        let name = name.to_str().ok_or("it is not valid UTF-8")?;
        if !globs || !name.contains(['*', '?', '[']) {
            return Ok(Part::Literal(name.to_owned()));
        }
        if name.contains("**") {
            return Err(
                "`**` is not supported (it would walk whole trees before every command): name the directories"
                    .to_owned(),
            );
        }
        let glob = Glob::new(name).map_err(|error| error.kind().to_string())?;
        Ok(Part::Glob(glob.compile_matcher()))
    }

    /// The entries of `dir` this component names (they may not exist for a literal).
    fn entries_in(&self, dir: &Path) -> Vec<PathBuf> {
        match self {
            Part::Literal(name) => vec![dir.join(name)],
            Part::Glob(matcher) => match std::fs::read_dir(dir) {
                Ok(entries) => entries
                    .filter_map(Result::ok)
                    .map(|entry| entry.file_name())
                    .filter(|name| matcher.is_match(name))
                    .map(|name| dir.join(name))
                    .collect(),
                // A directory that cannot be listed hides nothing from us to find.
                Err(_) => Vec::new(),
            },
        }
    }
}
