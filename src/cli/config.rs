//! The `--config` file.

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

impl Config {
    /// Reads and parses a config file; the error is one line naming the file, the
    /// position and the problem.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read config file {}: {error}", path.display()))?;
        let invalid = |error: toml::de::Error| invalid_file(path, &text, &error);
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

/// One line: the file, the position when known, the problem.
fn invalid_file(path: &Path, text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim();
    let start = error
        .span()
        .map(|span| span.start)
        .or_else(|| unknown_key_offset(text, message));
    let position = start
        .map(|start| {
            let before = &text[..start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!(":{line}:{column}")
        })
        .unwrap_or_default();
    format!("invalid config file {}{position}: {message}", path.display())
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
