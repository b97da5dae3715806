//! The `--config` file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// Settings from the TOML file given with `--config`. Command-line options win.
///
/// ```toml
/// default_timeout = "30s"
/// audit_log = "audit.jsonl"
///
/// [exec]
/// default_timeout = "2m"
/// require_sandbox = true
/// network = false
/// env_allow = ["GITHUB_TOKEN"]
/// deny = ["\\bgit\\s+push\\b"]
/// ```
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Config {
    /// Timeout for tool calls that set none themselves (e.g. `"30s"`, `"2m"`).
    #[serde(default, with = "humantime_serde_option")]
    pub default_timeout: Option<Duration>,
    /// Where to append the audit log, if `--audit-log` is not given.
    pub audit_log: Option<PathBuf>,
    /// How the `exec` tool runs commands.
    #[serde(default)]
    pub exec: ExecSection,
}

/// The `[exec]` section; every key is optional and defaults to
/// [`ExecConfig::default`](crate::builtin_tools::shell::ExecConfig).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ExecSection {
    /// The shell (`/bin/sh`).
    pub shell: Option<PathBuf>,
    /// Time limit of a command that sets none (`"60s"`).
    #[serde(default, with = "humantime_serde_option")]
    pub default_timeout: Option<Duration>,
    /// Most output returned, in bytes.
    pub output_limit: Option<usize>,
    /// Inherited environment variables passed besides the default allow-list.
    pub env_allow: Option<Vec<String>>,
    /// Guard deny patterns (regular expressions); replaces the defaults.
    pub deny: Option<Vec<String>>,
    /// Guard allow patterns.
    pub allow: Option<Vec<String>>,
    /// `"landlock"` (default) or `"none"`.
    pub sandbox: Option<SandboxSetting>,
    /// Refuse to run commands when the sandbox cannot be enforced.
    pub require_sandbox: Option<bool>,
    /// Whether commands may open TCP connections.
    pub network: Option<bool>,
}

/// `sandbox = "landlock" | "none"`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxSetting {
    /// Landlock.
    Landlock,
    /// No sandbox.
    None,
}

impl ExecSection {
    /// The exec configuration: the defaults with this section's keys applied.
    pub fn to_config(&self) -> crate::builtin_tools::shell::ExecConfig {
        use crate::builtin_tools::shell::{ExecConfig, ExecSandbox};
        let mut config = ExecConfig::default();
        if let Some(shell) = &self.shell {
            config.shell = shell.clone();
        }
        if let Some(timeout) = self.default_timeout {
            config.default_timeout = timeout;
        }
        if let Some(limit) = self.output_limit {
            config.output_limit = limit;
        }
        config.env_allow = self.env_allow.clone().unwrap_or_default();
        if let Some(deny) = &self.deny {
            config.deny = deny.clone();
        }
        config.allow = self.allow.clone().unwrap_or_default();
        if let Some(sandbox) = self.sandbox {
            config.sandbox = match sandbox {
                SandboxSetting::Landlock => ExecSandbox::Landlock,
                SandboxSetting::None => ExecSandbox::None,
            };
        }
        config.require_sandbox = self.require_sandbox.unwrap_or(config.require_sandbox);
        config.network = self.network.unwrap_or(config.network);
        config
    }
}

impl Config {
    /// Reads and parses a config file; the error is one line naming the file, the
    /// position and the problem.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read config file {}: {error}", path.display()))?;
        toml::from_str(&text).map_err(|error| {
            let position = error
                .span()
                .map(|span| {
                    let before = &text[..span.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                    format!(":{line}:{column}")
                })
                .unwrap_or_default();
            format!(
                "invalid config file {}{position}: {}",
                path.display(),
                error.message().trim()
            )
        })
    }
}

/// `Option<Duration>` from strings like `"30s"`.
mod humantime_serde_option {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, de::Error as _};

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Duration>, D::Error> {
        let text = String::deserialize(deserializer)?;
        humantime::parse_duration(&text).map(Some).map_err(|error| {
            D::Error::custom(format!("invalid duration `{text}`: {error}; write e.g. \"30s\""))
        })
    }
}
