//! The checks of a mount's login that MCP 2026-07-28 adds, each attack performed for real
//! against the loopback authorization server (`support/auth_server.rs`) and our own
//! resource server: an authorization response from another issuer (RFC 9207's mix-up),
//! or without the `iss` the server promised, is refused before its code is redeemed;
//! metadata for another resource is refused before anyone is asked to authorize; a
//! server that moves to another authorization server gets a new login there, with
//! nothing of the old one; `offline_access` is asked where it is listed, and only there;
//! registration says what kind of application registers.

use agent_tools_core::ToolRegistry;
use agent_tools_mcp::oauth::OAuthClient;
use agent_tools_mcp::{McpServer, MountError, MountMcp as _, MountOptions};
use test_support::auth_server::{AuthServer, USER};

use crate::oauth_client::{Setup, free_port, headless, text};

fn login() -> OAuthClient {
    OAuthClient::builder().authorizer(headless()).build()
}

/// Mounts `setup`'s server with a fresh login; the mount's error if it fails.
async fn try_mount(setup: &Setup) -> Result<ToolRegistry, MountError> {
    let local = ToolRegistry::new();
    local
        .mount_mcp(
            McpServer::http(setup.server.url()).oauth(login()),
            MountOptions::new().prefix("r_"),
        )
        .await?;
    Ok(local)
}

#[tokio::test]
async fn a_response_from_another_issuer_is_refused_before_its_code_is_redeemed() {
    for promised in [false, true] {
        let setup = Setup::start().await;
        let issuer = setup.auth.issuer().to_owned();
        // Another server's name, and this one's written another way: compared as strings.
        for iss in ["https://evil.example.com".to_owned(), format!("{issuer}/")] {
            setup.auth.iss_in_redirects(promised, Some(&iss));
            let error = try_mount(&setup).await.expect_err("refused").to_string();
            assert!(error.contains("RFC 9207") && error.contains(&iss), "{error}");
        }
        assert_eq!(setup.auth.code_grants(), 0, "no code reached the token endpoint");

        setup.auth.iss_in_redirects(promised, Some(&issuer));
        let local = try_mount(&setup).await.expect("its own name is accepted");
        assert_eq!(text(&local, "r_peek").await, format!("called by {USER}"));
    }
}

#[tokio::test]
async fn a_response_without_the_promised_iss_is_refused() {
    let setup = Setup::start().await;
    setup.auth.iss_in_redirects(true, None);
    let error = try_mount(&setup).await.expect_err("refused").to_string();
    assert!(error.contains("carries no `iss`"), "{error}");
    assert_eq!(setup.auth.code_grants(), 0);

    // Not promised, not sent: as before RFC 9207.
    setup.auth.iss_in_redirects(false, None);
    try_mount(&setup).await.expect("accepted");
}

#[tokio::test]
async fn metadata_about_another_resource_is_refused_before_anyone_authorizes() {
    let port = free_port().await;
    // The server at `/mcp` says it is the resource `/other` of its origin: tokens got for
    // that would be for another server.
    let other = format!("http://127.0.0.1:{port}/other");
    let setup = Setup::behind(AuthServer::start().await, port, &other, |r| r).await;
    let error = try_mount(&setup).await.expect_err("refused").to_string();
    assert!(
        error.contains("refusing to get tokens for another resource"),
        "{error}"
    );
    assert_eq!(setup.auth.registrations(), 0);
    assert!(
        setup.auth.authorizations().is_empty(),
        "nobody was asked to authorize"
    );
}

#[tokio::test]
async fn offline_access_is_asked_where_listed_and_registration_says_native() {
    let setup = Setup::start().await;
    setup
        .auth
        .scopes_supported(&["mcp:read", "mcp:write", "offline_access"]);
    try_mount(&setup).await.expect("mounts");
    assert_eq!(
        setup.auth.authorizations()[0]["scope"],
        "mcp:read mcp:write offline_access"
    );
    let registration = &setup.auth.registration_requests()[0];
    assert_eq!(
        registration["application_type"], "native",
        "a loopback redirect: {registration}"
    );
    assert_eq!(registration["grant_types"][1], "refresh_token");

    // Not listed: not asked (an unknown scope may fail the whole request).
    let setup = Setup::start().await;
    setup.auth.scopes_supported(&["mcp:read", "mcp:write"]);
    try_mount(&setup).await.expect("mounts");
    assert_eq!(setup.auth.authorizations()[0]["scope"], "mcp:read mcp:write");
}

#[tokio::test]
async fn a_server_that_moves_to_another_authorization_server_gets_a_new_login_there() {
    let port = free_port().await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let before = Setup::behind(AuthServer::start().await, port, &url, |r| r).await;
    // One login, kept across the two mounts below as a token store would keep it.
    let login = login();
    let mount = |local: ToolRegistry| {
        let server = McpServer::http(&url).oauth(login.clone());
        async move {
            let mount = local
                .mount_mcp(server, MountOptions::new().prefix("r_"))
                .await
                .expect("mounts");
            (local, mount)
        }
    };
    let (local, first) = mount(ToolRegistry::new()).await;
    assert_eq!(text(&local, "r_peek").await, format!("called by {USER}"));
    first.unmount().await;
    let Setup {
        auth: old_auth,
        server,
        ..
    } = before;
    let old_client = old_auth.authorizations()[0]["client_id"].clone();
    server.shutdown();
    server.wait().await.expect("stops");

    // The same server, now behind another authorization server: the old token is
    // refused, and its metadata names the new one.
    let after = Setup::behind(AuthServer::start().await, port, &url, |r| r).await;
    let (local, _second) = mount(ToolRegistry::new()).await;
    assert_eq!(text(&local, "r_peek").await, format!("called by {USER}"));
    assert_eq!(
        after.auth.registrations(),
        1,
        "registered anew with the new server"
    );
    let new_client = &after.auth.authorizations()[0]["client_id"];
    assert_ne!(
        *new_client, old_client,
        "the old server's client is not presented"
    );
    assert_eq!(old_auth.refresh_grants(), 0, "no refresh at the server it left");
}
