//! Finding the authorization server of an MCP server: its protected resource metadata
//! (RFC 9728), at the URL its `401` challenge names, or else at the well-known path for
//! its URL, then at the well-known path of its origin.
//!
//! The document's `resource` must be the server's URL or a prefix of it on the same
//! origin, so that a server cannot send a client to get tokens for another resource.

use serde::Deserialize;
use url::Url;

use super::challenge::Challenge;
use crate::oauth::fetch;

/// What an MCP server says about its protection (the fields used here).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ResourceMetadata {
    pub(crate) resource: String,
    #[serde(default)]
    pub(crate) authorization_servers: Vec<String>,
    #[serde(default)]
    pub(crate) scopes_supported: Vec<String>,
}

/// Where to look for `server`'s metadata, in order.
pub(crate) fn candidates(server: &Url, challenge: &Challenge) -> Vec<Url> {
    if let Some(named) = challenge
        .resource_metadata()
        .and_then(|named| server.join(named).ok())
    {
        return vec![named];
    }
    let for_path = fetch::well_known(server, "oauth-protected-resource");
    let for_origin = fetch::at_path(server, "/.well-known/oauth-protected-resource");
    if for_path == for_origin {
        return vec![for_origin];
    }
    vec![for_path, for_origin]
}

/// `server`'s protected resource metadata, checked to be about it.
pub(crate) async fn discover(
    http: &reqwest::Client,
    server: &Url,
    challenge: &Challenge,
) -> Result<ResourceMetadata, String> {
    let mut tried = Vec::new();
    for url in candidates(server, challenge) {
        match fetch::json::<ResourceMetadata>(http.get(url.clone()), &url).await {
            Ok(metadata) => {
                check_resource(server, &metadata.resource)?;
                return Ok(metadata);
            }
            Err(error) => tried.push(error.0),
        }
    }
    Err(format!(
        "no protected resource metadata for {server}: {}",
        tried.join("; ")
    ))
}

/// Refuses metadata whose `resource` is not `server` or a path prefix of it on its origin.
fn check_resource(server: &Url, resource: &str) -> Result<(), String> {
    let refused = || {
        Err(format!(
            "the protected resource metadata is for `{resource}`, not for {server}: refusing to get tokens for another resource"
        ))
    };
    let Ok(named) = Url::parse(resource) else {
        return refused();
    };
    let prefix = named.path().trim_end_matches('/');
    let path = server.path();
    let within = path == prefix || path.starts_with(&format!("{prefix}/")) || prefix.is_empty();
    if named.origin() != server.origin() || !within {
        return refused();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Url {
        Url::parse("https://mcp.example.com/mcp").unwrap()
    }

    #[test]
    fn the_challenge_names_the_document_else_the_well_known_paths() {
        let named = Challenge::parse(r#"Bearer resource_metadata="https://mcp.example.com/custom.json""#);
        assert_eq!(
            candidates(&server(), &named)
                .iter()
                .map(Url::as_str)
                .collect::<Vec<_>>(),
            ["https://mcp.example.com/custom.json"]
        );
        assert_eq!(
            candidates(&server(), &Challenge::default())
                .iter()
                .map(Url::as_str)
                .collect::<Vec<_>>(),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        );
    }

    #[test]
    fn only_metadata_about_this_server_is_taken() {
        assert!(check_resource(&server(), "https://mcp.example.com/mcp").is_ok());
        assert!(check_resource(&server(), "https://mcp.example.com").is_ok());
        assert!(check_resource(&server(), "https://evil.example.com/mcp").is_err());
        assert!(check_resource(&server(), "https://mcp.example.com/other").is_err());
        assert!(check_resource(&server(), "https://mcp.example.com/mc").is_err());
        assert!(check_resource(&server(), "not a url").is_err());
    }
}
