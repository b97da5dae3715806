//! Reading JSON documents from an authorization server: its metadata, its keys, its
//! introspection answers — bounded in size and time, so a slow or hostile server cannot
//! hold a request or fill memory; and the URLs they are read from: which may be used
//! ([`secure_url`]), and where well-known documents are ([`well_known`]); and requests
//! authenticated as a client ([`basic_auth`]), at the token endpoint or introspection.

use std::time::Duration;

use serde::de::DeserializeOwned;
use url::Url;

/// The largest document read (metadata, key sets and introspection answers are a few KiB).
const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;
/// How long one request to an authorization server may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The HTTP client for authorization servers: a timeout on every request, at most a few
/// redirects.
pub(crate) fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .redirect(reqwest::redirect::Policy::limited(3))
        .build()
        // Building fails only when TLS cannot start, which no request could survive.
        .unwrap_or_else(|_| reqwest::Client::new())
}

/// Why a document could not be had: the words name the URL and the cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct FetchError(pub(crate) String);

/// The JSON body of `request`'s answer, which must be a success.
pub(crate) async fn json<T: DeserializeOwned>(
    request: reqwest::RequestBuilder,
    url: &Url,
) -> Result<T, FetchError> {
    let response = request
        .send()
        .await
        .map_err(|error| FetchError(format!("{url}: {error}")))?;
    let status = response.status();
    if !status.is_success() {
        return Err(FetchError(format!("{url} answered {status}")));
    }
    let body = bounded_body(response, url).await?;
    serde_json::from_slice(&body)
        .map_err(|error| FetchError(format!("{url} sent a document that does not parse: {error}")))
}

/// The body, refused once it passes [`MAX_DOCUMENT_BYTES`].
pub(crate) async fn bounded_body(mut response: reqwest::Response, url: &Url) -> Result<Vec<u8>, FetchError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| FetchError(format!("{url}: {error}")))?
    {
        if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
            return Err(FetchError(format!(
                "{url} sent more than {MAX_DOCUMENT_BYTES} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `url` parsed, if it may be used for OAuth ([`is_secure`]); else what is wrong with it,
/// worded to follow the URL (`` the issuer `{url}` {problem} ``).
pub(crate) fn secure_url(url: &str) -> Result<Url, String> {
    match Url::parse(url) {
        Ok(parsed) if is_secure(&parsed) => Ok(parsed),
        Ok(_) => Err("must be HTTPS (HTTP only for localhost)".to_owned()),
        Err(error) => Err(format!("is not a URL ({error})")),
    }
}

/// Whether `url` may be used for OAuth: HTTPS, or HTTP to this machine (a development
/// authorization server, or one in tests).
pub(crate) fn is_secure(url: &Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(name)) => name == "localhost",
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

/// `base` with `/.well-known/{name}` inserted before its path (a trailing `/` dropped), and
/// no query or fragment: where RFC 8414 and RFC 9728 put a server's metadata.
pub(crate) fn well_known(base: &Url, name: &str) -> Url {
    let path = base.path().trim_end_matches('/');
    at_path(base, &format!("/.well-known/{name}{path}"))
}

/// `base` with `path` for its path, and no query or fragment.
pub(crate) fn at_path(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    url.set_path(path);
    url.set_query(None);
    url.set_fragment(None);
    url
}

/// `request` authenticated as client `id` with `secret` by HTTP Basic, both parts
/// form-urlencoded first (RFC 6749 §2.3.1), so that a `:` or `%` in them survives.
pub(crate) fn basic_auth(
    request: reqwest::RequestBuilder,
    id: &str,
    secret: &str,
) -> reqwest::RequestBuilder {
    request.basic_auth(form_encode(id), Some(form_encode(secret)))
}

fn form_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_paths_go_before_the_path() {
        let at = |base: &str| well_known(&Url::parse(base).unwrap(), "oauth-protected-resource");
        assert_eq!(
            at("https://mcp.example.com/mcp/?q=1#f").as_str(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            at("https://mcp.example.com").as_str(),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn only_https_urls_or_this_machines_are_secure() {
        assert!(secure_url("https://auth.example.com/token").is_ok());
        assert!(secure_url("http://127.0.0.1:9000/token").is_ok());
        assert!(secure_url("http://[::1]:9000/token").is_ok());
        assert!(secure_url("http://localhost:9000/token").is_ok());
        assert_eq!(
            secure_url("http://auth.example.com/token"),
            Err("must be HTTPS (HTTP only for localhost)".to_owned())
        );
        assert!(secure_url("ftp://auth.example.com").is_err());
        assert!(secure_url("not a url").unwrap_err().starts_with("is not a URL ("));
    }
}
