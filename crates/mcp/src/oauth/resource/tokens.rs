//! [`OAuthResource`]: this server as an OAuth 2.1 resource server — the access tokens it
//! admits, and who they are for.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use agent_tools_core::context::Principal;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use tokio::sync::OnceCell;
use url::Url;

use super::keys::{KeyCache, KeyError};
use super::scopes::ScopeMap;
use crate::oauth::discovery::{self, ServerMetadata};
use crate::oauth::fetch::{self, FetchError};

/// How long, by default, a token may be past its `exp` (or before its `nbf`): clocks
/// differ a little.
const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
/// By default, the shortest time between two fetches of the key set caused by tokens
/// naming unknown keys.
const DEFAULT_KEY_REFETCH: Duration = Duration::from_secs(10);
/// By default, the longest an introspection answer is kept (never past the token's `exp`).
const DEFAULT_INTROSPECTION_CACHE: Duration = Duration::from_secs(60);
/// At most this many introspection answers are kept.
const INTROSPECTION_CACHE_ENTRIES: usize = 10_000;

/// The algorithms a token may be signed with: asymmetric ones only, so that a token cannot
/// be "signed" with a public key used as an HMAC secret.
const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The access tokens an MCP server over HTTP admits: issued by one authorization server,
/// for this server (the audience, its resource URI per RFC 8707), unexpired; with scopes
/// that reach tools per a [`ScopeMap`].
///
/// JWTs are checked against the issuer's signing keys (its `jwks_uri`, from its metadata;
/// fetched again when a token names a key not yet seen, which is how rotations arrive);
/// other tokens are asked about at the issuer's introspection endpoint (RFC 7662) when
/// [`introspection`](OAuthResourceBuilder::introspection) credentials are given. The
/// issuer's metadata is read on first need, and again after a failure.
///
/// ```
/// use agent_tools_mcp::oauth::{OAuthResource, ScopeMap};
///
/// let resource = OAuthResource::builder("https://auth.example.com", "https://mcp.example.com/mcp")
///     .scopes(ScopeMap::new().read_only("mcp:read", ["*"])?.grant("mcp:write", ["*"])?)
///     .build()?;
/// assert_eq!(
///     resource.metadata_url(),
///     "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct OAuthResource {
    inner: Arc<Inner>,
}

struct Inner {
    issuer: Url,
    /// The issuer identifier as configured, which tokens and metadata must name.
    issuer_id: String,
    audience: String,
    metadata_url: String,
    resource_name: Option<String>,
    scopes: ScopeMap,
    leeway: Duration,
    key_refetch: Duration,
    introspection: Option<ClientSecret>,
    introspection_cache: Duration,
    http: reqwest::Client,
    server: OnceCell<Arc<Issuer>>,
    introspected: Mutex<HashMap<Vec<u8>, (Principal, Instant)>>,
}

/// What was learnt of the issuer.
struct Issuer {
    metadata: ServerMetadata,
    keys: Option<KeyCache>,
}

/// Credentials of this server at the issuer, for introspection.
#[derive(Clone)]
struct ClientSecret {
    id: String,
    secret: String,
}

/// Configures an [`OAuthResource`].
#[must_use]
pub struct OAuthResourceBuilder {
    issuer: String,
    audience: String,
    resource_name: Option<String>,
    scopes: ScopeMap,
    leeway: Duration,
    key_refetch: Duration,
    introspection: Option<ClientSecret>,
    introspection_cache: Duration,
}

/// A configuration that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// The issuer or audience is not a URL, or the issuer is not HTTPS (HTTP is accepted
    /// for `localhost` and loopback addresses only).
    #[error("{what} `{url}` {problem}")]
    BadUrl {
        /// `the issuer` or `the audience`.
        what: &'static str,
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        problem: String,
    },
}

impl OAuthResource {
    /// Admits tokens from `issuer` (the authorization server's issuer URL) for
    /// `audience` (this server's resource URI, as clients reach it: e.g.
    /// `https://mcp.example.com/mcp`).
    pub fn builder(issuer: impl Into<String>, audience: impl Into<String>) -> OAuthResourceBuilder {
        OAuthResourceBuilder {
            issuer: issuer.into(),
            audience: audience.into(),
            resource_name: None,
            scopes: ScopeMap::new(),
            leeway: DEFAULT_LEEWAY,
            key_refetch: DEFAULT_KEY_REFETCH,
            introspection: None,
            introspection_cache: DEFAULT_INTROSPECTION_CACHE,
        }
    }

    /// This server's resource URI, which tokens must name as their audience.
    pub fn audience(&self) -> &str {
        &self.inner.audience
    }

    /// Where clients find this server's protected resource metadata (RFC 9728): the
    /// audience with `/.well-known/oauth-protected-resource` inserted before its path.
    pub fn metadata_url(&self) -> &str {
        &self.inner.metadata_url
    }

    /// Which scopes reach which tools.
    pub fn scopes(&self) -> &ScopeMap {
        &self.inner.scopes
    }

    /// The protected resource metadata document (RFC 9728).
    pub fn metadata(&self) -> serde_json::Value {
        let mut document = serde_json::json!({
            "resource": self.inner.audience,
            "authorization_servers": [self.inner.issuer_id],
            "bearer_methods_supported": ["header"],
        });
        let scopes = self.inner.scopes.names();
        if !scopes.is_empty() {
            document["scopes_supported"] = scopes.into();
        }
        if let Some(name) = &self.inner.resource_name {
            document["resource_name"] = name.as_str().into();
        }
        document
    }

    /// The principal `token` is for, or why it is not admitted.
    pub(crate) async fn verify(&self, token: &str) -> Result<Principal, TokenError> {
        let issuer = self.issuer().await?;
        let is_jwt = jsonwebtoken::decode_header(token).is_ok();
        match (&issuer.keys, is_jwt, &self.inner.introspection) {
            (Some(keys), true, _) => self.verify_jwt(keys, token).await,
            (_, _, Some(credentials)) => self.introspect(&issuer.metadata, credentials, token).await,
            (None, true, None) => Err(TokenError::Unavailable(
                "the authorization server publishes no keys (jwks_uri) and no introspection credentials are configured".to_owned(),
            )),
            (_, false, None) => Err(TokenError::Invalid("the token is not a JWT".to_owned())),
        }
    }

    /// The issuer's metadata and keys, read once (and again after a failure).
    async fn issuer(&self) -> Result<Arc<Issuer>, TokenError> {
        let inner = &self.inner;
        inner
            .server
            .get_or_try_init(|| async {
                let metadata = discovery::discover(&inner.http, &inner.issuer)
                    .await
                    .map_err(|error| TokenError::Unavailable(error.0))?;
                let keys = match metadata.jwks_uri.as_deref() {
                    Some(uri) => {
                        let uri = secure_url(uri, "the jwks_uri")?;
                        Some(KeyCache::new(inner.http.clone(), uri, inner.key_refetch))
                    }
                    None => None,
                };
                Ok(Arc::new(Issuer { metadata, keys }))
            })
            .await
            .cloned()
    }

    async fn verify_jwt(&self, keys: &KeyCache, token: &str) -> Result<Principal, TokenError> {
        let invalid = |why: &str| TokenError::Invalid(why.to_owned());
        let header = jsonwebtoken::decode_header(token).map_err(|_| invalid("the token is not a JWT"))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(invalid("the token is not signed with an accepted algorithm"));
        }
        let key = match keys.key(header.kid.as_deref()).await {
            Ok(key) => key,
            Err(KeyError::Unknown) => {
                return Err(invalid(
                    "the token is signed with a key the issuer does not publish",
                ));
            }
            Err(KeyError::Unavailable(error)) => return Err(TokenError::Unavailable(error.0)),
        };
        if !key_allows(&key, header.alg) {
            return Err(invalid("the token's algorithm does not match its key"));
        }
        let decoding = DecodingKey::from_jwk(&key).map_err(|_| {
            TokenError::Unavailable("the issuer publishes a key that cannot be used".to_owned())
        })?;
        let mut validation = Validation::new(header.alg);
        let issuer = self.inner.issuer_id.trim_end_matches('/');
        validation.set_issuer(&[issuer.to_owned(), format!("{issuer}/")]);
        validation.set_audience(&[&self.inner.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = self.inner.leeway.as_secs();
        let claims = jsonwebtoken::decode::<Claims>(token, &decoding, &validation)
            .map_err(|error| TokenError::Invalid(describe(error.kind())))?
            .claims;
        Ok(claims.into_principal())
    }

    async fn introspect(
        &self,
        metadata: &ServerMetadata,
        credentials: &ClientSecret,
        token: &str,
    ) -> Result<Principal, TokenError> {
        let fingerprint = fingerprint(token);
        if let Some(principal) = self.cached_introspection(&fingerprint) {
            return Ok(principal);
        }
        let endpoint = metadata.introspection_endpoint.as_deref().ok_or_else(|| {
            TokenError::Unavailable("the authorization server has no introspection endpoint".to_owned())
        })?;
        let endpoint = secure_url(endpoint, "the introspection endpoint")?;
        let request = self.inner.http.post(endpoint.clone());
        let request = fetch::basic_auth(request, &credentials.id, &credentials.secret)
            .form(&[("token", token), ("token_type_hint", "access_token")]);
        let answer: Introspection = fetch::json(request, &endpoint)
            .await
            .map_err(|FetchError(error)| TokenError::Unavailable(error))?;
        let (principal, until) = answer.admit(&self.inner)?;
        if !self.inner.introspection_cache.is_zero() {
            self.cache_introspection(fingerprint, principal.clone(), until);
        }
        Ok(principal)
    }

    fn cached_introspection(&self, fingerprint: &[u8]) -> Option<Principal> {
        let cache = self
            .inner
            .introspected
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (principal, until) = cache.get(fingerprint)?;
        (Instant::now() < *until).then(|| principal.clone())
    }

    fn cache_introspection(&self, fingerprint: Vec<u8>, principal: Principal, until: Instant) {
        let mut cache = self
            .inner
            .introspected
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= INTROSPECTION_CACHE_ENTRIES {
            let now = Instant::now();
            cache.retain(|_, (_, until)| *until > now);
            if cache.len() >= INTROSPECTION_CACHE_ENTRIES {
                cache.clear();
            }
        }
        cache.insert(fingerprint, (principal, until));
    }
}

impl OAuthResourceBuilder {
    /// Which scopes reach which tools (default: every valid token reaches every tool).
    pub fn scopes(mut self, scopes: ScopeMap) -> Self {
        self.scopes = scopes;
        self
    }

    /// Checks tokens that are not JWTs at the issuer's introspection endpoint (RFC 7662),
    /// authenticating as `client_id` with `client_secret` (HTTP Basic). Answers are kept
    /// (see [`introspection_cache`](Self::introspection_cache)).
    pub fn introspection(mut self, client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        self.introspection = Some(ClientSecret {
            id: client_id.into(),
            secret: client_secret.into(),
        });
        self
    }

    /// How long an introspection answer is kept (default a minute; never past the token's
    /// expiry). Zero asks for every request, so a token the authorization server revokes
    /// is refused at once.
    pub fn introspection_cache(mut self, keep: Duration) -> Self {
        self.introspection_cache = keep;
        self
    }

    /// How far past `exp` (or before `nbf`) a token is still admitted (default 30 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The shortest time between two fetches of the issuer's keys that tokens naming
    /// unknown keys cause (default 10 s): a bound on what a flood of made-up tokens costs
    /// the authorization server.
    pub fn key_refetch_interval(mut self, interval: Duration) -> Self {
        self.key_refetch = interval;
        self
    }

    /// A name for this server in its protected resource metadata.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The resource server, or what is wrong with the URLs.
    pub fn build(self) -> Result<OAuthResource, OAuthError> {
        let issuer = fetch::secure_url(&self.issuer).map_err(|problem| OAuthError::BadUrl {
            what: "the issuer",
            url: self.issuer.clone(),
            problem,
        })?;
        let audience = Url::parse(&self.audience).map_err(|error| OAuthError::BadUrl {
            what: "the audience",
            url: self.audience.clone(),
            problem: format!("is not a URL ({error})"),
        })?;
        Ok(OAuthResource {
            inner: Arc::new(Inner {
                metadata_url: metadata_url(&audience),
                issuer,
                issuer_id: self.issuer,
                audience: self.audience,
                resource_name: self.resource_name,
                scopes: self.scopes,
                leeway: self.leeway,
                key_refetch: self.key_refetch,
                introspection: self.introspection,
                introspection_cache: self.introspection_cache,
                http: fetch::http_client(),
                server: OnceCell::new(),
                introspected: Mutex::default(),
            }),
        })
    }
}

impl fmt::Debug for OAuthResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthResource")
            .field("issuer", &self.inner.issuer_id)
            .field("audience", &self.inner.audience)
            .field("scopes", &self.inner.scopes)
            .field(
                "introspection",
                &self.inner.introspection.as_ref().map(|_| "<client credentials>"),
            )
            .finish_non_exhaustive()
    }
}

/// Why a token was not admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TokenError {
    /// The token is bad: `401 invalid_token` with this description.
    Invalid(String),
    /// It cannot be checked now (the authorization server cannot be reached): `503`.
    Unavailable(String),
}

/// The claims read from a JWT access token (RFC 9068), beyond those `jsonwebtoken` checks.
#[derive(Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    azp: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<Vec<String>>,
}

impl Claims {
    fn into_principal(self) -> Principal {
        let scopes = match (self.scope, self.scp) {
            (Some(scope), _) => scope.split_whitespace().map(str::to_owned).collect(),
            (None, Some(scp)) => scp,
            (None, None) => Vec::new(),
        };
        let principal = Principal::new(self.sub).with_scopes(scopes);
        match self.client_id.or(self.azp) {
            Some(client) => principal.with_client_id(client),
            None => principal,
        }
    }
}

/// An introspection answer (RFC 7662 §2.2).
#[derive(Deserialize)]
struct Introspection {
    active: bool,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    exp: Option<u64>,
    #[serde(default)]
    iss: Option<String>,
    #[serde(default)]
    aud: Option<Audience>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

impl Introspection {
    /// The principal, and until when the answer may be kept; or why the token is not
    /// admitted.
    fn admit(self, inner: &Inner) -> Result<(Principal, Instant), TokenError> {
        let invalid = |why: &str| Err(TokenError::Invalid(why.to_owned()));
        if !self.active {
            return invalid("the authorization server says the token is not active");
        }
        if self
            .iss
            .as_deref()
            .is_some_and(|iss| !discovery::same_issuer(iss, &inner.issuer_id))
        {
            return invalid("the token was issued by another authorization server");
        }
        let for_us = match &self.aud {
            Some(Audience::One(aud)) => *aud == inner.audience,
            Some(Audience::Many(auds)) => auds.contains(&inner.audience),
            // A server that does not say the audience cannot be shown to have named us.
            None => false,
        };
        if !for_us {
            return invalid("the token is not for this server (audience)");
        }
        let now = jsonwebtoken::get_current_timestamp();
        let left = match self.exp {
            Some(exp) if exp + inner.leeway.as_secs() <= now => return invalid("the token has expired"),
            Some(exp) => Duration::from_secs(exp.saturating_sub(now)),
            None => inner.introspection_cache,
        };
        let Some(subject) = self.sub.or_else(|| self.client_id.clone()) else {
            return invalid("the token names no subject");
        };
        let mut principal = Principal::new(subject).with_scopes(
            self.scope
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned),
        );
        if let Some(client) = self.client_id {
            principal = principal.with_client_id(client);
        }
        Ok((principal, Instant::now() + left.min(inner.introspection_cache)))
    }
}

/// Whether `key` may verify a signature made with `alg`: the key's own `alg`, when it
/// names one, must be this one, and its type must fit the algorithm's family.
fn key_allows(key: &Jwk, alg: Algorithm) -> bool {
    if let Some(declared) = key.common.key_algorithm
        && declared.to_string().parse::<Algorithm>().ok() != Some(alg)
    {
        return false;
    }
    matches!(
        (&key.algorithm, alg),
        (
            AlgorithmParameters::RSA(_),
            Algorithm::RS256
                | Algorithm::RS384
                | Algorithm::RS512
                | Algorithm::PS256
                | Algorithm::PS384
                | Algorithm::PS512
        ) | (
            AlgorithmParameters::EllipticCurve(_),
            Algorithm::ES256 | Algorithm::ES384
        ) | (AlgorithmParameters::OctetKeyPair(_), Algorithm::EdDSA)
    )
}

/// A description of why a JWT failed its checks, for the `error_description` a client
/// sees (without echoing anything of the token).
fn describe(kind: &jsonwebtoken::errors::ErrorKind) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired",
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)",
        ErrorKind::InvalidAudience => "the token is not for this server (audience)",
        ErrorKind::InvalidIssuer => "the token was issued by another authorization server",
        ErrorKind::InvalidSignature => "the token's signature does not verify",
        ErrorKind::MissingRequiredClaim(claim) => return format!("the token lacks the `{claim}` claim"),
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not match its key",
        _ => "the token is malformed",
    }
    .to_owned()
}

/// `audience` with `/.well-known/oauth-protected-resource` inserted before its path
/// (RFC 9728 §3.1).
fn metadata_url(audience: &Url) -> String {
    fetch::well_known(audience, "oauth-protected-resource").into()
}

/// `url`, named in the issuer's metadata as `what`, if it may be used
/// ([`fetch::secure_url`]); else the issuer cannot be used now.
fn secure_url(url: &str, what: &str) -> Result<Url, TokenError> {
    fetch::secure_url(url).map_err(|problem| TokenError::Unavailable(format!("{what} `{url}` {problem}")))
}

/// A SHA-256 of the token: introspection answers are kept under it, never the token.
fn fingerprint(token: &str) -> Vec<u8> {
    aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, token.as_bytes())
        .as_ref()
        .to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_inserts_the_well_known_path() {
        let url = |audience: &str| metadata_url(&Url::parse(audience).unwrap());
        assert_eq!(
            url("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            url("https://mcp.example.com/"),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn only_https_issuers_or_this_machine() {
        let build = |issuer: &str| OAuthResource::builder(issuer, "https://mcp.example.com/mcp").build();
        assert!(build("https://auth.example.com").is_ok());
        assert!(build("http://127.0.0.1:9000").is_ok());
        assert!(build("http://localhost:9000").is_ok());
        let error = build("http://auth.example.com").unwrap_err().to_string();
        assert_eq!(
            error,
            "the issuer `http://auth.example.com` must be HTTPS (HTTP only for localhost)"
        );
        assert!(build("not a url").is_err());
    }
}
