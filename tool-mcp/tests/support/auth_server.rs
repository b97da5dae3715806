//! A real OAuth authorization server on loopback, for the tests: it publishes RFC 8414
//! metadata, signs ES256 JWT access tokens with a key it serves as a JWKS (and rotates on
//! request), answers token introspection (RFC 7662) for the opaque tokens it issued, and
//! counts what it was asked. The tests mint tokens with [`AuthServer::token`].

#![allow(dead_code)] // each test binary uses part of it

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use axum::extract::State;
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// A signing key and its public half as a JWK.
#[derive(Clone)]
pub(crate) struct SigningKey {
    pub(crate) kid: String,
    pub(crate) encoding: EncodingKey,
    pub(crate) jwk: Jwk,
}

impl SigningKey {
    /// A fresh P-256 key named `kid`.
    pub(crate) fn generate(kid: &str) -> Self {
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new()).unwrap();
        let encoding = EncodingKey::from_ec_der(pkcs8.as_ref());
        let mut jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256).unwrap();
        jwk.common.key_id = Some(kid.to_owned());
        Self {
            kid: kid.to_owned(),
            encoding,
            jwk,
        }
    }

    /// `claims` signed with this key, its id in the header.
    pub(crate) fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.encoding).unwrap()
    }
}

/// What the server holds and has seen.
#[derive(Default)]
struct Inner {
    issuer: String,
    /// Published keys; the last signs.
    keys: Vec<SigningKey>,
    /// Opaque tokens it issued, and what introspection says of them.
    opaque: HashMap<String, Value>,
}

/// A running authorization server; stops when dropped.
pub(crate) struct AuthServer {
    inner: Arc<Mutex<Inner>>,
    counters: Arc<Counters>,
    issuer: String,
    _task: tokio::task::JoinHandle<()>,
}

#[derive(Default)]
struct Counters {
    jwks_fetches: AtomicUsize,
    introspections: AtomicUsize,
}

#[derive(Clone)]
struct Shared {
    inner: Arc<Mutex<Inner>>,
    counters: Arc<Counters>,
}

impl AuthServer {
    /// Starts one on a free loopback port, with one key (`key-1`).
    pub(crate) async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let inner = Arc::new(Mutex::new(Inner {
            issuer: issuer.clone(),
            keys: vec![SigningKey::generate("key-1")],
            ..Inner::default()
        }));
        let counters = Arc::new(Counters::default());
        let shared = Shared {
            inner: inner.clone(),
            counters: counters.clone(),
        };
        let router = Router::new()
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/jwks", get(jwks))
            .route("/introspect", post(introspect))
            .with_state(shared);
        let task = tokio::spawn(async move {
            axum::serve(listener, router).await.unwrap();
        });
        Self {
            inner,
            counters,
            issuer,
            _task: task,
        }
    }

    pub(crate) fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The key that signs now.
    pub(crate) fn signing_key(&self) -> SigningKey {
        self.inner.lock().unwrap().keys.last().unwrap().clone()
    }

    /// Publishes a new key `kid`, which signs from now on; the old ones stay published.
    pub(crate) fn rotate(&self, kid: &str) {
        self.inner.lock().unwrap().keys.push(SigningKey::generate(kid));
    }

    /// A JWT access token from this issuer for `audience`, for subject `sub` with
    /// `scope`, valid for an hour; `changes` overrides or adds claims.
    pub(crate) fn token(&self, audience: &str, sub: &str, scope: &str, changes: Value) -> String {
        let now = jsonwebtoken::get_current_timestamp();
        let mut claims = json!({
            "iss": self.issuer, "aud": audience, "sub": sub, "scope": scope,
            "client_id": "test-client", "iat": now, "exp": now + 3600,
        });
        if let (Some(claims), Some(changes)) = (claims.as_object_mut(), changes.as_object()) {
            for (key, value) in changes {
                claims.insert(key.clone(), value.clone());
            }
        }
        self.signing_key().sign(&claims)
    }

    /// An opaque token that introspection describes with `answer`.
    pub(crate) fn opaque_token(&self, token: &str, answer: Value) {
        self.inner.lock().unwrap().opaque.insert(token.to_owned(), answer);
    }

    pub(crate) fn jwks_fetches(&self) -> usize {
        self.counters.jwks_fetches.load(Ordering::SeqCst)
    }

    pub(crate) fn introspections(&self) -> usize {
        self.counters.introspections.load(Ordering::SeqCst)
    }
}

async fn metadata(State(shared): State<Shared>) -> Json<Value> {
    let issuer = shared.inner.lock().unwrap().issuer.clone();
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "introspection_endpoint": format!("{issuer}/introspect"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
    }))
}

async fn jwks(State(shared): State<Shared>) -> Json<JwkSet> {
    shared.counters.jwks_fetches.fetch_add(1, Ordering::SeqCst);
    let keys = shared
        .inner
        .lock()
        .unwrap()
        .keys
        .iter()
        .map(|key| key.jwk.clone())
        .collect();
    Json(JwkSet { keys })
}

/// The resource server's credentials for introspection.
pub(crate) const INTROSPECTION_CLIENT: (&str, &str) = ("resource-server", "resource-secret");

async fn introspect(
    State(shared): State<Shared>,
    headers: axum::http::HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    shared.counters.introspections.fetch_add(1, Ordering::SeqCst);
    let (id, secret) = INTROSPECTION_CLIENT;
    let expected = format!("Basic {}", base64_encode(&format!("{id}:{secret}")));
    let given = headers.get("authorization").and_then(|value| value.to_str().ok());
    if given != Some(expected.as_str()) {
        return (axum::http::StatusCode::UNAUTHORIZED, "unknown client").into_response();
    }
    let token = form.get("token").cloned().unwrap_or_default();
    let answer = shared.inner.lock().unwrap().opaque.get(&token).cloned();
    Json(answer.unwrap_or_else(|| json!({"active": false}))).into_response()
}

fn base64_encode(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}
