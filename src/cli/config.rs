//! The `--config` file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// Settings from the TOML file given with `--config`. Command-line options win.
///
/// ```toml
/// default_timeout = "30s"
/// audit_log = "audit.jsonl"
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
