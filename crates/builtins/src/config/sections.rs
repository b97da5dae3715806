//! The sections of [`BuiltinConfig`](super::BuiltinConfig).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

#[cfg(feature = "web")]
use crate::{SetupError, web::FetchConfig};

/// `[workspace]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct WorkspaceSection {
    /// The root, when the caller gives none (the CLI's `--workspace` wins).
    pub root: Option<PathBuf>,
    /// Refuse every write.
    pub read_only: bool,
    /// Paths or patterns (relative to the root; `*`, `?`, `**`) the write tools refuse,
    /// with everything below them: `["secrets", "**/.env"]`. See
    /// [`Workspace::protect`](crate::Workspace::protect).
    pub protect: Vec<PathBuf>,
    /// Protect git's directories from the write tools (`**/.git` and the hooks directory
    /// git's config names). Default true; see
    /// [`Workspace::protect_git`](crate::Workspace::protect_git).
    pub protect_git: bool,
}

impl Default for WorkspaceSection {
    fn default() -> Self {
        Self {
            root: None,
            read_only: false,
            protect: Vec::new(),
            protect_git: true,
        }
    }
}

/// `[web]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct WebSection {
    /// Let `web_fetch` reach private and loopback addresses (the SSRF guard off).
    pub allow_private_network: bool,
    /// The environment variable holding the Brave Search API key; `web_search` is
    /// registered when it is set. Default `BRAVE_API_KEY`.
    pub search_api_key_env: String,
    /// Another search endpoint (tests, proxies).
    pub search_endpoint: Option<String>,
    /// Host names let through the SSRF guard, for `web_fetch` and page screenshots, each
    /// with the one address it resolves to:
    /// `trusted_hosts = { "wiki.internal" = "10.0.0.7:80" }`. See
    /// [`FetchConfig::trusted_host`].
    pub trusted_hosts: BTreeMap<String, SocketAddr>,
    /// PEM files of certificate authorities `web_fetch` trusts besides the system's, for
    /// internal HTTPS sites. See [`FetchConfig::root_certificate_pem`].
    pub root_certificates: Vec<PathBuf>,
}

impl Default for WebSection {
    fn default() -> Self {
        Self {
            allow_private_network: false,
            search_api_key_env: "BRAVE_API_KEY".to_owned(),
            search_endpoint: None,
            trusted_hosts: BTreeMap::new(),
            root_certificates: Vec::new(),
        }
    }
}

#[cfg(feature = "web")]
impl WebSection {
    /// The fetch configuration this section describes, with its root certificates read
    /// from their files. Fails on a trusted "host name" that is an IP address (the guard
    /// judges an address in a URL by itself, so trusting one would silently do nothing)
    /// and on a certificate file that cannot be read.
    pub fn fetch_config(&self) -> Result<FetchConfig, SetupError> {
        if let Some(name) = self.trusted_hosts.keys().find(|name| is_address(name)) {
            return Err(SetupError::TrustedAddress { name: name.clone() });
        }
        let mut config = FetchConfig::default().allow_private_network(self.allow_private_network);
        for (name, address) in &self.trusted_hosts {
            config = config.trusted_host(name.clone(), *address);
        }
        for path in &self.root_certificates {
            let pem = std::fs::read(path).map_err(|source| SetupError::CertificateFile {
                path: path.clone(),
                source,
            })?;
            config = config.root_certificate_pem(pem);
        }
        Ok(config)
    }
}

#[cfg(feature = "web")]
fn is_address(name: &str) -> bool {
    name.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok()
}

/// `[subagents]`: an OpenAI-compatible model for `spawn`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SubagentsSection {
    /// The endpoint's base URL, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// The model name.
    pub model: String,
    /// The environment variable holding the API key. Default `OPENAI_API_KEY`.
    #[serde(default = "default_api_key_env")]
    pub api_key_env: String,
    /// Most model turns per sub-agent. Default 20.
    #[serde(default = "default_max_iterations")]
    pub max_iterations: usize,
    /// Most sub-agents working at once. Default 4.
    #[serde(default = "default_max_concurrent")]
    pub max_concurrent: usize,
    /// Most sub-agents of one session waiting for a free slot. Default 16.
    #[serde(default = "default_max_queued")]
    pub max_queued: usize,
    /// Most sub-agents one session starts in all. Default 64.
    #[serde(default = "default_max_per_session")]
    pub max_per_session: usize,
    /// Time limit per sub-agent, from its `spawn` call. Default 10 minutes.
    #[serde(default = "default_subagent_timeout", with = "humantime_serde")]
    pub timeout: Duration,
}

fn default_api_key_env() -> String {
    "OPENAI_API_KEY".to_owned()
}

fn default_max_iterations() -> usize {
    20
}

fn default_max_concurrent() -> usize {
    4
}

fn default_max_queued() -> usize {
    16
}

fn default_max_per_session() -> usize {
    64
}

fn default_subagent_timeout() -> Duration {
    Duration::from_secs(600)
}

/// `[memory]`: the memory tools' database: a SQLite file (the default), or a PostgreSQL
/// database shared by several processes or machines.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct MemorySection {
    /// Register the memory tools. Default true.
    pub enabled: bool,
    /// The SQLite database file (relative to the current directory). Default: outside the
    /// workspace, `$XDG_DATA_HOME/agent-tools/workspaces/<name>-<hash>/memory.db` (see
    /// [`MemoryStore::default_path`](crate::memory::MemoryStore::default_path)). A path
    /// inside the workspace is kept from the file tools but not from `exec`. No component
    /// may be a symbolic link.
    pub path: Option<PathBuf>,
    /// A PostgreSQL database instead of SQLite: `postgres://user:password@host/db`
    /// (feature `postgres`). Connected at the first memory call; `path` is then not used.
    pub url: Option<String>,
    /// The environment variable holding the PostgreSQL URL, when `url` is not given (so
    /// that a password need not be written into the file).
    pub url_env: Option<String>,
    /// The namespace this workspace's memories have in PostgreSQL. Default: the
    /// workspace's `<name>-<hash>`, as in the SQLite file's default path, so that
    /// workspaces sharing a database keep their memories apart.
    pub namespace: Option<String>,
    /// Give each authorized user (the principal of an OAuth token) memories of their own,
    /// in `<namespace>/principal:<subject>`. PostgreSQL only. Default false.
    pub per_principal: bool,
    /// PostgreSQL connections kept open. Default 4.
    pub pool_size: Option<usize>,
}

impl Default for MemorySection {
    fn default() -> Self {
        Self {
            enabled: true,
            path: None,
            url: None,
            url_env: None,
            namespace: None,
            per_principal: false,
            pool_size: None,
        }
    }
}

/// `[media]`: where `send_media` sends; absent means no `send_media`. Give
/// `webhook_url` or a `[media.telegram]` table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct MediaSection {
    /// POST files to this URL (multipart).
    pub webhook_url: Option<String>,
    /// Send through a Telegram bot.
    pub telegram: Option<TelegramSection>,
    /// Largest file, in bytes (20 MiB).
    pub max_file_bytes: Option<u64>,
    /// Media types that may be sent (as detected from content).
    pub allowed_types: Option<Vec<String>>,
    /// Channels a call may name besides the default one; empty (the default) allows only
    /// the default channel.
    pub allowed_channels: Vec<String>,
}

/// `[media.telegram]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct TelegramSection {
    /// The environment variable holding the bot token. Default `TELEGRAM_BOT_TOKEN`.
    #[serde(default = "default_telegram_token_env")]
    pub token_env: String,
    /// The chat files go to unless the call names a channel.
    pub chat_id: String,
    /// Another Bot API address (tests, local Bot API servers).
    pub base_url: Option<String>,
}

fn default_telegram_token_env() -> String {
    "TELEGRAM_BOT_TOKEN".to_owned()
}

/// `[screenshot]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ScreenshotSection {
    /// The X display to capture (default `$DISPLAY`).
    pub display: Option<String>,
    /// Where captures are saved, relative to the workspace (`screenshots`).
    pub save_dir: Option<String>,
    /// The Chromium binary for page screenshots (default: found on `PATH`).
    pub chromium: Option<PathBuf>,
}
