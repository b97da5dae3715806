//! The command line's TOML files (`--config`, `--policy`): read once, parsed into typed
//! settings, and every problem reported as one line with the file and, when known, the
//! line and column.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use agent_tools::policy::PolicyError;

/// Which of the command line's files an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileKind {
    /// The `--config` file.
    Config,
    /// The `--policy` file.
    Policy,
    /// The `--oauth-scopes` file.
    Scopes,
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Config => "config file",
            FileKind::Policy => "policy file",
            FileKind::Scopes => "scopes file",
        })
    }
}

/// Why a config or policy file could not be loaded. Its message is one line: the file,
/// the position when known, and the problem (`invalid config file agent.toml:3:1: …`).
#[derive(Debug)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    Read {
        /// Which file it is.
        kind: FileKind,
        /// The file.
        path: PathBuf,
        /// Why it could not be read.
        source: std::io::Error,
    },
    /// The file is not valid TOML, or a key or value is not one the settings take.
    Invalid {
        /// Which file it is.
        kind: FileKind,
        /// The file.
        path: PathBuf,
        /// Where in the file, as 1-based `(line, column)`, when it is known.
        position: Option<(usize, usize)>,
        /// What toml found; its `Display` is several lines with the text around the
        /// position, the message of this error only its first. (Boxed: it is large.)
        source: Box<toml::de::Error>,
    },
    /// The `[policy]` section has rules that do not parse; the message names each.
    Policy {
        /// Which file it is.
        kind: FileKind,
        /// The file.
        path: PathBuf,
        /// The rules and what is wrong with each.
        source: PolicyError,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read { kind, path, source } => {
                write!(f, "cannot read {kind} {}: {source}", path.display())
            }
            Self::Invalid {
                kind,
                path,
                position,
                source,
            } => {
                write!(f, "invalid {kind} {}", path.display())?;
                if let Some((line, column)) = position {
                    write!(f, ":{line}:{column}")?;
                }
                write!(f, ": {}", source.message().trim())
            }
            Self::Policy { kind, path, source } => {
                write!(f, "{kind} {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Read { source, .. } => Some(source),
            Self::Invalid { source, .. } => Some(&**source),
            Self::Policy { source, .. } => Some(source),
        }
    }
}

/// A file's text, kept to place the errors found in it.
pub(super) struct TomlFile<'a> {
    kind: FileKind,
    path: &'a Path,
    text: String,
}

impl<'a> TomlFile<'a> {
    /// Reads `path`.
    pub(super) fn read(path: &'a Path, kind: FileKind) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            kind,
            path: path.to_owned(),
            source,
        })?;
        Ok(Self { kind, path, text })
    }

    /// The whole file as `T`. Deserializing from the text, rather than from a parsed
    /// table, keeps toml's spans, so an unknown key is placed where it is written.
    pub(super) fn parse<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        toml::from_str(&self.text).map_err(|error| self.invalid(error))
    }

    /// The error for a problem toml found in this file, with its position when toml or
    /// the key tells it.
    pub(super) fn invalid(&self, source: toml::de::Error) -> ConfigError {
        let start = source
            .span()
            .map(|span| span.start)
            .or_else(|| unknown_key_offset(&self.text, source.message().trim()));
        ConfigError::Invalid {
            kind: self.kind,
            path: self.path.to_owned(),
            position: start.map(|start| line_and_column(&self.text, start)),
            source: Box::new(source),
        }
    }

    /// The error for rules in this file that do not parse.
    pub(super) fn bad_rules(&self, source: PolicyError) -> ConfigError {
        ConfigError::Policy {
            kind: self.kind,
            path: self.path.to_owned(),
            source,
        }
    }
}

/// The 1-based line and column of byte `offset` in `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

/// Where an unknown key is written (`key = …`, or a section header `[key]`,
/// `[key.sub]`, `[[key]]`), for errors from converting a parsed table, which carry no
/// position.
fn unknown_key_offset(text: &str, message: &str) -> Option<usize> {
    let key = message.strip_prefix("unknown field `")?.split('`').next()?;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let assigned = trimmed
            .strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='));
        let header = trimmed
            .trim_start_matches('[')
            .trim_start()
            .strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with([']', '.']));
        if assigned || (trimmed.starts_with('[') && header) {
            return Some(offset + line.len() - trimmed.len());
        }
        offset += line.len();
    }
    None
}
