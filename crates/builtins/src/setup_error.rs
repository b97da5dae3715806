//! [`SetupError`]: why the built-in tools could not be set up from their settings.
//!
//! One type for every constructor and the configuration file, since that is how they are
//! used: [`register_all`](crate::register_all) goes through all of them and its caller
//! shows the one that failed. The message of each variant is complete (it includes its
//! source's text, which [`agent_tools_core::error::error_chain`] then does not repeat) and names the
//! setting to change.

use std::io;
#[cfg(feature = "web")]
use std::path::PathBuf;

use agent_tools_core::error::RegistryError;

use crate::WorkspaceError;

/// Any error, boxed: what a user's [`AgentRunner`](crate::agent::AgentRunner) or
/// [`MediaSender`](crate::media::MediaSender) reports, and the source of a
/// [`SetupError`] whose cause is another crate's type. `"text".into()` makes one.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why the built-in tools could not be set up: a setting that does not work, or a
/// section of the configuration this build leaves out.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// No workspace root was given and the current directory cannot be read.
    #[error("cannot find the current directory: {0}")]
    CurrentDirectory(#[source] io::Error),
    /// The workspace root cannot be opened.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// A deny or allow pattern of `exec`'s command guard is not a regular expression.
    #[cfg(feature = "shell")]
    #[error("invalid exec settings: invalid guard pattern `{pattern}`: {source}")]
    GuardPattern {
        /// The pattern.
        pattern: String,
        /// What is wrong with it (one line of the regex crate's message).
        #[source]
        source: BoxError,
    },
    /// A path of `[exec] deny_read` or `allow_read` cannot be used.
    #[cfg(feature = "shell")]
    #[error("invalid exec settings: {setting} `{pattern}`: {reason}")]
    ReadPattern {
        /// The setting: `deny_read` or `allow_read`.
        setting: &'static str,
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An entry of `[exec] network`'s allow-list is not a host, a `*.` wildcard or an
    /// address with an optional port.
    #[cfg(feature = "shell")]
    #[error("invalid exec settings: {0}")]
    ExecNetwork(String),
    /// `[web] trusted_hosts` trusts an address rather than a host name; the guard judges
    /// an address in a URL by itself, so trusting one would silently do nothing.
    #[cfg(feature = "web")]
    #[error(
        "[web] trusted_hosts: `{name}` is an address, not a host name; trust the name pages \
         use for it, e.g. \"wiki.internal\" = \"{name}:80\", or set allow_private_network"
    )]
    TrustedAddress {
        /// The address given as a name.
        name: String,
    },
    /// A file of `[web] root_certificates` cannot be read.
    #[cfg(feature = "web")]
    #[error("[web] root_certificates: cannot read `{}`: {source}", path.display())]
    CertificateFile {
        /// The file.
        path: PathBuf,
        /// Why it cannot be read.
        #[source]
        source: io::Error,
    },
    /// A configured root certificate holds no PEM certificate.
    #[cfg(feature = "web")]
    #[error("invalid web_fetch settings: root certificate {number} holds no PEM certificate")]
    Certificate {
        /// Which certificate, counting from 1 in the order they were added.
        number: usize,
    },
    /// An HTTP client cannot be set up (its TLS backend failed).
    #[cfg(any(feature = "web", feature = "media", feature = "agent"))]
    #[error("invalid {component} settings: cannot set up the HTTP client: {source}")]
    HttpClient {
        /// What the client is for: `web_fetch`, `web_search`, `send_media`, `spawn`.
        component: &'static str,
        /// Why.
        #[source]
        source: reqwest::Error,
    },
    /// `web_search` has no API key.
    #[cfg(feature = "web")]
    #[error("invalid web_search settings: no Brave Search API key is configured")]
    MissingSearchKey,
    /// `web_search`'s API key has characters an HTTP header cannot carry.
    #[cfg(feature = "web")]
    #[error(
        "invalid web_search settings: the Brave Search API key contains characters a header cannot carry"
    )]
    InvalidSearchKey,
    /// `web_search`'s endpoint is not a URL.
    #[cfg(feature = "web")]
    #[error("invalid web_search settings: the Brave Search endpoint `{endpoint}` is not a URL: {source}")]
    SearchEndpoint {
        /// The endpoint given.
        endpoint: String,
        /// Why it does not parse.
        #[source]
        source: url::ParseError,
    },
    /// The webhook URL of `send_media` is not a URL.
    #[cfg(feature = "media")]
    #[error("the webhook URL is not a URL: {0}")]
    WebhookUrl(#[source] url::ParseError),
    /// The webhook URL of `send_media` is not `http` or `https`.
    #[cfg(feature = "media")]
    #[error("the webhook URL must be http or https, not `{scheme}`")]
    WebhookScheme {
        /// The URL's scheme.
        scheme: String,
    },
    /// The Telegram sender has no bot token.
    #[cfg(feature = "media")]
    #[error("no Telegram bot token is configured")]
    MissingTelegramToken,
    /// The Telegram bot token has characters bot tokens do not have.
    #[cfg(feature = "media")]
    #[error("the Telegram bot token has characters a bot token does not have")]
    InvalidTelegramToken,
    /// `[media.telegram]` names an environment variable that is unset or empty.
    #[cfg(feature = "media")]
    #[error("[media.telegram] needs the bot token in ${variable}")]
    TelegramTokenUnset {
        /// The variable named by `token_env`.
        variable: String,
    },
    /// `[media]` names both a webhook and Telegram.
    #[cfg(feature = "media")]
    #[error("[media] has both webhook_url and telegram; choose one")]
    TwoMediaDestinations,
    /// `[media]` names neither a webhook nor Telegram.
    #[cfg(feature = "media")]
    #[error("[media] needs webhook_url or a [media.telegram] table")]
    NoMediaDestination,
    /// The memory database has no usable place: its path cannot be made absolute, or
    /// the default location cannot be found.
    #[cfg(feature = "memory")]
    #[error(
        "[memory]: {source}; set [memory] path (the command line's --memory-db) to a file \
         outside the workspace, or [memory] enabled = false"
    )]
    MemoryDatabase {
        /// Why.
        #[source]
        source: BoxError,
    },
    /// `[memory] url_env` names a variable that is unset or empty.
    #[cfg(feature = "memory")]
    #[error("[memory] url_env names ${variable}, which is not set; set it to the PostgreSQL URL")]
    MemoryUrlUnset {
        /// The variable.
        variable: String,
    },
    /// The memory store's namespace settings cannot work: a namespace name that is not
    /// valid, or namespaces (per principal) asked of a SQLite store.
    #[cfg(feature = "memory")]
    #[error("[memory]: {source}")]
    MemoryNamespace {
        /// Why.
        #[source]
        source: crate::memory::MemoryError,
    },
    /// The configuration has a section for tools this build of `agent-tools-builtins` leaves
    /// out: said, rather than ignored, since whoever wrote it expects the tools.
    #[error(
        "the configuration has a {section} section, but this build of agent-tools-builtins leaves out \
         its tools: enable the `{feature}` feature, or remove the section"
    )]
    LeftOut {
        /// The section, e.g. `[media]`.
        section: &'static str,
        /// The feature that compiles its tools in.
        feature: &'static str,
    },
    /// The registry refused the tools, e.g. because it already has a tool of one of their
    /// names.
    #[error(transparent)]
    Register(#[from] RegistryError),
}
