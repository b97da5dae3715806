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
///
/// [telemetry]
/// otlp_endpoint = "http://127.0.0.1:4318"
///
/// [audit]
/// otlp = true
/// postgres_url_env = "AUDIT_DATABASE_URL"
/// ```
///
/// The two top-level keys, `[policy]` (as in a `--policy` file, which replaces it),
/// `[auth]` ([`AuthConfig`]: OAuth for `serve --http`), `[serve]` ([`ServeConfig`]),
/// `[telemetry]` ([`TelemetryConfig`]) and `[audit]` ([`AuditConfig`]) are the CLI's
/// own; the other
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
    /// The `[telemetry]` section.
    pub telemetry: TelemetryConfig,
    /// The `[audit]` section.
    pub audit: AuditConfig,
    /// The `[tool_search]` section.
    pub tool_search: ToolSearchConfig,
}

/// `[telemetry]`: OpenTelemetry, a span per tool call exported over OTLP/HTTP. The
/// standard `OTEL_*` variables configure the rest (headers, service name, resource
/// attributes, sampler, `OTEL_SDK_DISABLED`).
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct TelemetryConfig {
    /// The OTLP/HTTP endpoint, e.g. `http://collector:4318`. Without it, telemetry is on
    /// when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set.
    pub otlp_endpoint: Option<String>,
    /// Record arguments and results on the spans, redacted as the audit log is. Default
    /// false.
    pub record_payloads: bool,
}

/// `[audit]`: where audit events go besides the JSONL file (`audit_log`,
/// `--audit-log`).
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct AuditConfig {
    /// Also send them as OTLP log records (needs telemetry on, see [`TelemetryConfig`]).
    pub otlp: bool,
    /// Also write them to PostgreSQL (the table `agent_tools_audit`) at this URL.
    pub postgres_url: Option<String>,
    /// The environment variable holding that URL, when `postgres_url` is not given.
    pub postgres_url_env: Option<String>,
}

/// `[serve]`: how `serve --http` serves.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ServeConfig {
    /// Serve without MCP sessions, as `--stateless` does.
    pub stateless: bool,
}

/// `[tool_search]`: defer tools, found through `tool_search` (as `--tool-search` does).
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ToolSearchConfig {
    /// Defer the tools; `--tool-search` turns this on too.
    pub enabled: bool,
    /// The tools that are not deferred, shown in full on every turn, e.g.
    /// `["read_file", "exec"]`; default none.
    pub core: Vec<String>,
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
        let serve: ServeConfig = section(&file, &mut table, "serve")?;
        let telemetry: TelemetryConfig = section(&file, &mut table, "telemetry")?;
        let audit: AuditConfig = section(&file, &mut table, "audit")?;
        let tool_search: ToolSearchConfig = section(&file, &mut table, "tool_search")?;
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
            telemetry,
            audit,
            tool_search,
        })
    }
}

/// The section `name` of the CLI's own, taken out of `table`; its defaults when absent.
fn section<T: Default + serde::de::DeserializeOwned>(
    file: &TomlFile,
    table: &mut toml::Table,
    name: &str,
) -> Result<T, ConfigError> {
    match table.remove(name) {
        Some(section) => section.try_into().map_err(|error| file.invalid(error)),
        None => Ok(T::default()),
    }
}
