//! [`OAuthClient`]: a mount's login to an MCP server that requires OAuth, as the MCP
//! authorization spec describes it — discovery from the server's `401`, a client
//! identity (pre-registered, a client ID metadata document, or dynamic registration), the
//! authorization code flow with PKCE, refresh, and step-up when the server asks for more
//! scope — or, for services, the client credentials grant.
//!
//! What it guards: tokens go only to the authorization server the MCP server's metadata
//! names, for the resource that metadata describes, which must be the server's own URL or
//! a prefix of it (a server cannot make it fetch tokens for another); authorization
//! servers must be HTTPS (HTTP only on this machine) and support PKCE S256; the redirect
//! must carry the request's `state`. Tokens never reach the audit log (they travel in
//! headers the registry never sees). What it does not do: keep a token store safe beyond
//! its file mode, or tell a phishing authorization server from a real one — the MCP
//! server's metadata is trusted to name the right one.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use jsonwebtoken::get_current_timestamp;
use tokio::sync::{Mutex, MutexGuard};
use url::Url;

use super::authorizer::Authorizer;
use super::challenge::Challenge;
use super::grant::{self, ClientAuth, Pkce, TokenFailure, Tokens};
use super::protected_resource::{self, ResourceMetadata};
use super::token_store::{MemoryTokenStore, StoredLogin, TokenStore};
use crate::oauth::discovery::{self, ServerMetadata};
use crate::oauth::fetch;

/// A token this close to its expiry is refreshed before use.
const REFRESH_MARGIN_SECS: u64 = 30;
/// By default, how many times in a row a server may ask for more scope: with the login its
/// first `401` caused, at most three authorizations for one request.
const DEFAULT_STEP_UPS: u32 = 2;

/// How a mount logs in to one MCP server that requires OAuth; give it to
/// [`McpServer::oauth`](crate::McpServer::oauth). Cheap to clone: clones share the login.
///
/// ```no_run
/// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
/// use agent_tools_mcp::oauth::{FileTokenStore, LoopbackBrowser, OAuthClient};
/// use agent_tools_mcp::{McpServer, MountMcp as _, MountOptions};
///
/// let login = OAuthClient::builder()
///     .authorizer(LoopbackBrowser::bind(0).await?.open_browser(true))
///     .token_store(FileTokenStore::new("/home/me/.local/state/agent-tools/github.json"))
///     .build();
/// let registry = agent_tools_core::ToolRegistry::new();
/// registry
///     .mount_mcp(McpServer::http("https://api.githubcopilot.com/mcp/").oauth(login), MountOptions::new())
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct OAuthClient {
    shared: Arc<Shared>,
}

struct Shared {
    config: Config,
    http: reqwest::Client,
    state: Mutex<LoginState>,
    /// Logins since the last request that went through, for [`Config::max_step_ups`].
    step_ups: AtomicU32,
}

struct Config {
    client_id: Option<String>,
    client_secret: Option<String>,
    client_metadata_url: Option<String>,
    client_name: String,
    grant: Grant,
    scopes: Option<Vec<String>>,
    store: Arc<dyn TokenStore>,
    max_step_ups: u32,
}

enum Grant {
    Code(Arc<dyn Authorizer>),
    ClientCredentials,
    Unset,
}

/// Why the server refused a token, as [`OAuthClient::replace`] is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// `401`: no token, or one the server does not admit.
    Unauthorized,
    /// `403 insufficient_scope`: a token without the scope the call needs.
    InsufficientScope,
}

#[derive(Default)]
struct LoginState {
    login: Option<StoredLogin>,
    loaded: bool,
}

/// Configures an [`OAuthClient`].
#[must_use]
pub struct OAuthClientBuilder {
    config: Config,
}

/// Why a mount could not log in.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthClientError {
    /// The server's protected resource metadata or its authorization server's metadata
    /// could not be found or used.
    #[error("OAuth discovery failed: {0}")]
    Discovery(String),
    /// The client could not be registered, or no way to identify it is configured.
    #[error("OAuth client registration failed: {0}")]
    Registration(String),
    /// The user (or the authorization server) did not authorize.
    #[error("OAuth authorization failed: {0}")]
    Authorization(String),
    /// The token endpoint gave no token.
    #[error("OAuth token request failed: {0}")]
    Token(String),
    /// The server kept asking for more scope than was granted.
    #[error("the server asked for more scope {0} times in a row; giving up")]
    StepUpLimit(u32),
    /// The token store failed.
    #[error("the OAuth token store failed: {0}")]
    Store(#[source] std::io::Error),
}

impl OAuthClient {
    /// Starts a configuration: dynamic registration, no authorizer, tokens in memory.
    pub fn builder() -> OAuthClientBuilder {
        OAuthClientBuilder {
            config: Config {
                client_id: None,
                client_secret: None,
                client_metadata_url: None,
                client_name: "agent-tools".to_owned(),
                grant: Grant::Unset,
                scopes: None,
                store: Arc::new(MemoryTokenStore::default()),
                max_step_ups: DEFAULT_STEP_UPS,
            },
        }
    }

    /// The access token to send now, refreshed first when it is about to expire; `None`
    /// before the first login (the server's `401` starts one).
    pub(crate) async fn token(&self) -> Result<Option<String>, OAuthClientError> {
        let mut state = self.state().await?;
        let Some(login) = &state.login else {
            return Ok(None);
        };
        let expiring = login
            .expires_at
            .is_some_and(|at| at <= get_current_timestamp() + REFRESH_MARGIN_SECS);
        if expiring && login.refresh_token.is_some() {
            // A refresh that fails leaves the old token, which the server's 401 will
            // then send through a new login.
            let _ = self.refresh(&mut state).await;
        }
        Ok(state.login.as_ref().map(|login| login.access_token.clone()))
    }

    /// A token to send instead of `sent`, which the server refused with `challenge` (its
    /// `WWW-Authenticate`) for `refusal`: another call's newer token when there is one,
    /// else what [`reauthorize`](Self::reauthorize) or [`step_up`](Self::step_up) gets.
    pub(crate) async fn replace(
        &self,
        server: &Url,
        sent: Option<&str>,
        challenge: &str,
        refusal: Refusal,
    ) -> Result<String, OAuthClientError> {
        let mut state = self.state().await?;
        if let Some(newer) = newer_than(&state, sent) {
            return Ok(newer);
        }
        let challenge = Challenge::parse(challenge);
        match refusal {
            Refusal::Unauthorized => self.reauthorize(&mut state, server, sent, &challenge).await,
            Refusal::InsufficientScope => self.step_up(&mut state, server, &challenge).await,
        }
    }

    /// After a `401`: a refreshed token, or one from a new login. The server's metadata
    /// is read first: a refresh goes only to the authorization server the server names
    /// now, for the resource it is now — after a move to another authorization server
    /// (SEP-2352) the login starts over there, with nothing of the old one.
    async fn reauthorize(
        &self,
        state: &mut LoginState,
        server: &Url,
        sent: Option<&str>,
        challenge: &Challenge,
    ) -> Result<String, OAuthClientError> {
        let resource = self.resource_of(server, challenge).await?;
        if sent.is_some()
            && state
                .login
                .as_ref()
                .is_some_and(|login| login.refresh_token.is_some() && login.is_for(&resource))
        {
            match self.refresh(state).await {
                Ok(token) => return Ok(token),
                Err(error) => tracing::info!("a token refresh failed, logging in again: {error}"),
            }
        }
        let scopes = self.shared.config.scopes.clone().or_else(|| challenge.scopes());
        self.log_in(state, &resource, scopes).await
    }

    /// After a `403 insufficient_scope`: a token from a new login with the scopes asked for
    /// added to those held, a bounded number of times in a row.
    async fn step_up(
        &self,
        state: &mut LoginState,
        server: &Url,
        challenge: &Challenge,
    ) -> Result<String, OAuthClientError> {
        let limit = self.shared.config.max_step_ups;
        if self.shared.step_ups.fetch_add(1, Ordering::SeqCst) >= limit {
            return Err(OAuthClientError::StepUpLimit(limit));
        }
        let mut scopes: BTreeSet<String> = state
            .login
            .as_ref()
            .map(|login| login.scopes.iter().cloned().collect())
            .unwrap_or_default();
        scopes.extend(challenge.scopes().unwrap_or_default());
        let scopes: Vec<String> = scopes.into_iter().collect();
        let resource = self.resource_of(server, challenge).await?;
        self.log_in(state, &resource, Some(scopes)).await
    }

    /// The server's protected resource metadata, checked to be about it.
    async fn resource_of(
        &self,
        server: &Url,
        challenge: &Challenge,
    ) -> Result<ResourceMetadata, OAuthClientError> {
        protected_resource::discover(&self.shared.http, server, challenge)
            .await
            .map_err(OAuthClientError::Discovery)
    }

    /// A request went through: the next refusal for want of scope starts a new count.
    pub(crate) fn succeeded(&self) {
        self.shared.step_ups.store(0, Ordering::SeqCst);
    }

    /// The login state, locked (one login, refresh or step-up at a time) and read from the
    /// store on first use.
    async fn state(&self) -> Result<MutexGuard<'_, LoginState>, OAuthClientError> {
        let mut state = self.shared.state.lock().await;
        if !state.loaded {
            state.login = self.shared.config.store.load().map_err(OAuthClientError::Store)?;
            state.loaded = true;
        }
        Ok(state)
    }

    fn keep(&self, state: &mut LoginState, login: StoredLogin) -> Result<String, OAuthClientError> {
        self.shared
            .config
            .store
            .save(&login)
            .map_err(OAuthClientError::Store)?;
        let token = login.access_token.clone();
        state.login = Some(login);
        Ok(token)
    }

    async fn refresh(&self, state: &mut LoginState) -> Result<String, OAuthClientError> {
        let Some(login) = state.login.clone() else {
            return Err(OAuthClientError::Token("nothing to refresh".to_owned()));
        };
        let Some(refresh_token) = login.refresh_token.clone() else {
            return Err(OAuthClientError::Token("no refresh token".to_owned()));
        };
        let metadata = self.metadata_of(&login.issuer).await?;
        let endpoint = endpoint(metadata.token_endpoint.as_deref(), "token_endpoint")?;
        let mut params = vec![
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token.as_str()),
        ];
        if let Some(resource) = &login.resource {
            params.push(("resource", resource));
        }
        match grant::token(&self.shared.http, &endpoint, &client_of(&login), &params).await {
            Ok(tokens) => {
                let refreshed = with_tokens(login, tokens);
                self.keep(state, refreshed)
            }
            Err(TokenFailure::Refused { code, description }) if code == "invalid_grant" => {
                // The refresh token is dead: forget it, so the next login starts clean.
                self.shared
                    .config
                    .store
                    .clear()
                    .map_err(OAuthClientError::Store)?;
                state.login = None;
                Err(OAuthClientError::Token(format!("invalid_grant ({description})")))
            }
            Err(failure) => Err(OAuthClientError::Token(failure.to_string())),
        }
    }

    async fn metadata_of(&self, issuer: &str) -> Result<ServerMetadata, OAuthClientError> {
        let url = fetch::secure_url(issuer).map_err(|problem| {
            OAuthClientError::Discovery(format!("the authorization server `{issuer}` {problem}"))
        })?;
        discovery::discover(&self.shared.http, &url)
            .await
            .map_err(|error| OAuthClientError::Discovery(error.0))
    }

    /// A whole login for `resource`: its authorization server's metadata, the client, the
    /// grant; kept in the store.
    async fn log_in(
        &self,
        state: &mut LoginState,
        resource: &ResourceMetadata,
        scopes: Option<Vec<String>>,
    ) -> Result<String, OAuthClientError> {
        let http = &self.shared.http;
        let issuer = resource.authorization_servers.first().ok_or_else(|| {
            OAuthClientError::Discovery(
                "the protected resource metadata names no authorization server".to_owned(),
            )
        })?;
        let metadata = self.metadata_of(issuer).await?;
        // The spec's order: what the challenge asks for, else all the resource supports,
        // else none (the authorization server's default).
        let scopes = scopes.unwrap_or_else(|| resource.scopes_supported.clone());
        let scopes = match self.shared.config.grant {
            Grant::Code(_) => with_offline_access(scopes, &metadata),
            _ => scopes,
        };
        let tokens_for = |client: &grant::Client, tokens: Tokens, redirect_uri: Option<&Url>| StoredLogin {
            issuer: metadata.issuer.clone(),
            resource: Some(resource.resource.clone()),
            client_id: client.id.clone(),
            client_secret: client.secret.clone(),
            redirect_uri: redirect_uri.map(|uri| uri.to_string()),
            token_endpoint_auth_method: client.auth.name().to_owned(),
            access_token: tokens.access_token.clone(),
            refresh_token: tokens.refresh_token.clone(),
            expires_at: tokens.expires_in.map(|seconds| get_current_timestamp() + seconds),
            scopes: scopes.clone(),
        };
        let token_endpoint = endpoint(metadata.token_endpoint.as_deref(), "token_endpoint")?;
        let login = match &self.shared.config.grant {
            Grant::ClientCredentials => {
                let client = self.configured_client(&metadata)?.ok_or_else(|| {
                    OAuthClientError::Registration(
                        "the client credentials grant needs a client id and secret".to_owned(),
                    )
                })?;
                let scope = scopes.join(" ");
                let mut params = vec![
                    ("grant_type", "client_credentials"),
                    ("resource", resource.resource.as_str()),
                ];
                if !scope.is_empty() {
                    params.push(("scope", &scope));
                }
                let tokens = grant::token(http, &token_endpoint, &client, &params)
                    .await
                    .map_err(|failure| OAuthClientError::Token(failure.to_string()))?;
                tokens_for(&client, tokens, None)
            }
            Grant::Code(authorizer) => {
                if !metadata
                    .code_challenge_methods_supported
                    .iter()
                    .any(|method| method == "S256")
                {
                    return Err(OAuthClientError::Discovery(format!(
                        "the authorization server {} does not support PKCE with S256, which MCP requires",
                        metadata.issuer
                    )));
                }
                let redirect_uri = authorizer.redirect_uri();
                let client = self.client_for(state, &metadata, redirect_uri, &scopes).await?;
                let authorize = endpoint(
                    metadata.authorization_endpoint.as_deref(),
                    "authorization_endpoint",
                )?;
                let pkce = Pkce::new();
                let url = grant::authorization_url(
                    &authorize,
                    &client.id,
                    redirect_uri,
                    &scopes,
                    Some(&resource.resource),
                    &pkce,
                );
                let callback = authorizer
                    .authorize(&url)
                    .await
                    .map_err(|error| OAuthClientError::Authorization(error.0))?;
                let issuer = grant::ExpectedIssuer {
                    issuer: &metadata.issuer,
                    iss_promised: metadata.authorization_response_iss_parameter_supported,
                };
                let code = grant::code_from(&callback, &pkce.state, &issuer)
                    .map_err(OAuthClientError::Authorization)?;
                let params = [
                    ("grant_type", "authorization_code"),
                    ("code", code.as_str()),
                    ("redirect_uri", redirect_uri.as_str()),
                    ("code_verifier", pkce.verifier.as_str()),
                    ("resource", resource.resource.as_str()),
                ];
                let tokens = grant::token(http, &token_endpoint, &client, &params)
                    .await
                    .map_err(|failure| OAuthClientError::Token(failure.to_string()))?;
                tokens_for(&client, tokens, Some(redirect_uri))
            }
            Grant::Unset => {
                return Err(OAuthClientError::Authorization(
                    "the server requires OAuth and no way to authorize is configured (OAuthClientBuilder::authorizer or client_credentials)".to_owned(),
                ));
            }
        };
        self.keep(state, login)
    }

    /// The pre-registered client, if one is configured.
    fn configured_client(
        &self,
        metadata: &ServerMetadata,
    ) -> Result<Option<grant::Client>, OAuthClientError> {
        let config = &self.shared.config;
        let Some(id) = &config.client_id else {
            return Ok(None);
        };
        let supported = metadata.token_endpoint_auth_methods_supported.as_deref();
        Ok(Some(grant::Client {
            id: id.clone(),
            secret: config.client_secret.clone(),
            auth: ClientAuth::choose(config.client_secret.is_some(), supported),
        }))
    }

    /// The client for the code flow, in the spec's order: pre-registered; the one
    /// registered before with this server and redirect; a client ID metadata document,
    /// when the server takes them; dynamic registration.
    async fn client_for(
        &self,
        state: &LoginState,
        metadata: &ServerMetadata,
        redirect_uri: &Url,
        scopes: &[String],
    ) -> Result<grant::Client, OAuthClientError> {
        if let Some(client) = self.configured_client(metadata)? {
            return Ok(client);
        }
        if let Some(login) = &state.login
            && discovery::same_issuer(&login.issuer, &metadata.issuer)
            && login.redirect_uri.as_deref() == Some(redirect_uri.as_str())
        {
            return Ok(client_of(login));
        }
        let config = &self.shared.config;
        if let Some(url) = &config.client_metadata_url
            && metadata.client_id_metadata_document_supported
        {
            return Ok(grant::Client {
                id: url.clone(),
                secret: None,
                auth: ClientAuth::None,
            });
        }
        let registration = endpoint(metadata.registration_endpoint.as_deref(), "registration_endpoint").map_err(|_| {
            OAuthClientError::Registration(format!(
                "{} offers no dynamic registration; configure a client id (OAuthClientBuilder::client_id)",
                metadata.issuer
            ))
        })?;
        let supported = metadata.token_endpoint_auth_methods_supported.as_deref();
        // A public client (PKCE, no secret) where the server takes one.
        let wanted = match supported {
            Some(list) if list.iter().any(|method| method == "none") => ClientAuth::None,
            _ => ClientAuth::choose(true, supported),
        };
        grant::register(
            &self.shared.http,
            &registration,
            &config.client_name,
            redirect_uri,
            scopes,
            wanted,
        )
        .await
        .map_err(|error| OAuthClientError::Registration(error.0))
    }
}

impl OAuthClientBuilder {
    /// Authorizes with the authorization code flow through `authorizer` (the user's
    /// browser: [`LoopbackBrowser`](crate::oauth::LoopbackBrowser); headless:
    /// [`FollowRedirect`](crate::oauth::FollowRedirect)).
    pub fn authorizer(mut self, authorizer: impl Authorizer) -> Self {
        self.config.grant = Grant::Code(Arc::new(authorizer));
        self
    }

    /// Gets tokens with the client credentials grant (a service acting for itself); needs
    /// [`client_id`](Self::client_id) and [`client_secret`](Self::client_secret).
    pub fn client_credentials(mut self) -> Self {
        self.config.grant = Grant::ClientCredentials;
        self
    }

    /// A client registered with the authorization server beforehand.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.config.client_id = Some(client_id.into());
        self
    }

    /// The pre-registered client's secret (a confidential client).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.config.client_secret = Some(secret.into());
        self
    }

    /// An HTTPS URL where this client's metadata document is published, used as its
    /// client id with authorization servers that accept such documents instead of
    /// registration.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.config.client_metadata_url = Some(url.into());
        self
    }

    /// The name dynamic registration gives (default `agent-tools`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.config.client_name = name.into();
        self
    }

    /// Asks for these scopes instead of those the server's challenge or metadata names.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.config.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Keeps the login in `store` (default: in memory, for this process).
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.config.store = Arc::new(store);
        self
    }

    /// How many times in a row a server may ask for more scope before the call fails
    /// (default 2).
    pub fn max_step_ups(mut self, times: u32) -> Self {
        self.config.max_step_ups = times;
        self
    }

    /// The client.
    pub fn build(self) -> OAuthClient {
        OAuthClient {
            shared: Arc::new(Shared {
                config: self.config,
                http: fetch::http_client(),
                state: Mutex::new(LoginState::default()),
                step_ups: AtomicU32::new(0),
            }),
        }
    }
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.shared.config;
        f.debug_struct("OAuthClient")
            .field("client_id", &config.client_id)
            .field(
                "client_secret",
                &config.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("client_metadata_url", &config.client_metadata_url)
            .field("scopes", &config.scopes)
            .finish_non_exhaustive()
    }
}

/// The current token, if another call got one since `sent` was sent.
fn newer_than(state: &LoginState, sent: Option<&str>) -> Option<String> {
    let current = state.login.as_ref()?.access_token.as_str();
    (Some(current) != sent).then(|| current.to_owned())
}

fn client_of(login: &StoredLogin) -> grant::Client {
    grant::Client {
        id: login.client_id.clone(),
        secret: login.client_secret.clone(),
        auth: ClientAuth::from_name(&login.token_endpoint_auth_method).unwrap_or(ClientAuth::None),
    }
}

fn with_tokens(mut login: StoredLogin, tokens: Tokens) -> StoredLogin {
    login.access_token = tokens.access_token;
    // A server that does not rotate refresh tokens sends none back: keep the old one.
    if tokens.refresh_token.is_some() {
        login.refresh_token = tokens.refresh_token;
    }
    login.expires_at = tokens.expires_in.map(|seconds| get_current_timestamp() + seconds);
    login
}

/// `scopes` with `offline_access` added when the authorization server lists it (SEP-2207):
/// a login by a person should outlive its first access token, which takes a refresh
/// token, and some servers issue one only for that scope. Never asked of a server that
/// does not list it, which may refuse the whole request for an unknown scope.
fn with_offline_access(mut scopes: Vec<String>, metadata: &ServerMetadata) -> Vec<String> {
    const OFFLINE_ACCESS: &str = "offline_access";
    let listed = metadata
        .scopes_supported
        .iter()
        .any(|scope| scope == OFFLINE_ACCESS);
    if listed && !scopes.iter().any(|scope| scope == OFFLINE_ACCESS) {
        scopes.push(OFFLINE_ACCESS.to_owned());
    }
    scopes
}

fn endpoint(url: Option<&str>, what: &str) -> Result<Url, OAuthClientError> {
    let url =
        url.ok_or_else(|| OAuthClientError::Discovery(format!("the authorization server has no {what}")))?;
    fetch::secure_url(url)
        .map_err(|problem| OAuthClientError::Discovery(format!("its {what} `{url}` {problem}")))
}
