//! [`BuiltinConfig`]: which built-in tools to register and how they behave, as one
//! value that deserializes from TOML (the CLI's `--config` file).
//!
//! Every section is optional and every key has a default, so an empty file is a valid
//! configuration. Tools that need something external (an API key, a model endpoint) are
//! registered only when their section provides it. Secrets are named by environment
//! variable (`api_key_env`) rather than written into the file.

pub(crate) mod exec;
mod limit;
mod sections;

use std::path::PathBuf;
use std::sync::Arc;

use crate::Workspace;
use agent_tools_core::ToolRegistry;
use serde::Deserialize;

pub use exec::{ExecConfig, ExecNetwork, ExecRead, ExecSandbox};
pub use sections::{
    MediaSection, MemorySection, ScreenshotSection, SubagentsSection, TelegramSection, WebSection,
    WorkspaceSection,
};

#[cfg(feature = "agent")]
use crate::agent::{LocalSubagents, OpenAiCompatibleRunner};
#[cfg(feature = "media")]
use crate::media::{MediaConfig, MediaSender, TelegramSender, WebhookSender};
#[cfg(feature = "screen")]
use crate::screen::ScreenshotConfig;
#[cfg(feature = "web")]
use crate::web::SearchConfig;
#[cfg(feature = "memory")]
use crate::{
    BoxError,
    memory::{MemoryError, MemoryStore},
};
use crate::{Builtins, BuiltinsBuilder, SetupError};

/// The built-in tools' configuration.
///
/// ```
/// let config: agent_tools_builtins::BuiltinConfig = toml::from_str(r#"
///     [workspace]
///     protect = ["secrets"]
///
///     [exec]
///     default_timeout = "2m"
///     network = false
///
///     [web]
///     search_api_key_env = "BRAVE_API_KEY"
/// "#).unwrap();
/// assert_eq!(config.exec.default_timeout.as_secs(), 120);
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct BuiltinConfig {
    /// The workspace: its root (when not given otherwise), read-only mode, protected
    /// paths.
    pub workspace: WorkspaceSection,
    /// How `exec` runs commands.
    pub exec: ExecConfig,
    /// The SSRF guard of `web_fetch` and page screenshots, and `web_search`'s key.
    pub web: WebSection,
    /// Sub-agents for `spawn`; absent means no `spawn`.
    pub subagents: Option<SubagentsSection>,
    /// The memory tools' database.
    pub memory: MemorySection,
    /// Where `send_media` sends; absent means no `send_media`.
    pub media: Option<MediaSection>,
    /// How `screenshot` captures.
    pub screenshot: ScreenshotSection,
    /// Where `update_plan` keeps the sessions' plans — a handle, not read from the file:
    /// give one ([`Plans`](crate::plan::Plans)) and keep a clone to read the plans from your
    /// code. `None` keeps them in the workspace's state directory
    /// ([`Plans::for_workspace`](crate::plan::Plans::for_workspace)), or in memory only
    /// when there is no data directory outside the workspace.
    #[cfg(feature = "plan")]
    #[serde(skip)]
    pub plans: Option<crate::plan::Plans>,
}

impl BuiltinConfig {
    /// Reads environment variables the configuration names (API keys) through `env`, so
    /// tests can supply them.
    fn secret(env: &dyn Fn(&str) -> Option<String>, name: &str) -> Option<String> {
        env(name).filter(|value| !value.trim().is_empty())
    }
}

/// Registers the built-in tools `config` enables on `registry`, working in
/// `workspace_root` (or the configuration's `workspace.root`); returns their names.
pub fn register_all(
    registry: &ToolRegistry,
    workspace_root: Option<PathBuf>,
    config: &BuiltinConfig,
) -> Result<Vec<String>, SetupError> {
    register_all_with_env(registry, workspace_root, config, &|name| std::env::var(name).ok())
}

/// [`register_all`] with the environment given as a function.
pub fn register_all_with_env(
    registry: &ToolRegistry,
    workspace_root: Option<PathBuf>,
    config: &BuiltinConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<String>, SetupError> {
    let root = workspace_root
        .or_else(|| config.workspace.root.clone())
        .map_or_else(std::env::current_dir, Ok)
        .map_err(SetupError::CurrentDirectory)?;
    let workspace = config.workspace.open(&root)?;
    let builtins = config.builtins(workspace, registry, env)?;
    Ok(Arc::new(builtins).register_all(registry)?)
}

impl BuiltinConfig {
    /// The built-in tools this configuration enables, over `workspace`; `registry` is
    /// what sub-agents get to use.
    fn builtins(
        &self,
        workspace: Workspace,
        registry: &ToolRegistry,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Builtins, SetupError> {
        #[cfg(feature = "memory")]
        let (workspace, memory) = self.memory.place(workspace, env)?;
        #[cfg(feature = "plan")]
        let plans = self.plans_handle(workspace.root(), env);
        let mut builder = Builtins::builder(workspace);
        #[cfg(feature = "plan")]
        {
            builder = builder.plans(plans);
        }
        #[cfg(feature = "memory")]
        if let Some(place) = memory {
            builder = self.memory.apply(builder, place);
        }
        #[cfg(feature = "shell")]
        {
            builder = builder.exec(self.exec.clone());
        }
        #[cfg(feature = "web")]
        {
            builder = builder.fetch(self.web.fetch_config()?);
            if let Some(search) = self.web.search_config(env) {
                builder = builder.search(search);
            }
        }
        #[cfg(feature = "screen")]
        {
            builder = builder.screenshot(self.screenshot.to_config(&self.web));
        }
        builder = self.with_media(builder, env)?;
        builder = self.with_subagents(builder, registry, env)?;
        builder.build()
    }

    /// The plans handle: the one given, else the workspace's state directory's, else
    /// memory only (no data directory, or one inside the workspace: never a file there).
    #[cfg(feature = "plan")]
    fn plans_handle(
        &self,
        workspace_root: &std::path::Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> crate::plan::Plans {
        use crate::plan::Plans;
        self.plans
            .clone()
            .unwrap_or_else(|| Plans::for_workspace_with_env(workspace_root, env).unwrap_or_default())
    }

    /// `builder` with `send_media`, when the configuration has a `[media]` section.
    fn with_media(
        &self,
        builder: BuiltinsBuilder,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<BuiltinsBuilder, SetupError> {
        let Some(media) = &self.media else {
            return Ok(builder);
        };
        #[cfg(feature = "media")]
        return Ok(builder.media(media.sender(env)?, media.limits()));
        #[cfg(not(feature = "media"))]
        Err(SetupError::LeftOut {
            section: "[media]",
            feature: "media",
        })
    }

    /// `builder` with `spawn`, when the configuration has a `[subagents]` section.
    fn with_subagents(
        &self,
        builder: BuiltinsBuilder,
        registry: &ToolRegistry,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<BuiltinsBuilder, SetupError> {
        let Some(subagents) = &self.subagents else {
            return Ok(builder);
        };
        #[cfg(feature = "agent")]
        return subagents
            .runner(BuiltinConfig::secret(env, &subagents.api_key_env))
            .map(|runner| builder.subagents(Arc::new(subagents.manager(runner, registry.clone()))));
        #[cfg(not(feature = "agent"))]
        Err(SetupError::LeftOut {
            section: "[subagents]",
            feature: "agent",
        })
    }
}

#[cfg(feature = "agent")]
impl SubagentsSection {
    fn runner(&self, api_key: Option<String>) -> Result<OpenAiCompatibleRunner, SetupError> {
        let mut runner =
            OpenAiCompatibleRunner::new(&self.base_url, &self.model)?.max_iterations(self.max_iterations);
        if let Some(key) = api_key {
            runner = runner.api_key(key);
        }
        Ok(runner)
    }

    fn manager(&self, runner: OpenAiCompatibleRunner, registry: ToolRegistry) -> LocalSubagents {
        LocalSubagents::builder(runner, registry)
            .max_concurrent(self.max_concurrent)
            .max_queued(self.max_queued)
            .max_per_session(self.max_per_session)
            .timeout(self.timeout)
            .build()
    }
}

#[cfg(feature = "web")]
impl WebSection {
    /// `web_search`'s configuration, when the environment holds the API key.
    fn search_config(&self, env: &dyn Fn(&str) -> Option<String>) -> Option<SearchConfig> {
        let key = BuiltinConfig::secret(env, &self.search_api_key_env)?;
        let mut search = SearchConfig::new(key);
        if let Some(endpoint) = &self.search_endpoint {
            search = search.endpoint(endpoint.clone());
        }
        Some(search)
    }
}

#[cfg(feature = "screen")]
impl ScreenshotSection {
    /// The screenshot configuration, with `[web]`'s guard settings for page captures.
    fn to_config(&self, web: &WebSection) -> ScreenshotConfig {
        let mut config = ScreenshotConfig::default();
        if let Some(display) = &self.display {
            config = config.display(display.clone());
        }
        if let Some(dir) = &self.save_dir {
            config = config.save_dir(dir.clone());
        }
        if let Some(chromium) = &self.chromium {
            config = config.chromium(chromium.clone());
        }
        config.allow_private_network = web.allow_private_network;
        config.trusted_hosts = web.trusted_hosts.clone().into_iter().collect();
        config
    }
}

#[cfg(feature = "media")]
impl MediaSection {
    fn sender(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Arc<dyn MediaSender>, SetupError> {
        match (&self.webhook_url, &self.telegram) {
            (Some(url), None) => Ok(Arc::new(WebhookSender::new(url)?)),
            (None, Some(telegram)) => {
                let token = BuiltinConfig::secret(env, &telegram.token_env).ok_or_else(|| {
                    SetupError::TelegramTokenUnset {
                        variable: telegram.token_env.clone(),
                    }
                })?;
                let mut sender = TelegramSender::new(token, telegram.chat_id.clone())?;
                if let Some(base_url) = &telegram.base_url {
                    sender = sender.base_url(base_url.clone());
                }
                Ok(Arc::new(sender))
            }
            (Some(_), Some(_)) => Err(SetupError::TwoMediaDestinations),
            (None, None) => Err(SetupError::NoMediaDestination),
        }
    }

    fn limits(&self) -> MediaConfig {
        let mut limits = MediaConfig::default();
        if let Some(max) = self.max_file_bytes {
            limits = limits.max_file_bytes(max);
        }
        if let Some(types) = &self.allowed_types {
            limits = limits.allowed_types(types.iter().cloned());
        }
        limits.allowed_channels(self.allowed_channels.iter().cloned())
    }
}

/// Where the memory tools keep their memories.
#[cfg(feature = "memory")]
enum MemoryPlace {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database, and this workspace's namespace in it.
    #[cfg(feature = "postgres")]
    Postgres { url: String, namespace: String },
}

#[cfg(feature = "memory")]
impl MemorySection {
    /// Where memories go when the memory tools are enabled, and the workspace with a
    /// SQLite database's directory protected: the database is the memory tools' to
    /// change, not the file tools' (a path outside the workspace needs no protection).
    fn place(
        &self,
        mut workspace: Workspace,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(Workspace, Option<MemoryPlace>), SetupError> {
        if !self.enabled {
            return Ok((workspace, None));
        }
        if let Some(url) = self.postgres_url(env)? {
            #[cfg(feature = "postgres")]
            {
                let namespace = self
                    .namespace
                    .clone()
                    .unwrap_or_else(|| MemoryStore::default_namespace(workspace.root()));
                return Ok((workspace, Some(MemoryPlace::Postgres { url, namespace })));
            }
            #[cfg(not(feature = "postgres"))]
            {
                let _ = url;
                return Err(SetupError::LeftOut {
                    section: "[memory] url",
                    feature: "postgres",
                });
            }
        }
        if self.namespace.is_some() {
            return Err(SetupError::MemoryNamespace {
                source: MemoryError::NamespacesNeedPostgres,
            });
        }
        let path = self.database(workspace.root(), env)?;
        if let Some(directory) = path.parent() {
            workspace = workspace.protect(directory);
        }
        Ok((workspace, Some(MemoryPlace::Sqlite(path))))
    }

    /// The PostgreSQL URL: `url`, or the variable `url_env` names (which must be set).
    fn postgres_url(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Option<String>, SetupError> {
        match (&self.url, &self.url_env) {
            (Some(url), _) => Ok(Some(url.clone())),
            (None, Some(variable)) => {
                BuiltinConfig::secret(env, variable)
                    .map(Some)
                    .ok_or_else(|| SetupError::MemoryUrlUnset {
                        variable: variable.clone(),
                    })
            }
            (None, None) => Ok(None),
        }
    }

    /// `builder` with the memory tools at `place`. Both kinds are opened at the first
    /// memory call: listing the tools creates no database and needs no server.
    fn apply(&self, builder: BuiltinsBuilder, place: MemoryPlace) -> BuiltinsBuilder {
        let builder = builder.memory_per_principal(self.per_principal);
        match place {
            MemoryPlace::Sqlite(path) => builder.memory_at(path),
            #[cfg(feature = "postgres")]
            MemoryPlace::Postgres { url, namespace } => {
                let mut options = agent_tools_postgres::PoolOptions::default();
                if let Some(size) = self.pool_size {
                    options = options.size(size);
                }
                builder.memory_postgres(url, namespace, options)
            }
        }
    }

    /// The SQLite database: `path` made absolute, or the default outside the workspace
    /// ([`MemoryStore::default_path_with_env`], from `env`'s `XDG_DATA_HOME` or `HOME`).
    fn database(
        &self,
        workspace_root: &std::path::Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<PathBuf, SetupError> {
        let unusable = |source: BoxError| SetupError::MemoryDatabase { source };
        match &self.path {
            Some(path) => std::path::absolute(path).map_err(|error| unusable(error.into())),
            None => MemoryStore::default_path_with_env(workspace_root, env)
                .map_err(|error| unusable(error.into())),
        }
    }
}

impl WorkspaceSection {
    fn open(&self, root: &std::path::Path) -> Result<Workspace, SetupError> {
        let mut workspace = Workspace::open(root)?
            .read_only(self.read_only)
            .protect_git(self.protect_git);
        for path in &self.protect {
            workspace = workspace.protect(path);
        }
        Ok(workspace)
    }
}

#[cfg(test)]
mod tests;
