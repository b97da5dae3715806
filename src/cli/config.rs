//! The `--config` file.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::builtin_tools::BuiltinConfig;

/// Settings from the TOML file given with `--config`. Command-line options win.
///
/// ```toml
/// default_timeout = "30s"
/// audit_log = "audit.jsonl"
///
/// [exec]
/// default_timeout = "2m"
/// require_sandbox = true
///
/// [memory]
/// enabled = false
/// ```
///
/// The two top-level keys are the CLI's own; the sections configure the built-in tools
/// ([`BuiltinConfig`]: `[workspace]`, `[exec]`, `[web]`, `[memory]`, `[subagents]`).
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Config {
    /// Timeout for tool calls that set none themselves (e.g. `"30s"`, `"2m"`).
    pub default_timeout: Option<Duration>,
    /// Where to append the audit log, if `--audit-log` is not given.
    pub audit_log: Option<PathBuf>,
    /// The built-in tools' sections.
    pub builtins: BuiltinConfig,
}

/// The CLI's own keys; everything else is the built-in tools'.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CliKeys {
    #[serde(default, with = "humantime_serde")]
    default_timeout: Option<Duration>,
    audit_log: Option<PathBuf>,
}

/// Why a config file could not be loaded. Its message is one line: the file, the position
/// when known, and the problem (`invalid config file agent.toml:3:1: …`).
#[derive(Debug)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why it could not be read.
        source: std::io::Error,
    },
    /// The file is not valid TOML, or a key or value is not one the settings take.
    Invalid {
        /// The file.
        path: PathBuf,
        /// Where in the file, as 1-based `(line, column)`, when it is known.
        position: Option<(usize, usize)>,
        /// What toml found; its `Display` is several lines with the text around the
        /// position, the message of this error only its first. (Boxed: it is large.)
        source: Box<toml::de::Error>,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read { path, source } => {
                write!(f, "cannot read config file {}: {source}", path.display())
            }
            Self::Invalid {
                path,
                position,
                source,
            } => {
                write!(f, "invalid config file {}", path.display())?;
                if let Some((line, column)) = position {
                    write!(f, ":{line}:{column}")?;
                }
                write!(f, ": {}", source.message().trim())
            }
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Read { source, .. } => Some(source),
            Self::Invalid { source, .. } => Some(&**source),
        }
    }
}

impl Config {
    /// Reads and parses a config file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let invalid = |error: toml::de::Error| invalid_file(path, &text, error);
        let mut table: toml::Table = toml::from_str(&text).map_err(invalid)?;
        let mut own = toml::Table::new();
        for key in ["default_timeout", "audit_log"] {
            if let Some(value) = table.remove(key) {
                own.insert(key.to_owned(), value);
            }
        }
        let keys: CliKeys = own.try_into().map_err(invalid)?;
        let builtins: BuiltinConfig = table.try_into().map_err(invalid)?;
        Ok(Self {
            default_timeout: keys.default_timeout,
            audit_log: keys.audit_log,
            builtins,
        })
    }
}

/// The error for a problem in `text`, with its position when toml or the key tells it.
fn invalid_file(path: &Path, text: &str, source: toml::de::Error) -> ConfigError {
    let start = source
        .span()
        .map(|span| span.start)
        .or_else(|| unknown_key_offset(text, source.message().trim()));
    let position = start.map(|start| {
        let before = &text[..start.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        (line, column)
    });
    ConfigError::Invalid {
        path: path.to_owned(),
        position,
        source: Box::new(source),
    }
}

/// Where an unknown key is written, for errors from converting a parsed table, which
/// carry no position.
fn unknown_key_offset(text: &str, message: &str) -> Option<usize> {
    let key = message.strip_prefix("unknown field `")?.split('`').next()?;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed
            .strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            return Some(offset + line.len() - trimmed.len());
        }
        offset += line.len();
    }
    None
}
