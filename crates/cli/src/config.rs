//! The `--config` file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::auth::{self, AuthConfig};
use super::policy;
use super::struct_fields::field_names;
use super::toml_file::{ConfigError, FileKind, TomlFile};
use agent_tools::builtins::BuiltinConfig;
use agent_tools::mcp::trust::{OnChange, OnSuspicious};
use agent_tools::policy::Policy;

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
///
/// [tasks]
/// postgres_url_env = "TASKS_DATABASE_URL"
/// default = "optional"
///
/// [[mount]]
/// name = "git"
/// command = ["uvx", "mcp-server-git"]
/// ```
///
/// The two top-level keys, `[policy]` (as in a `--policy` file, which replaces it),
/// `[auth]` ([`AuthConfig`]: OAuth for `serve --http`), `[serve]` ([`ServeConfig`]),
/// `[telemetry]` ([`TelemetryConfig`]), `[audit]` ([`AuditConfig`]), `[tasks]`
/// ([`TasksConfig`]), `[tool_search]` ([`ToolSearchConfig`]), `[results]` ([`ResultsConfig`]) and `[[mount]]` ([`MountConfig`]) are the CLI's own; the other
/// sections configure the built-in tools ([`BuiltinConfig`]: `[workspace]`, `[exec]`,
/// `[web]`, `[subagents]`, `[memory]`, `[media]`, `[screenshot]`). A key or section that
/// is none of these is refused, naming every one that is.
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
    /// The `[tasks]` section.
    pub tasks: TasksConfig,
    /// The `[tool_search]` section.
    pub tool_search: ToolSearchConfig,
    /// The `[results]` section.
    pub results: ResultsConfig,
    /// The `[[mount]]` entries, mounted after the `--mount` servers.
    pub mounts: Vec<MountConfig>,
    /// The lock file pinning the mounted tools' definitions (`lock_file`, relative to the
    /// config file's directory), if `--lock` does not name one; default
    /// `agent-tools.lock` beside the config file.
    pub lock_file: Option<PathBuf>,
}

/// `[[mount]]`: another MCP server's tools, as `--mount` adds them, so that a gateway is
/// one file:
///
/// ```toml
/// [[mount]]
/// name = "git"                          # its tools become git_<tool>
/// command = ["uvx", "mcp-server-git"]   # or one string, split as --mount splits it
/// env = { GIT_AUTHOR_NAME = "agent" }
/// timeout = "30s"
///
/// [[mount]]
/// name = "docs"
/// url = "https://docs.example.com/mcp"
/// token_env = "DOCS_TOKEN"              # Authorization: Bearer $DOCS_TOKEN
/// prefix = "kb_"                        # instead of docs_
/// defer = true                          # found through tool_search
/// on_change = "deny"                    # a definition not the pinned one: ask | deny | accept
/// on_suspicious = "strip"               # flagged texts: ask | deny | strip
/// ```
///
/// Each tool's definition is pinned in the lock file (`lock_file`, or `--lock`; default
/// `agent-tools.lock` beside this file) the first time the mount lists it; a later
/// definition that differs waits for a person (`agent-tools mounts diff|accept NAME`)
/// unless `on_change` says otherwise. Names and texts are checked before a tool is
/// offered; see the README's section on mounting servers you do not control.
///
/// Each entry has a `command` (a child speaking MCP over stdio) or a `url` (streamable
/// HTTP), not both; `env` goes with a command and `token_env` with a URL. An HTTP server
/// without `token_env` that asks for OAuth gets a login, as with `--mount`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct MountConfig {
    /// The mount's name: letters, digits, `_` and `-`; unique among the mounts.
    pub name: String,
    /// The program and its arguments, when the server is a child process.
    #[serde(default, deserialize_with = "command_words")]
    pub command: Option<Vec<String>>,
    /// The server's streamable HTTP endpoint, when it is reached over HTTP.
    pub url: Option<String>,
    /// Put before each remote tool's name; default `NAME_`.
    pub prefix: Option<String>,
    /// Environment variables for the child process.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// The environment variable holding the bearer token sent to the HTTP server.
    pub token_env: Option<String>,
    /// Defer the server's tools: a model finds them through `tool_search`.
    #[serde(default)]
    pub defer: bool,
    /// Each mounted tool's timeout (e.g. `"30s"`), which also bounds connecting.
    #[serde(default, with = "humantime_serde")]
    pub timeout: Option<Duration>,
    /// What to do with a definition that is not the pinned one (default `"ask"`).
    #[serde(default)]
    pub on_change: OnChange,
    /// What to do with a tool whose name or texts are flagged (default `"ask"`).
    #[serde(default)]
    pub on_suspicious: OnSuspicious,
    /// Offer only tools pinned in the lock file: nothing is pinned on first use.
    #[serde(default)]
    pub require_pinned: bool,
    /// Take invisible characters out of the server's results (default true).
    #[serde(default = "yes")]
    pub filter_results: bool,
}

fn yes() -> bool {
    true
}

impl MountConfig {
    /// What the entry lacks or holds too much of, if anything.
    fn problem(&self) -> Option<String> {
        if let Err(problem) = super::args::check_mount_name(&self.name) {
            return Some(problem);
        }
        let name = &self.name;
        match (&self.command, &self.url) {
            (None, None) => Some(format!("`{name}` needs a `command` or a `url`")),
            (Some(_), Some(_)) => Some(format!("`{name}` has both a `command` and a `url`; give one")),
            (Some(words), None) if words.is_empty() => Some(format!("`{name}` has an empty `command`")),
            (Some(_), None) if self.token_env.is_some() => Some(format!(
                "`{name}` is a command, not an HTTP server; only a `url` takes `token_env`"
            )),
            (None, Some(_)) if !self.env.is_empty() => Some(format!(
                "`{name}` is an HTTP server; `env` is for a `command`, which it sets for the child"
            )),
            _ => None,
        }
    }
}

/// A command as a list of words, or as one string split as `--mount` splits it.
fn command_words<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Command {
        Words(Vec<String>),
        Line(String),
    }
    match Command::deserialize(deserializer)? {
        Command::Words(words) => Ok(Some(words)),
        Command::Line(line) => super::args::split_command(&line)
            .map(Some)
            .map_err(serde::de::Error::custom),
    }
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

/// `[tasks]`: where served calls that became MCP tasks are kept, and which tools' calls
/// may. Without a store, tasks live in the serving process; with one, replicas share
/// them and `agent-tools approvals` answers their approvals from anywhere.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct TasksConfig {
    /// Keep tasks in PostgreSQL (the table `agent_tools_tasks`) at this URL.
    pub postgres_url: Option<String>,
    /// The environment variable holding that URL, when `postgres_url` is not given.
    pub postgres_url_env: Option<String>,
    /// Whether calls of tools that state nothing may be tasks: `"forbidden"` (the
    /// default), `"optional"` or `"required"`.
    pub default: Option<String>,
    /// How long a task is kept (default `"1h"`).
    #[serde(default, with = "humantime_serde")]
    pub ttl: Option<Duration>,
    /// How long a server's hold on a running task lasts unrenewed (default `"10s"`): a
    /// task whose server died is failed this long after.
    #[serde(default, with = "humantime_serde")]
    pub lease: Option<Duration>,
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

/// `[results]`: how much of the model's context a result may take, and where the rest
/// goes.
///
/// ```toml
/// [results]
/// max_tokens = 25000   # per result, counted for the dialect it goes to; 0 = no budget
/// keep = 100           # results kept in .agent-tools/results for read_file to page
/// ```
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ResultsConfig {
    /// Tokens a result may take (default [`DEFAULT_RESULT_TOKENS`]); `0` turns the
    /// budget off.
    pub max_tokens: Option<usize>,
    /// How many cut results are kept whole in the workspace's `.agent-tools/results`
    /// (default 100); the oldest are removed.
    pub keep: Option<usize>,
}

/// The result budget when `[results] max_tokens` is not set: Claude Code's default for
/// MCP results (`MAX_MCP_OUTPUT_TOKENS`), so a served result is not cut again there.
pub const DEFAULT_RESULT_TOKENS: usize = 25_000;

/// The CLI's own keys; everything else is the built-in tools'.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CliKeys {
    #[serde(default, with = "humantime_serde")]
    default_timeout: Option<Duration>,
    audit_log: Option<PathBuf>,
    lock_file: Option<PathBuf>,
    #[serde(default)]
    mount: Vec<MountConfig>,
}

/// The CLI's sections that are read one by one (`[policy]` and `[auth]` by their own
/// modules, the rest by [`section`]); its other keys are [`CliKeys`]' fields.
const CLI_SECTIONS: [&str; 8] = [
    "policy",
    "auth",
    "serve",
    "telemetry",
    "audit",
    "tasks",
    "tool_search",
    "results",
];

/// Every top-level key a config file may have: the CLI's, then the built-in tools'.
fn known_keys() -> &'static [&'static str] {
    static KEYS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let mut keys = field_names::<CliKeys>().to_vec();
        keys.extend_from_slice(&CLI_SECTIONS);
        keys.extend_from_slice(field_names::<BuiltinConfig>());
        keys
    })
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
        let tasks: TasksConfig = section(&file, &mut table, "tasks")?;
        let tool_search: ToolSearchConfig = section(&file, &mut table, "tool_search")?;
        let results: ResultsConfig = section(&file, &mut table, "results")?;
        // Checked here, where every section is known: the built-in tools' configuration
        // would name only its own.
        if let Some(unknown) = table.keys().find(|key| !known_keys().contains(&key.as_str())) {
            return Err(file.invalid(serde::de::Error::unknown_field(unknown, known_keys())));
        }
        let mut own = toml::Table::new();
        for key in field_names::<CliKeys>() {
            if let Some(value) = table.remove(*key) {
                own.insert((*key).to_owned(), value);
            }
        }
        let invalid = |error| file.invalid(error);
        let keys: CliKeys = own.try_into().map_err(invalid)?;
        if let Some(problem) = keys.mount.iter().find_map(MountConfig::problem) {
            return Err(file.invalid(serde::de::Error::custom(format!("[[mount]]: {problem}"))));
        }
        let builtins: BuiltinConfig = table.try_into().map_err(invalid)?;
        Ok(Self {
            default_timeout: keys.default_timeout,
            audit_log: keys.audit_log,
            lock_file: keys
                .lock_file
                .map(|file| path.parent().unwrap_or(Path::new("")).join(file)),
            builtins,
            policy,
            auth,
            serve,
            telemetry,
            audit,
            tasks,
            tool_search,
            results,
            mounts: keys.mount,
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
