//! The `--config` file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::auth::{self, AuthConfig};
use super::policy;
use super::toml_file::{ConfigError, FileKind, TomlFile};
use crate::Policy;
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
///
/// [policy]
/// deny = ["exec(command: rm -rf*)"]
///
/// [auth]
/// issuer = "https://auth.example.com"
/// audience = "https://mcp.example.com/mcp"
///
/// [serve]
/// stateless = true
/// ```
///
/// The two top-level keys, `[policy]` (as in a `--policy` file, which replaces it),
/// `[auth]` ([`AuthConfig`]: OAuth for `serve --http`) and `[serve]` ([`ServeConfig`])
/// are the CLI's own; the other
/// sections configure the built-in tools ([`BuiltinConfig`]:
/// `[workspace]`, `[exec]`, `[web]`, `[memory]`, `[subagents]`).
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Config {
    /// Timeout for tool calls that set none themselves (e.g. `"30s"`, `"2m"`).
    pub default_timeout: Option<Duration>,
    /// Where to append the audit log, if `--audit-log` is not given.
    pub audit_log: Option<PathBuf>,
    /// The built-in tools' sections.
    pub builtins: BuiltinConfig,
    /// The `[policy]` section, if there is one.
    pub policy: Option<Policy>,
    /// The `[auth]` section, if there is one.
    pub auth: Option<AuthConfig>,
    /// The `[serve]` section.
    pub serve: ServeConfig,
}

/// `[serve]`: how `serve --http` serves.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ServeConfig {
    /// Serve without MCP sessions, as `--stateless` does.
    pub stateless: bool,
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
    /// Reads and parses a config file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let file = TomlFile::read(path, FileKind::Config)?;
        let mut table: toml::Table = file.parse()?;
        let policy = policy::in_config(&file)?;
        table.remove("policy");
        let auth = auth::in_config(&file)?;
        table.remove("auth");
        let serve: ServeConfig = match table.remove("serve") {
            Some(section) => section.try_into().map_err(|error| file.invalid(error))?,
            None => ServeConfig::default(),
        };
        let mut own = toml::Table::new();
        for key in ["default_timeout", "audit_log"] {
            if let Some(value) = table.remove(key) {
                own.insert(key.to_owned(), value);
            }
        }
        let invalid = |error| file.invalid(error);
        let keys: CliKeys = own.try_into().map_err(invalid)?;
        let builtins: BuiltinConfig = table.try_into().map_err(invalid)?;
        Ok(Self {
            default_timeout: keys.default_timeout,
            audit_log: keys.audit_log,
            builtins,
            policy,
            auth,
            serve,
        })
    }
}
