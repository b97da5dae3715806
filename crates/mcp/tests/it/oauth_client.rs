//! Mounting a server that requires OAuth, against a real authorization server on loopback
//! (`support/auth_server.rs`) and our own OAuth resource server: the mount discovers the
//! authorization server from the `401`, registers, and runs the code flow with PKCE — the
//! test follows the redirect — then refreshes a token about to expire and one the server
//! refuses mid-session (calls made at once sharing one refresh), steps up when a tool
//! needs more scope, keeps its login in a 0600 file across a restart, and, as a service,
//! uses client credentials. Tokens never reach an audit log.

use std::os::unix::fs::PermissionsExt as _;
use std::time::Duration;

use agent_tools_core::{
    ToolCall, ToolContext, ToolError, ToolRegistry,
    audit::MemoryAudit,
    tool::{DynamicTool, ToolMeta},
};
use agent_tools_mcp::oauth::{
    FileTokenStore, FollowRedirect, OAuthClient, OAuthResource, OAuthResourceBuilder, ScopeMap,
};
use agent_tools_mcp::{HttpOptions, HttpServer, McpHandler, McpServer, MountMcp as _, MountOptions};
use serde_json::{Value, json};

use auth_server::{AuthServer, INTROSPECTION_CLIENT, SERVICE_CLIENT, USER};
use test_support::auth_server;

/// The authorization server, and a server behind it whose `peek` needs `mcp:read` and
/// `poke` `mcp:write`.
pub(crate) struct Setup {
    pub(crate) auth: AuthServer,
    pub(crate) server: HttpServer,
    audit: MemoryAudit,
}

/// A free loopback port.
pub(crate) async fn free_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

impl Setup {
    pub(crate) async fn start() -> Self {
        Self::start_with(|resource| resource).await
    }

    /// With the resource server configured further by `configure`.
    async fn start_with(configure: impl FnOnce(OAuthResourceBuilder) -> OAuthResourceBuilder) -> Self {
        let port = free_port().await;
        Self::behind(
            AuthServer::start().await,
            port,
            &format!("http://127.0.0.1:{port}/mcp"),
            configure,
        )
        .await
    }

    /// The server on `port` behind `auth`, as the resource `audience` (which its metadata
    /// names), configured further by `configure`.
    pub(crate) async fn behind(
        auth: AuthServer,
        port: u16,
        audience: &str,
        configure: impl FnOnce(OAuthResourceBuilder) -> OAuthResourceBuilder,
    ) -> Self {
        let scopes = ScopeMap::new()
            .read_only("mcp:read", ["*"])
            .unwrap()
            .grant("mcp:write", ["*"])
            .unwrap();
        let resource = OAuthResource::builder(auth.issuer(), audience)
            .scopes(scopes)
            .leeway(Duration::ZERO);
        let resource = configure(resource).build().unwrap();
        let audit = MemoryAudit::new();
        let registry = ToolRegistry::builder().audit(audit.clone()).build();
        for (name, read_only) in [("peek", true), ("poke", false)] {
            let meta = ToolMeta::new(name, "Say who calls.").read_only(read_only);
            registry
                .register(DynamicTool::from_meta(
                    meta,
                    json!({"type": "object"}),
                    |_: Value, ctx: ToolContext| async move {
                        let who = ctx
                            .principal()
                            .map(|principal| principal.subject.clone())
                            .unwrap_or_default();
                        Ok::<_, ToolError>(format!("called by {who}"))
                    },
                ))
                .unwrap();
        }
        let server = McpHandler::new(registry)
            .serve_http_with(("127.0.0.1", port), HttpOptions::new().oauth(resource))
            .await
            .unwrap();
        Self { auth, server, audit }
    }

    /// Mounts the server with `login`; the local registry and its audit log.
    pub(crate) async fn mount(&self, login: OAuthClient) -> (ToolRegistry, MemoryAudit) {
        let audit = MemoryAudit::new();
        let local = ToolRegistry::builder().audit(audit.clone()).build();
        local
            .mount_mcp(
                McpServer::http(self.server.url()).oauth(login),
                MountOptions::new().prefix("r_"),
            )
            .await
            .unwrap();
        (local, audit)
    }
}

/// Logs in as the test user, following the authorization server's redirect.
pub(crate) fn headless() -> FollowRedirect {
    FollowRedirect::new("http://127.0.0.1:9/callback".parse().unwrap())
}

pub(crate) async fn text(local: &ToolRegistry, tool: &str) -> String {
    local.call(ToolCall::new("c", tool, "{}")).await.text()
}

#[tokio::test]
async fn a_mount_logs_in_with_the_code_flow_and_pkce() {
    let setup = Setup::start().await;
    let (local, audit) = setup
        .mount(OAuthClient::builder().authorizer(headless()).build())
        .await;
    assert_eq!(
        local.names(),
        ["r_peek", "r_poke"],
        "the challenge's scopes were asked for"
    );
    assert_eq!(text(&local, "r_poke").await, format!("called by {USER}"));

    assert_eq!((setup.auth.registrations(), setup.auth.code_grants()), (1, 1));
    let authorization = &setup.auth.authorizations()[0];
    assert_eq!(authorization["code_challenge_method"], "S256");
    assert_eq!(authorization["resource"], setup.server.url(), "RFC 8707 resource");
    assert_eq!(authorization["scope"], "mcp:read mcp:write");
    let served = setup.audit.events().pop().unwrap();
    assert_eq!(served.subject.as_deref(), Some(USER));
    assert!(
        !format!("{:?}", audit.events()).contains("eyJ"),
        "no token in the mount's audit log"
    );
}

#[tokio::test]
async fn a_token_about_to_expire_or_refused_mid_session_is_refreshed_once_for_all_calls() {
    // Opaque tokens, introspected on every request: a revocation takes effect at once.
    let (id, secret) = INTROSPECTION_CLIENT;
    let setup = Setup::start_with(|resource| {
        resource
            .introspection(id, secret)
            .introspection_cache(Duration::ZERO)
    })
    .await;
    setup.auth.issue_opaque_tokens();
    setup.auth.next_code_tokens_live(5);
    let (local, _) = setup
        .mount(OAuthClient::builder().authorizer(headless()).build())
        .await;
    // The token expires within the refresh margin: the next call refreshes it first.
    assert_eq!(text(&local, "r_peek").await, format!("called by {USER}"));
    assert_eq!(setup.auth.refresh_grants(), 1);

    // The server refuses the token mid-session: ten calls at once get one refresh.
    setup.auth.revoke_access_tokens();
    let calls = (0..10)
        .map(|index| ToolCall::new(format!("c{index}"), "r_peek", "{}"))
        .collect();
    let results = local.call_all(calls).await;
    assert!(results.iter().all(|result| !result.is_error()), "{results:?}");
    assert_eq!(setup.auth.refresh_grants(), 2, "one refresh shared by ten calls");
    assert_eq!(setup.auth.code_grants(), 1, "no new login");
}

#[tokio::test]
async fn a_tool_that_needs_more_scope_steps_the_login_up() {
    use agent_tools_mcp::oauth::OAuthHttpClient;
    use rmcp::ServiceExt as _;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let setup = Setup::start().await;
    let login = OAuthClient::builder()
        .authorizer(headless())
        .scopes(["mcp:read"])
        .build();
    let (local, _) = setup.mount(login.clone()).await;
    assert_eq!(
        local.names(),
        ["r_peek"],
        "a read token lists only the read-only tool"
    );

    // A client that knows `poke` calls it with the same login: 403, then a login with
    // both scopes, then the call again.
    let url = setup.server.url();
    let http = OAuthHttpClient::new(login, url.parse().unwrap());
    let transport =
        StreamableHttpClientTransport::with_client(http, StreamableHttpClientTransportConfig::with_uri(url));
    let client = ().serve(transport).await.unwrap();
    let result = client
        .peer()
        .call_tool(CallToolRequestParams::new("poke"))
        .await
        .unwrap();
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        format!("called by {USER}")
    );
    let scopes: Vec<String> = setup
        .auth
        .authorizations()
        .iter()
        .map(|query| query["scope"].clone())
        .collect();
    assert_eq!(
        scopes,
        ["mcp:read", "mcp:read mcp:write"],
        "stepped up once, keeping what it had"
    );
    assert_eq!(setup.auth.registrations(), 1, "the client registered once");
}

#[tokio::test]
async fn a_login_kept_in_a_file_survives_a_restart() {
    let setup = Setup::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("logins/server.json");
    let login = || {
        OAuthClient::builder()
            .authorizer(headless())
            .token_store(FileTokenStore::new(&path))
            .build()
    };
    let (first, _) = setup.mount(login()).await;
    assert_eq!(text(&first, "r_peek").await, format!("called by {USER}"));
    drop(first);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    let (second, _) = setup.mount(login()).await;
    assert_eq!(text(&second, "r_peek").await, format!("called by {USER}"));
    assert_eq!(
        (setup.auth.registrations(), setup.auth.code_grants()),
        (1, 1),
        "the second run used the kept login"
    );
}

#[tokio::test]
async fn a_service_uses_client_credentials() {
    let setup = Setup::start().await;
    let (id, secret) = SERVICE_CLIENT;
    let login = OAuthClient::builder()
        .client_id(id)
        .client_secret(secret)
        .client_credentials()
        .build();
    let (local, _) = setup.mount(login).await;
    assert_eq!(text(&local, "r_poke").await, format!("called by {id}"));
    assert_eq!(setup.auth.client_credentials_grants(), 1);
    assert_eq!(setup.auth.authorizations().len(), 0, "no user was asked");
}
