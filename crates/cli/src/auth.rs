//! Serving as an OAuth 2.1 resource server from the command line: `serve --http ADDR
//! --oauth-issuer URL --oauth-audience URI [--oauth-scopes FILE]`, or the config file's
//! `[auth]` section (the flags win, key by key).
//!
//! ```toml
//! [auth]
//! issuer = "https://auth.example.com"
//! audience = "https://mcp.example.com/mcp"
//! # Tokens that are not JWTs are checked at the issuer's introspection endpoint:
//! introspection_client_id = "mcp-server"
//! introspection_secret_env = "MCP_INTROSPECTION_SECRET"
//!
//! [[auth.scope]]
//! name = "mcp:read"
//! tools = ["*"]
//! read_only = true   # only the read-only tools among them
//!
//! [[auth.scope]]
//! name = "mcp:write"
//! tools = ["*"]
//! ```
//!
//! A `--oauth-scopes` file holds `[[scope]]` tables of the same form, and replaces the
//! config's.

use std::path::Path;

use serde::Deserialize;

use super::toml_file::{ConfigError, FileKind, TomlFile};
use super::{CliError, env_token};
use agent_tools::mcp::oauth::{OAuthResource, ScopeMap};

/// The config file's `[auth]` section: who issues the access tokens `serve --http`
/// admits, and which scopes reach which tools.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AuthConfig {
    /// The authorization server's issuer URL (`--oauth-issuer`).
    pub issuer: Option<String>,
    /// This server's resource URI, which tokens must name as their audience
    /// (`--oauth-audience`).
    pub audience: Option<String>,
    /// This server's client id at the issuer, for introspecting tokens that are not JWTs.
    pub introspection_client_id: Option<String>,
    /// The environment variable that holds the matching client secret.
    pub introspection_secret_env: Option<String>,
    /// Which scopes reach which tools (`[[auth.scope]]`).
    #[serde(default)]
    pub scope: Vec<ScopeConfig>,
}

/// One `[[scope]]`: the tools a scope reaches.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ScopeConfig {
    /// The scope, as tokens carry it.
    pub name: String,
    /// Globs over tool names (`*`, `gh_*`).
    pub tools: Vec<String>,
    /// Only the read-only tools among them.
    #[serde(default)]
    pub read_only: bool,
}

/// The `serve` flags that say how to authenticate HTTP clients with OAuth.
pub(super) struct OAuthFlags<'a> {
    pub(super) issuer: Option<&'a str>,
    pub(super) audience: Option<&'a str>,
    pub(super) scopes: Option<&'a Path>,
}

/// A config file's `[auth]` section, if it has one.
pub(super) fn in_config(file: &TomlFile<'_>) -> Result<Option<AuthConfig>, ConfigError> {
    #[derive(Deserialize)]
    struct WithAuth {
        auth: Option<AuthConfig>,
    }
    let WithAuth { auth } = file.parse()?;
    Ok(auth)
}

/// The resource server the flags and the config describe; `None` when neither names an
/// issuer.
pub(super) fn resource(
    flags: &OAuthFlags<'_>,
    config: Option<&AuthConfig>,
) -> Result<Option<OAuthResource>, CliError> {
    let config = config.cloned().unwrap_or_default();
    let Some(issuer) = flags.issuer.map(str::to_owned).or(config.issuer) else {
        if flags.audience.is_some() || flags.scopes.is_some() {
            return Err(CliError(
                "--oauth-audience and --oauth-scopes need --oauth-issuer (or [auth] issuer)".to_owned(),
            ));
        }
        return Ok(None);
    };
    let audience = flags.audience.map(str::to_owned).or(config.audience).ok_or_else(|| {
        CliError("--oauth-issuer needs --oauth-audience (or [auth] audience): this server's URL as clients reach it, e.g. https://mcp.example.com/mcp".to_owned())
    })?;
    let scopes = match flags.scopes {
        Some(path) => scopes_file(path)?,
        None => config.scope,
    };
    let mut builder = OAuthResource::builder(issuer, audience)
        .scopes(scope_map(&scopes)?)
        .resource_name("agent-tools");
    match (config.introspection_client_id, config.introspection_secret_env) {
        (Some(id), Some(var)) => {
            builder = builder.introspection(id, env_token(&var, "[auth] introspection_secret_env")?);
        }
        (None, None) => {}
        _ => {
            return Err(CliError(
                "[auth] needs both introspection_client_id and introspection_secret_env, or neither"
                    .to_owned(),
            ));
        }
    }
    builder
        .build()
        .map(Some)
        .map_err(|error| CliError(error.to_string()))
}

/// The `[[scope]]` tables of a `--oauth-scopes` file.
fn scopes_file(path: &Path) -> Result<Vec<ScopeConfig>, CliError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct ScopesFile {
        #[serde(default)]
        scope: Vec<ScopeConfig>,
    }
    let read = || -> Result<Vec<ScopeConfig>, ConfigError> {
        let file = TomlFile::read(path, FileKind::Scopes)?;
        Ok(file.parse::<ScopesFile>()?.scope)
    };
    read().map_err(|error| CliError(error.to_string()))
}

fn scope_map(scopes: &[ScopeConfig]) -> Result<ScopeMap, CliError> {
    scopes.iter().try_fold(ScopeMap::new(), |map, scope| {
        let added = match scope.read_only {
            true => map.read_only(scope.name.clone(), &scope.tools),
            false => map.grant(scope.name.clone(), &scope.tools),
        };
        added.map_err(|error| CliError(format!("scope `{}`: {error}", scope.name)))
    })
}
