//! Finding an authorization server's endpoints from its issuer: RFC 8414 metadata, with
//! OpenID Connect Discovery as the fallback the MCP authorization spec asks clients to try.
//!
//! For an issuer with a path (`https://auth.example.com/tenant1`) the documents are looked
//! for, in order, at `/.well-known/oauth-authorization-server/tenant1`,
//! `/.well-known/openid-configuration/tenant1` and `/tenant1/.well-known/openid-configuration`;
//! for an issuer without one, at `/.well-known/oauth-authorization-server` and
//! `/.well-known/openid-configuration`. A document counts only if its `issuer` is the
//! issuer asked for (RFC 8414 §3.3: compared as strings, here ignoring a trailing `/`), so
//! a server cannot speak for another.

use serde::Deserialize;
use url::Url;

use super::fetch::{self, FetchError};

/// What an authorization server says about itself (the fields this crate uses).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    #[serde(default)]
    pub(crate) authorization_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) token_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) registration_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) jwks_uri: Option<String>,
    #[serde(default)]
    pub(crate) introspection_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) code_challenge_methods_supported: Vec<String>,
    /// Absent means `client_secret_basic` only (RFC 8414 §2).
    #[serde(default)]
    pub(crate) token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) client_id_metadata_document_supported: bool,
    /// Whether its authorization responses carry `iss` (RFC 9207): then one without it
    /// is refused.
    #[serde(default)]
    pub(crate) authorization_response_iss_parameter_supported: bool,
    /// The scopes it knows (RFC 8414), consulted for `offline_access`.
    #[serde(default)]
    pub(crate) scopes_supported: Vec<String>,
}

/// Where `issuer`'s metadata may be, in the order they are tried.
pub(crate) fn metadata_urls(issuer: &Url) -> Vec<Url> {
    let mut urls = vec![
        fetch::well_known(issuer, "oauth-authorization-server"),
        fetch::well_known(issuer, "openid-configuration"),
    ];
    let path = issuer.path().trim_end_matches('/');
    if !path.is_empty() {
        // OpenID Connect Discovery's own place: appended to the issuer's path.
        urls.push(fetch::at_path(
            issuer,
            &format!("{path}/.well-known/openid-configuration"),
        ));
    }
    urls
}

/// The metadata of `issuer`: the first of [`metadata_urls`] that answers with a document
/// for this very issuer.
pub(crate) async fn discover(http: &reqwest::Client, issuer: &Url) -> Result<ServerMetadata, FetchError> {
    let mut tried = Vec::new();
    for url in metadata_urls(issuer) {
        match fetch::json::<ServerMetadata>(http.get(url.clone()), &url).await {
            Ok(metadata) if same_issuer(&metadata.issuer, issuer.as_str()) => return Ok(metadata),
            Ok(metadata) => tried.push(format!(
                "{url} names the issuer `{}`, not `{issuer}`",
                metadata.issuer
            )),
            Err(error) => tried.push(error.0),
        }
    }
    Err(FetchError(format!(
        "no authorization server metadata for {issuer}: {}",
        tried.join("; ")
    )))
}

/// Whether two issuer identifiers are the same: as strings, but for a trailing `/` (which
/// a URL parser adds to a bare origin).
pub(crate) fn same_issuer(one: &str, other: &str) -> bool {
    one.trim_end_matches('/') == other.trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(issuer: &str) -> Vec<String> {
        metadata_urls(&Url::parse(issuer).unwrap())
            .into_iter()
            .map(String::from)
            .collect()
    }

    #[test]
    fn issuers_with_a_path_get_it_inserted_then_appended() {
        assert_eq!(
            urls("https://auth.example.com/tenant1"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            urls("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn issuers_compare_as_strings_but_for_a_trailing_slash() {
        assert!(same_issuer(
            "https://auth.example.com/",
            "https://auth.example.com"
        ));
        assert!(same_issuer(
            "https://auth.example.com",
            "https://auth.example.com"
        ));
        assert!(!same_issuer(
            "https://evil.example.com",
            "https://auth.example.com"
        ));
        assert!(!same_issuer(
            "https://auth.example.com/a",
            "https://auth.example.com/b"
        ));
    }
}
