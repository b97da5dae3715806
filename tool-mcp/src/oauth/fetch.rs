//! Reading JSON documents from an authorization server: its metadata, its keys, its
//! introspection answers — bounded in size and time, so a slow or hostile server cannot
//! hold a request or fill memory.

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
async fn bounded_body(mut response: reqwest::Response, url: &Url) -> Result<Vec<u8>, FetchError> {
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
