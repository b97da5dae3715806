//! A real OAuth authorization server on loopback, for the tests. It publishes RFC 8414
//! metadata and signs ES256 JWT access tokens with a key it serves as a JWKS (rotated, or
//! revoked, on request); registers clients (RFC 7591); authorizes at once, as its one user
//! (`ada`), redirecting with a code; and grants tokens for codes (checking PKCE S256, the
//! redirect URI and the client's authentication), refresh tokens (rotating them) and
//! client credentials. It answers introspection (RFC 7662) for opaque tokens the tests
//! hand it, and counts what it was asked.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// The resource server's credentials for introspection.
pub const INTROSPECTION_CLIENT: (&str, &str) = ("resource-server", "resource-secret");
/// A client registered beforehand, for the client credentials grant.
pub const SERVICE_CLIENT: (&str, &str) = ("service", "service-secret");
/// The one user, who approves everything.
pub const USER: &str = "ada";

/// A signing key and its public half as a JWK.
#[derive(Clone)]
pub struct SigningKey {
    /// The key's id (`kid`), in the JWT header and the JWKS.
    pub kid: String,
    /// The private key, for signing.
    pub encoding: EncodingKey,
    /// The public key as the JWKS publishes it.
    pub jwk: Jwk,
}

impl SigningKey {
    /// A fresh P-256 key named `kid`.
    pub fn generate(kid: &str) -> Self {
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
            .expect("a P-256 key is generated");
        let encoding = EncodingKey::from_ec_der(pkcs8.as_ref());
        let mut jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256).expect("the key as a JWK");
        jwk.common.key_id = Some(kid.to_owned());
        Self {
            kid: kid.to_owned(),
            encoding,
            jwk,
        }
    }

    /// `claims` signed with this key, its id in the header.
    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.encoding).expect("the claims are signed")
    }
}

/// A registered client.
#[derive(Clone)]
struct Client {
    secret: Option<String>,
    redirect_uris: Vec<String>,
    #[allow(dead_code, reason = "kept as registered; no grant checks it yet")]
    auth_method: String,
}

/// A code waiting to be exchanged.
struct Code {
    client_id: String,
    challenge: String,
    redirect_uri: String,
    scope: String,
    resource: Option<String>,
}

/// What a refresh token grants.
#[derive(Clone)]
struct Refresh {
    client_id: String,
    subject: String,
    scope: String,
    resource: Option<String>,
}

/// What the server holds.
#[derive(Default)]
struct Inner {
    issuer: String,
    /// Published keys; the last signs.
    keys: Vec<SigningKey>,
    clients: HashMap<String, Client>,
    codes: HashMap<String, Code>,
    refresh_tokens: HashMap<String, Refresh>,
    opaque: HashMap<String, Value>,
    /// Seconds the tokens of the next code exchange live (then the usual hour).
    code_token_lifetime: Option<u64>,
    /// Access tokens are opaque (checked by introspection) rather than JWTs.
    opaque_access_tokens: bool,
    /// The authorization requests, as query maps.
    authorizations: Vec<HashMap<String, String>>,
    /// The registration requests, as sent.
    registration_requests: Vec<Value>,
    /// Whether the metadata promises `iss` in authorization responses (RFC 9207).
    iss_promised: bool,
    /// The `iss` the redirect carries, if any.
    iss_in_redirect: Option<String>,
    /// `scopes_supported` of the metadata, if it lists any.
    scopes_supported: Option<Vec<String>>,
    serial: usize,
}

#[derive(Default)]
struct Counters {
    jwks_fetches: AtomicUsize,
    introspections: AtomicUsize,
    registrations: AtomicUsize,
    code_grants: AtomicUsize,
    refresh_grants: AtomicUsize,
    client_credentials_grants: AtomicUsize,
}

#[derive(Clone)]
struct Shared {
    inner: Arc<Mutex<Inner>>,
    counters: Arc<Counters>,
}

/// A running authorization server; stops when dropped.
pub struct AuthServer {
    shared: Shared,
    issuer: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl AuthServer {
    /// Starts one on a free loopback port, with one key (`key-1`) and the service client.
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let issuer = format!(
            "http://127.0.0.1:{}",
            listener.local_addr().expect("its address").port()
        );
        let mut inner = Inner {
            issuer: issuer.clone(),
            keys: vec![SigningKey::generate("key-1")],
            ..Inner::default()
        };
        let (id, secret) = SERVICE_CLIENT;
        inner.clients.insert(
            id.to_owned(),
            Client {
                secret: Some(secret.to_owned()),
                redirect_uris: Vec::new(),
                auth_method: "client_secret_basic".to_owned(),
            },
        );
        let shared = Shared {
            inner: Arc::new(Mutex::new(inner)),
            counters: Arc::new(Counters::default()),
        };
        let router = Router::new()
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/jwks", get(jwks))
            .route("/introspect", post(introspect))
            .route("/register", post(register))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .with_state(shared.clone());
        let task = tokio::spawn(async move {
            axum::serve(listener, router).await.expect("the server runs");
        });
        Self { shared, issuer, task }
    }

    /// The issuer: the server's base URL, where its metadata is.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The key that signs now.
    pub fn signing_key(&self) -> SigningKey {
        self.shared
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keys
            .last()
            .expect("a signing key")
            .clone()
    }

    /// Publishes a new key `kid`, which signs from now on; the old ones stay published.
    pub fn rotate(&self, kid: &str) {
        self.shared
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keys
            .push(SigningKey::generate(kid));
    }

    /// Replaces every key with a new one `kid`: tokens signed before no longer verify.
    pub fn revoke_keys(&self, kid: &str) {
        self.shared
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keys = vec![SigningKey::generate(kid)];
    }

    /// Issues opaque access tokens, which resource servers must introspect, from now on.
    pub fn issue_opaque_tokens(&self) {
        self.shared
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .opaque_access_tokens = true;
    }

    /// Revokes every opaque access token issued so far.
    pub fn revoke_access_tokens(&self) {
        for answer in self
            .shared
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .opaque
            .values_mut()
        {
            answer["active"] = false.into();
        }
    }

    /// The tokens the next code exchange issues live `seconds`.
    pub fn next_code_tokens_live(&self, seconds: u64) {
        self.shared
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .code_token_lifetime = Some(seconds);
    }

    /// A JWT access token from this issuer for `audience`, for subject `sub` with
    /// `scope`, valid for an hour; `changes` overrides or adds claims.
    pub fn token(&self, audience: &str, sub: &str, scope: &str, changes: Value) -> String {
        let mut inner = self.shared.inner.lock().unwrap_or_else(PoisonError::into_inner);
        issue(&mut inner, audience, sub, scope, "test-client", 3600, changes)
    }

    /// An opaque token that introspection describes with `answer`.
    pub fn opaque_token(&self, token: &str, answer: Value) {
        self.shared
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .opaque
            .insert(token.to_owned(), answer);
    }

    /// The authorization requests so far, as query maps.
    pub fn authorizations(&self) -> Vec<HashMap<String, String>> {
        self.shared
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .authorizations
            .clone()
    }

    /// From now on the metadata promises (`authorization_response_iss_parameter_supported`)
    /// or not that redirects carry `iss` (RFC 9207), and they carry `iss` — which may be
    /// another issuer's, as a mix-up attack would have it — or none.
    pub fn iss_in_redirects(&self, promised: bool, iss: Option<&str>) {
        let mut inner = self.shared.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.iss_promised = promised;
        inner.iss_in_redirect = iss.map(str::to_owned);
    }

    /// The metadata lists `scopes` as `scopes_supported`.
    pub fn scopes_supported(&self, scopes: &[&str]) {
        self.shared
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .scopes_supported = Some(scopes.iter().map(|scope| (*scope).to_owned()).collect());
    }

    /// The registration requests so far, as their JSON bodies.
    pub fn registration_requests(&self) -> Vec<Value> {
        self.shared
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .registration_requests
            .clone()
    }

    /// How many times the JWKS was fetched.
    pub fn jwks_fetches(&self) -> usize {
        self.shared.counters.jwks_fetches.load(Ordering::SeqCst)
    }

    /// How many introspection requests came.
    pub fn introspections(&self) -> usize {
        self.shared.counters.introspections.load(Ordering::SeqCst)
    }

    /// How many clients registered (RFC 7591).
    pub fn registrations(&self) -> usize {
        self.shared.counters.registrations.load(Ordering::SeqCst)
    }

    /// How many authorization codes were exchanged.
    pub fn code_grants(&self) -> usize {
        self.shared.counters.code_grants.load(Ordering::SeqCst)
    }

    /// How many refresh tokens were exchanged.
    pub fn refresh_grants(&self) -> usize {
        self.shared.counters.refresh_grants.load(Ordering::SeqCst)
    }

    /// How many client credentials grants were made.
    pub fn client_credentials_grants(&self) -> usize {
        self.shared
            .counters
            .client_credentials_grants
            .load(Ordering::SeqCst)
    }
}

/// A signed access token.
fn issue(
    inner: &mut Inner,
    audience: &str,
    sub: &str,
    scope: &str,
    client_id: &str,
    lifetime: u64,
    changes: Value,
) -> String {
    let now = jsonwebtoken::get_current_timestamp();
    inner.serial += 1;
    let mut claims = json!({
        "iss": inner.issuer, "aud": audience, "sub": sub, "scope": scope,
        "client_id": client_id, "iat": now, "exp": now + lifetime, "jti": inner.serial,
    });
    if let (Some(claims), Some(changes)) = (claims.as_object_mut(), changes.as_object()) {
        for (key, value) in changes {
            claims.insert(key.clone(), value.clone());
        }
    }
    inner.keys.last().expect("a signing key").sign(&claims)
}

async fn metadata(State(shared): State<Shared>) -> Json<Value> {
    let inner = shared.inner.lock().unwrap_or_else(PoisonError::into_inner);
    let issuer = inner.issuer.clone();
    let mut metadata = json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "jwks_uri": format!("{issuer}/jwks"),
        "introspection_endpoint": format!("{issuer}/introspect"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
    });
    if inner.iss_promised {
        metadata["authorization_response_iss_parameter_supported"] = true.into();
    }
    if let Some(scopes) = &inner.scopes_supported {
        metadata["scopes_supported"] = json!(scopes);
    }
    Json(metadata)
}

async fn jwks(State(shared): State<Shared>) -> Json<JwkSet> {
    shared.counters.jwks_fetches.fetch_add(1, Ordering::SeqCst);
    let keys = shared
        .inner
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .keys
        .iter()
        .map(|key| key.jwk.clone())
        .collect();
    Json(JwkSet { keys })
}

async fn introspect(
    State(shared): State<Shared>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    shared.counters.introspections.fetch_add(1, Ordering::SeqCst);
    let (id, secret) = INTROSPECTION_CLIENT;
    if basic_credentials(&headers) != Some((id.to_owned(), secret.to_owned())) {
        return (StatusCode::UNAUTHORIZED, "unknown client").into_response();
    }
    let token = form.get("token").cloned().unwrap_or_default();
    let answer = shared
        .inner
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .opaque
        .get(&token)
        .cloned();
    Json(answer.unwrap_or_else(|| json!({"active": false}))).into_response()
}

async fn register(State(shared): State<Shared>, Json(request): Json<Value>) -> Response {
    shared.counters.registrations.fetch_add(1, Ordering::SeqCst);
    let mut inner = shared.inner.lock().unwrap_or_else(PoisonError::into_inner);
    inner.registration_requests.push(request.clone());
    inner.serial += 1;
    // Named after the server too, so that one server's clients are never another's.
    let port = inner.issuer.rsplit(':').next().unwrap_or_default().to_owned();
    let id = format!("client-{port}-{}", inner.serial);
    let method = request["token_endpoint_auth_method"]
        .as_str()
        .unwrap_or("client_secret_basic")
        .to_owned();
    let secret = (method != "none").then(|| format!("secret-{}", inner.serial));
    let redirect_uris: Vec<String> = request["redirect_uris"]
        .as_array()
        .map(|uris| {
            uris.iter()
                .filter_map(|uri| uri.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    inner.clients.insert(
        id.clone(),
        Client {
            secret: secret.clone(),
            redirect_uris: redirect_uris.clone(),
            auth_method: method.clone(),
        },
    );
    let mut answer =
        json!({"client_id": id, "redirect_uris": redirect_uris, "token_endpoint_auth_method": method});
    if let Some(secret) = secret {
        answer["client_secret"] = secret.into();
    }
    (StatusCode::CREATED, Json(answer)).into_response()
}

async fn authorize(State(shared): State<Shared>, Query(query): Query<HashMap<String, String>>) -> Response {
    let mut inner = shared.inner.lock().unwrap_or_else(PoisonError::into_inner);
    inner.authorizations.push(query.clone());
    let param = |name: &str| query.get(name).cloned().unwrap_or_default();
    let Some(client) = inner.clients.get(&param("client_id")).cloned() else {
        return (StatusCode::BAD_REQUEST, "unknown client").into_response();
    };
    let redirect_uri = param("redirect_uri");
    if !client.redirect_uris.contains(&redirect_uri) {
        return (StatusCode::BAD_REQUEST, "unregistered redirect_uri").into_response();
    }
    if param("code_challenge_method") != "S256" || param("code_challenge").is_empty() {
        return (StatusCode::BAD_REQUEST, "PKCE S256 is required").into_response();
    }
    inner.serial += 1;
    let code = format!("code-{}", inner.serial);
    inner.codes.insert(
        code.clone(),
        Code {
            client_id: param("client_id"),
            challenge: param("code_challenge"),
            redirect_uri: redirect_uri.clone(),
            scope: param("scope"),
            resource: query.get("resource").cloned(),
        },
    );
    let mut location = url::Url::parse(&redirect_uri).expect("the redirect URI is a URL");
    location
        .query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &param("state"));
    if let Some(iss) = &inner.iss_in_redirect {
        location.query_pairs_mut().append_pair("iss", iss);
    }
    (StatusCode::FOUND, [("location", location.to_string())]).into_response()
}

async fn token(
    State(shared): State<Shared>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let refuse = |code: &str| (StatusCode::BAD_REQUEST, Json(json!({"error": code}))).into_response();
    let mut inner = shared.inner.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(client_id) = authenticated_client(&inner, &headers, &form) else {
        return (StatusCode::UNAUTHORIZED, Json(json!({"error": "invalid_client"}))).into_response();
    };
    let param = |name: &str| form.get(name).cloned().unwrap_or_default();
    let (subject, scope, resource, lifetime) = match param("grant_type").as_str() {
        "authorization_code" => {
            shared.counters.code_grants.fetch_add(1, Ordering::SeqCst);
            let Some(code) = inner.codes.remove(&param("code")) else {
                return refuse("invalid_grant");
            };
            let digest =
                aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, param("code_verifier").as_bytes());
            let pkce_holds = URL_SAFE_NO_PAD.encode(digest.as_ref()) == code.challenge;
            if code.client_id != client_id || code.redirect_uri != param("redirect_uri") || !pkce_holds {
                return refuse("invalid_grant");
            }
            if form.get("resource") != code.resource.as_ref() {
                return refuse("invalid_target");
            }
            let lifetime = inner.code_token_lifetime.take().unwrap_or(3600);
            (USER.to_owned(), code.scope, code.resource, lifetime)
        }
        "refresh_token" => {
            shared.counters.refresh_grants.fetch_add(1, Ordering::SeqCst);
            let Some(refresh) = inner.refresh_tokens.remove(&param("refresh_token")) else {
                return refuse("invalid_grant");
            };
            if refresh.client_id != client_id {
                return refuse("invalid_grant");
            }
            (refresh.subject, refresh.scope, refresh.resource, 3600)
        }
        "client_credentials" => {
            shared
                .counters
                .client_credentials_grants
                .fetch_add(1, Ordering::SeqCst);
            (
                client_id.clone(),
                param("scope"),
                form.get("resource").cloned(),
                3600,
            )
        }
        _ => return refuse("unsupported_grant_type"),
    };
    let audience = resource.clone().unwrap_or_default();
    let access = if inner.opaque_access_tokens {
        inner.serial += 1;
        let token = format!("opaque-{}", inner.serial);
        let exp = jsonwebtoken::get_current_timestamp() + lifetime;
        let answer = json!({"active": true, "sub": subject, "client_id": client_id, "scope": scope, "aud": audience, "exp": exp});
        inner.opaque.insert(token.clone(), answer);
        token
    } else {
        issue(
            &mut inner,
            &audience,
            &subject,
            &scope,
            &client_id,
            lifetime,
            json!({}),
        )
    };
    let mut answer =
        json!({"access_token": access, "token_type": "Bearer", "expires_in": lifetime, "scope": scope});
    if param("grant_type") != "client_credentials" {
        inner.serial += 1;
        let refresh_token = format!("refresh-{}", inner.serial);
        inner.refresh_tokens.insert(
            refresh_token.clone(),
            Refresh {
                client_id,
                subject,
                scope,
                resource,
            },
        );
        answer["refresh_token"] = refresh_token.into();
    }
    Json(answer).into_response()
}

/// The client a token request authenticates as, by its registered method.
fn authenticated_client(
    inner: &Inner,
    headers: &HeaderMap,
    form: &HashMap<String, String>,
) -> Option<String> {
    let (id, secret) = match basic_credentials(headers) {
        Some((id, secret)) => (id, Some(secret)),
        None => (form.get("client_id")?.clone(), form.get("client_secret").cloned()),
    };
    let client = inner.clients.get(&id)?;
    (client.secret == secret).then_some(id)
}

fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers
        .get("authorization")?
        .to_str()
        .ok()?
        .strip_prefix("Basic ")?;
    let decoded = String::from_utf8(STANDARD.decode(value).ok()?).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    let decode = |part: &str| {
        url::form_urlencoded::parse(format!("x={part}").as_bytes())
            .next()
            .map(|(_, value)| value.into_owned())
    };
    Some((decode(id)?, decode(secret)?))
}
