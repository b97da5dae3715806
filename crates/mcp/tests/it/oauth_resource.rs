//! Serving as an OAuth 2.1 resource server, against a real authorization server on
//! loopback (`support/auth_server.rs`): every kind of bad token is refused with the status
//! and `WWW-Authenticate` challenge the MCP authorization spec requires, a good one is
//! served — through a real rmcp client, our mount — with its subject in the audit log,
//! scopes decide which tools a token sees and calls, keys rotate, opaque tokens are
//! introspected, and one user's token cannot continue another's session.

use std::time::{Duration, Instant};

use agent_tools_core::{
    ToolCall, ToolContext, ToolError, ToolRegistry,
    audit::MemoryAudit,
    tool::{DynamicTool, ToolMeta},
};
use agent_tools_mcp::oauth::{OAuthResource, ScopeMap};
use agent_tools_mcp::{HttpOptions, HttpServer, McpHandler, McpServer, MountMcp as _, MountOptions};
use serde_json::{Value, json};

use auth_server::{AuthServer, INTROSPECTION_CLIENT, SigningKey};
use test_support::auth_server;

/// `OAuthResourceBuilder::key_refetch_interval`'s default.
const DEFAULT_KEY_REFETCH: Duration = Duration::from_secs(10);

/// A read-only `peek` and a destructive `poke`, each saying who called it.
fn registry(audit: &MemoryAudit) -> ToolRegistry {
    let registry = ToolRegistry::builder().audit(audit.clone()).build();
    let tool = |name: &str, read_only: bool| {
        let meta = ToolMeta::new(name.to_owned(), "Say who calls.").read_only(read_only);
        DynamicTool::from_meta(
            meta,
            json!({"type": "object"}),
            |_args: Value, ctx: ToolContext| async move {
                let who = ctx.principal().map(|principal| principal.subject.clone());
                Ok::<_, ToolError>(format!("called by {}", who.unwrap_or_default()))
            },
        )
    };
    registry.register(tool("peek", true)).unwrap();
    registry.register(tool("poke", false)).unwrap();
    registry
}

/// The authorization server, and a registry served behind it with read and write scopes.
struct Setup {
    auth: AuthServer,
    server: HttpServer,
    audit: MemoryAudit,
    http: reqwest::Client,
}

impl Setup {
    async fn start(
        configure: impl FnOnce(
            agent_tools_mcp::oauth::OAuthResourceBuilder,
        ) -> agent_tools_mcp::oauth::OAuthResourceBuilder,
    ) -> Self {
        let auth = AuthServer::start().await;
        let audit = MemoryAudit::new();
        let listener_port = free_port().await;
        let audience = format!("http://127.0.0.1:{listener_port}/mcp");
        let scopes = ScopeMap::new()
            .read_only("mcp:read", ["*"])
            .unwrap()
            .grant("mcp:write", ["*"])
            .unwrap();
        let resource = configure(OAuthResource::builder(auth.issuer(), &audience).scopes(scopes))
            .build()
            .unwrap();
        let server = McpHandler::new(registry(&audit))
            .serve_http_with(("127.0.0.1", listener_port), HttpOptions::new().oauth(resource))
            .await
            .unwrap();
        Self {
            auth,
            server,
            audit,
            http: reqwest::Client::new(),
        }
    }

    fn audience(&self) -> String {
        self.server.url()
    }

    /// A valid token for `sub` with `scope`.
    fn token(&self, sub: &str, scope: &str) -> String {
        self.auth.token(&self.audience(), sub, scope, json!({}))
    }

    /// POSTs a JSON-RPC message to the MCP endpoint with `token`.
    async fn post(&self, token: Option<&str>, message: Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(self.server.url())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(message.to_string());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.unwrap()
    }

    /// The HTTP status of a `tools/list` with `token` on `session`.
    async fn list_in_session(&self, token: &str, session: &str) -> u16 {
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        self.http
            .post(self.server.url())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2025-11-25")
            .header("mcp-session-id", session)
            .bearer_auth(token)
            .body(list.to_string())
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    /// The status and challenge of an `initialize` with `token`.
    async fn refused(&self, token: Option<&str>) -> (u16, String) {
        let response = self.post(token, initialize()).await;
        let challenge = response
            .headers()
            .get("www-authenticate")
            .map(|value| value.to_str().unwrap().to_owned())
            .unwrap_or_default();
        (response.status().as_u16(), challenge)
    }

    /// Our mount, a real rmcp client, connected with `token`.
    async fn mount(&self, token: &str) -> ToolRegistry {
        let local = ToolRegistry::new();
        local
            .mount_mcp(
                McpServer::http(self.server.url()).bearer_token(token),
                MountOptions::new().prefix("remote_"),
            )
            .await
            .unwrap();
        local
    }
}

async fn free_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
}

#[tokio::test]
async fn a_request_without_a_token_is_told_where_to_get_one() {
    let setup = Setup::start(|builder| builder).await;
    let (status, challenge) = setup.refused(None).await;
    assert_eq!(status, 401);
    let metadata_url = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        setup.server.local_addr()
    );
    assert!(
        challenge.starts_with(&format!("Bearer resource_metadata=\"{metadata_url}\"")),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"mcp:read mcp:write\""), "{challenge}");

    for url in [
        metadata_url,
        format!(
            "http://{}/.well-known/oauth-protected-resource",
            setup.server.local_addr()
        ),
    ] {
        let document: Value = setup.http.get(&url).send().await.unwrap().json().await.unwrap();
        assert_eq!(document["resource"], setup.audience(), "{url}");
        assert_eq!(document["authorization_servers"], json!([setup.auth.issuer()]));
        assert_eq!(document["scopes_supported"], json!(["mcp:read", "mcp:write"]));
    }
}

#[tokio::test]
async fn every_bad_token_is_refused_with_invalid_token() {
    let setup = Setup::start(|builder| builder).await;
    let audience = setup.audience();
    let now = jsonwebtoken::get_current_timestamp();
    let stranger = SigningKey::generate("key-1");
    let stranger_token = stranger.sign(&json!({
        "iss": setup.auth.issuer(), "aud": audience, "sub": "mallory", "exp": now + 3600,
    }));
    let valid = setup.token("ada", "mcp:read");
    let (head, rest) = valid.split_once('.').unwrap();
    let (_, signature) = rest.rsplit_once('.').unwrap();
    let forged_claims = base64url(&json!({
        "iss": setup.auth.issuer(), "aud": audience, "sub": "admin", "exp": now + 3600, "scope": "mcp:write",
    }));
    let unknown_kid = {
        let other = SigningKey::generate("key-from-nowhere");
        other.sign(&json!({"iss": setup.auth.issuer(), "aud": audience, "sub": "ada", "exp": now + 3600}))
    };
    let cases = [
        (
            "expired",
            setup
                .auth
                .token(&audience, "ada", "mcp:read", json!({"exp": now - 120})),
            "expired",
        ),
        (
            "not yet valid",
            setup
                .auth
                .token(&audience, "ada", "mcp:read", json!({"nbf": now + 600})),
            "not valid yet",
        ),
        (
            "wrong audience",
            setup
                .auth
                .token("http://other.example/mcp", "ada", "mcp:read", json!({})),
            "audience",
        ),
        (
            "wrong issuer",
            setup
                .auth
                .token(&audience, "ada", "mcp:read", json!({"iss": "http://127.0.0.1:1"})),
            "another authorization server",
        ),
        (
            "no subject",
            setup
                .auth
                .token(&audience, "ada", "mcp:read", json!({"sub": null})),
            "malformed",
        ),
        ("unknown kid", unknown_kid, "a key the issuer does not publish"),
        ("bad signature", stranger_token, "signature does not verify"),
        (
            "tampered claims",
            format!("{head}.{forged_claims}.{signature}"),
            "signature does not verify",
        ),
        ("not a JWT", "just-a-string".to_owned(), "not a JWT"),
    ];
    for (case, token, words) in cases {
        let (status, challenge) = setup.refused(Some(&token)).await;
        assert_eq!(status, 401, "{case}: {challenge}");
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{case}: {challenge}"
        );
        assert!(challenge.contains("resource_metadata=\""), "{case}: {challenge}");
        assert!(challenge.contains(words), "{case}: {challenge}");
    }
    assert!(setup.audit.events().is_empty(), "nothing reached the registry");
}

#[tokio::test]
async fn a_token_cannot_pick_a_symmetric_algorithm_keyed_with_the_public_key() {
    let setup = Setup::start(|builder| builder).await;
    let public = serde_json::to_vec(&setup.auth.signing_key().jwk).unwrap();
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    header.kid = Some("key-1".into());
    let now = jsonwebtoken::get_current_timestamp();
    let claims =
        json!({"iss": setup.auth.issuer(), "aud": setup.audience(), "sub": "mallory", "exp": now + 3600});
    let token =
        jsonwebtoken::encode(&header, &claims, &jsonwebtoken::EncodingKey::from_secret(&public)).unwrap();
    let (status, challenge) = setup.refused(Some(&token)).await;
    assert_eq!(status, 401, "{challenge}");
    // Refused for its algorithm, before any key is tried (jsonwebtoken would refuse the
    // key too, but that is not the check under test).
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    assert!(
        challenge.contains("not signed with an accepted algorithm"),
        "{challenge}"
    );
}

#[tokio::test]
async fn a_valid_token_is_served_and_its_subject_audited() {
    let setup = Setup::start(|builder| builder).await;
    let local = setup.mount(&setup.token("ada", "mcp:read mcp:write")).await;
    assert_eq!(local.names(), ["remote_peek", "remote_poke"]);
    let result = local.call(ToolCall::new("c1", "remote_poke", "{}")).await;
    assert_eq!(result.text(), "called by ada", "{result:?}");
    let event = setup.audit.events().pop().unwrap();
    assert_eq!(
        (
            event.subject.as_deref(),
            event.client_id.as_deref(),
            event.tool.as_str()
        ),
        (Some("ada"), Some("test-client"), "poke")
    );
}

#[tokio::test]
async fn scopes_decide_which_tools_a_token_sees_and_calls() {
    let setup = Setup::start(|builder| builder).await;
    let reader = setup.token("rita", "mcp:read");
    let local = setup.mount(&reader).await;
    assert_eq!(
        local.names(),
        ["remote_peek"],
        "a read scope lists read-only tools"
    );
    assert_eq!(
        local.call(ToolCall::new("c1", "remote_peek", "{}")).await.text(),
        "called by rita"
    );
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "poke", "arguments": {}}});
    let response = setup.post(Some(&reader), call).await;
    assert_eq!(response.status().as_u16(), 403);
    let challenge = response.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\", scope=\"mcp:write\""),
        "{challenge}"
    );
    let events = setup.audit.events();
    assert!(
        events.iter().all(|event| event.tool == "peek"),
        "poke never ran: {events:?}"
    );
}

#[tokio::test]
async fn a_rotated_key_is_fetched_and_a_flood_of_unknown_keys_costs_one_fetch() {
    let setup = Setup::start(|builder| builder.key_refetch_interval(Duration::ZERO)).await;
    let local = setup.mount(&setup.token("ada", "mcp:read")).await;
    assert_eq!(local.names(), ["remote_peek"]);
    let fetched = setup.auth.jwks_fetches();
    setup.auth.rotate("key-2");
    let (status, challenge) = setup.refused(Some(&setup.token("ada", "mcp:read"))).await;
    assert_eq!(
        status, 200,
        "a token signed with the new key is admitted: {challenge}"
    );
    assert_eq!(
        setup.auth.jwks_fetches(),
        fetched + 1,
        "the new key was fetched once"
    );

    // With the default interval, made-up key ids do not each cost a fetch: within the
    // interval after the set was fetched they cost none, and after it one.
    let guarded = Setup::start(|builder| builder).await;
    let started = Instant::now();
    assert_eq!(
        guarded.refused(Some(&guarded.token("ada", "mcp:read"))).await.0,
        200
    );
    let fetched = guarded.auth.jwks_fetches();
    let now = jsonwebtoken::get_current_timestamp();
    for attempt in 0..20 {
        let key = SigningKey::generate(&format!("made-up-{attempt}"));
        let token = key.sign(
            &json!({"iss": guarded.auth.issuer(), "aud": guarded.audience(), "sub": "x", "exp": now + 60}),
        );
        assert_eq!(guarded.refused(Some(&token)).await.0, 401);
    }
    let refetches = guarded.auth.jwks_fetches() - fetched;
    // The set was fetched after `started`, so until the interval has passed since then, no
    // refetch is allowed; only a machine slow enough to outlast it may have made one.
    let allowed = usize::from(started.elapsed() >= DEFAULT_KEY_REFETCH);
    assert!(
        refetches <= allowed,
        "{refetches} fetches for 20 unknown keys ({allowed} allowed)"
    );
}

#[tokio::test]
async fn opaque_tokens_are_introspected() {
    let (id, secret) = INTROSPECTION_CLIENT;
    let setup = Setup::start(|builder| builder.introspection(id, secret)).await;
    let now = jsonwebtoken::get_current_timestamp();
    let audience = setup.audience();
    setup.auth.opaque_token(
        "opaque-good",
        json!({"active": true, "sub": "olga", "client_id": "cli", "scope": "mcp:read", "aud": audience, "exp": now + 600}),
    );
    setup.auth.opaque_token(
        "opaque-other-audience",
        json!({"active": true, "sub": "olga", "aud": "http://other.example/mcp", "exp": now + 600}),
    );
    let local = setup.mount("opaque-good").await;
    assert_eq!(
        local.call(ToolCall::new("c1", "remote_peek", "{}")).await.text(),
        "called by olga"
    );
    let asked = setup.auth.introspections();
    let _ = local.call(ToolCall::new("c2", "remote_peek", "{}")).await;
    assert_eq!(
        setup.auth.introspections(),
        asked,
        "the answer is kept, not asked again"
    );
    for token in ["opaque-unknown", "opaque-other-audience"] {
        let (status, challenge) = setup.refused(Some(token)).await;
        assert_eq!(status, 401, "{token}: {challenge}");
        assert!(challenge.contains("invalid_token"), "{token}: {challenge}");
    }
}

#[tokio::test]
async fn one_users_token_cannot_continue_anothers_session() {
    let setup = Setup::start(|builder| builder).await;
    let ada = setup.token("ada", "mcp:read");
    let opened = setup.post(Some(&ada), initialize()).await;
    assert_eq!(opened.status().as_u16(), 200);
    let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let mallory = setup.token("mallory", "mcp:read mcp:write");
    assert_eq!(setup.list_in_session(&mallory, &session).await, 404);
}

/// The guard keeps the owners of 10,000 sessions. Pushed out of that table, a session
/// used to stay open with no owner on record, and then any valid token could continue
/// it. Now it is closed as its owner is forgotten, and a session without a known owner is
/// nobody's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_never_served_without_its_owner() {
    let setup = Setup::start(|builder| builder).await;
    let ada = setup.token("ada", "mcp:read");
    let bob = setup.token("bob", "mcp:read mcp:write");
    let open = |token: String| {
        let setup = &setup;
        async move {
            let opened = setup.post(Some(&token), initialize()).await;
            assert_eq!(opened.status().as_u16(), 200);
            opened.headers()["mcp-session-id"].to_str().unwrap().to_owned()
        }
    };
    let adas = open(ada.clone()).await;
    assert_eq!(
        setup.list_in_session(&ada, &adas).await,
        200,
        "its owner continues it"
    );
    assert_eq!(
        setup.list_in_session(&bob, &adas).await,
        404,
        "another subject does not"
    );
    assert_eq!(
        setup.list_in_session(&bob, "made-up-session").await,
        404,
        "a session nobody opened here is nobody's"
    );

    // 20,000 sessions of bob's, 32 at a time: ada's is pushed out after the first 10,000.
    let mut last = String::new();
    for _ in 0..20_000 / 32 {
        let batch = futures_util::future::join_all((0..32).map(|_| open(bob.clone()))).await;
        last = batch.into_iter().next_back().unwrap();
    }
    assert_eq!(
        setup.list_in_session(&bob, &adas).await,
        404,
        "an evicted session is nobody's"
    );
    assert_eq!(
        setup.list_in_session(&ada, &adas).await,
        404,
        "it was closed with its owner"
    );
    assert_eq!(
        setup.list_in_session(&bob, &last).await,
        200,
        "recent sessions go on"
    );
    assert_eq!(setup.list_in_session(&ada, &last).await, 404);
}

fn base64url(value: &Value) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
}
