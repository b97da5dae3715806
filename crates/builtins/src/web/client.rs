//! The web tools' HTTP client, [`Fetcher`]: GET with the SSRF guard, redirects followed
//! by hand, one deadline and a capped body. (The `web_fetch` tool around it is
//! `web_fetch.rs`.)
//!
//! Redirects are not left to the HTTP client because every hop is a new destination the
//! model did not name: each one is checked from scratch like the first URL (scheme, IP
//! literal, resolved addresses), and credentials the caller attached are dropped once a
//! hop leaves the first origin, never to come back.

use std::sync::Arc;
use std::time::Duration;

use agent_tools_core::error::error_chain;
use reqwest::header::{self, HeaderMap, HeaderName};
use reqwest::redirect::Policy;
use reqwest::{Response, StatusCode};
use url::Url;

use super::config::FetchConfig;
use super::resolve::CheckedResolver;
use super::ssrf_guard::{SsrfGuard, SsrfGuardError};
use crate::SetupError;
use crate::capped_body::read_capped;

/// Headers that carry credentials; dropped when a redirect leaves the first origin.
const CREDENTIALS: [HeaderName; 3] = [header::AUTHORIZATION, header::COOKIE, header::PROXY_AUTHORIZATION];

/// Fetches URLs for a model: only public internet hosts (unless configured otherwise),
/// within the limits of its [`FetchConfig`]. Cheap to clone; clones share connections.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    guard: Arc<SsrfGuard>,
    config: Arc<FetchConfig>,
}

/// A fetched response: where it came from, its status and type, and its body up to the
/// cap.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Fetched {
    /// The URL fetched first.
    pub requested_url: Url,
    /// The URL the body came from, after redirects.
    pub url: Url,
    /// The final response's status.
    pub status: StatusCode,
    /// The final response's `Content-Type`, if it had a readable one.
    pub content_type: Option<String>,
    /// The body, decompressed, at most [`FetchConfig::max_body_bytes`].
    pub body: Vec<u8>,
    /// The body went on past the cap and was cut there.
    pub truncated: bool,
}

/// Why a fetch failed; the messages are written for the model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL does not parse.
    #[error("`{url}` is not a valid URL: {source}")]
    InvalidUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        #[source]
        source: url::ParseError,
    },
    /// The URL's scheme is not `http` or `https`.
    #[error("refused to fetch {url}: only http and https URLs can be fetched")]
    UnsupportedScheme {
        /// The URL.
        url: String,
    },
    /// The SSRF guard refused the host.
    #[error("refused to fetch {url}: {reason}; only public internet addresses can be fetched")]
    Blocked {
        /// The URL.
        url: String,
        /// Which address is off limits, and why.
        reason: String,
    },
    /// The host name does not resolve.
    #[error("{0}")]
    Unresolvable(String),
    /// More redirects than allowed.
    #[error("stopped after {max} redirects (the last one pointed to {url}); the page may redirect in a loop")]
    TooManyRedirects {
        /// The configured limit.
        max: usize,
        /// Where the redirect past the limit pointed.
        url: String,
    },
    /// A redirect without a usable `Location`.
    #[error("{url} answered {status} without a valid Location header to follow")]
    BadRedirect {
        /// The URL that redirected.
        url: String,
        /// The redirect status.
        status: StatusCode,
    },
    /// A failure on a hop reached by redirect.
    #[error("{error} (reached by a redirect from {from})")]
    AfterRedirect {
        /// The URL that redirected to the failing hop.
        from: String,
        /// The failure.
        error: Box<FetchError>,
    },
    /// The whole fetch took longer than [`FetchConfig::timeout`].
    #[error("timed out after {} (the whole fetch, redirects and body included)", seconds(*.0))]
    TimedOut(Duration),
    /// Connecting took longer than [`FetchConfig::connect_timeout`].
    #[error("could not connect to {host} within {}", seconds(*.timeout))]
    ConnectTimedOut {
        /// The host.
        host: String,
        /// The configured connect timeout.
        timeout: Duration,
    },
    /// Any other network or HTTP failure. The message holds the whole chain of causes
    /// (reqwest's own message says only "error sending request").
    #[error("fetching {url} failed: {}", error_chain(source))]
    Network {
        /// The URL.
        url: String,
        /// What failed.
        #[source]
        source: reqwest::Error,
    },
}

impl Fetcher {
    /// A fetcher with `config`; fails if a configured root certificate is not valid PEM
    /// or the TLS backend cannot be set up.
    pub fn new(config: FetchConfig) -> Result<Self, SetupError> {
        let guard = Arc::new(SsrfGuard::new(&config));
        let client = reqwest::Client::builder()
            .user_agent(config.user_agent.as_str())
            .connect_timeout(config.connect_timeout)
            .redirect(Policy::none())
            .no_proxy()
            .dns_resolver(CheckedResolver::new(Arc::clone(&guard)))
            .tls_certs_merge(root_certificates(&config)?)
            .build()
            .map_err(|source| SetupError::HttpClient {
                component: "web_fetch",
                source,
            })?;
        Ok(Self {
            client,
            guard,
            config: Arc::new(config),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    /// GETs `url` with `headers`, following redirects, and reads the body up to the cap.
    /// Any status is a response (a 404 page is returned, not an error); errors are for
    /// refused or unreachable hosts, redirect trouble and timeouts.
    pub async fn fetch(&self, url: &str, headers: HeaderMap) -> Result<Fetched, FetchError> {
        let url = Url::parse(url).map_err(|source| FetchError::InvalidUrl {
            url: url.to_owned(),
            source,
        })?;
        let timeout = self.config.timeout;
        tokio::time::timeout(timeout, self.follow(url, headers))
            .await
            .map_err(|_| FetchError::TimedOut(timeout))?
    }

    async fn follow(&self, requested_url: Url, mut headers: HeaderMap) -> Result<Fetched, FetchError> {
        let mut url = requested_url.clone();
        let mut from: Option<Url> = None;
        for _ in 0..=self.config.max_redirects {
            let response = self.hop(&url, &headers).await.map_err(|error| match &from {
                Some(from) => FetchError::AfterRedirect {
                    from: from.to_string(),
                    error: Box::new(error),
                },
                None => error,
            })?;
            let Some(next) = redirect_target(&url, &response)? else {
                return self.finish(requested_url, url, response).await;
            };
            if next.origin() != url.origin() {
                for name in &CREDENTIALS {
                    headers.remove(name);
                }
            }
            from = Some(std::mem::replace(&mut url, next));
        }
        Err(FetchError::TooManyRedirects {
            max: self.config.max_redirects,
            url: url.to_string(),
        })
    }

    /// One request, its URL checked first.
    async fn hop(&self, url: &Url, headers: &HeaderMap) -> Result<Response, FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::UnsupportedScheme { url: url.to_string() });
        }
        self.guard
            .check_url(url)
            .map_err(|error| guard_error(url, error))?;
        self.client
            .get(url.clone())
            .headers(headers.clone())
            .send()
            .await
            .map_err(|error| self.request_error(url, error))
    }

    async fn finish(&self, requested_url: Url, url: Url, response: Response) -> Result<Fetched, FetchError> {
        let status = response.status();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let body = read_capped(response, self.config.max_body_bytes)
            .await
            .map_err(|error| self.request_error(&url, error))?;
        Ok(Fetched {
            requested_url,
            url,
            status,
            content_type,
            body: body.bytes,
            truncated: body.truncated,
        })
    }

    /// A client error as the model should read it: the guard's refusal if the resolver
    /// refused, a connect timeout, or the error's chain of causes.
    fn request_error(&self, url: &Url, error: reqwest::Error) -> FetchError {
        // A refusal of the resolver's comes back wrapped in the client's errors.
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
        while let Some(cause) = source {
            if let Some(refusal) = cause.downcast_ref::<SsrfGuardError>() {
                return guard_error(url, refusal.clone());
            }
            source = cause.source();
        }
        if error.is_connect() && error.is_timeout() {
            return FetchError::ConnectTimedOut {
                host: url.host_str().unwrap_or_default().to_owned(),
                timeout: self.config.connect_timeout,
            };
        }
        FetchError::Network {
            url: url.to_string(),
            source: error,
        }
    }
}

/// The configured extra certificate authorities, parsed.
fn root_certificates(config: &FetchConfig) -> Result<Vec<reqwest::Certificate>, SetupError> {
    let mut certificates = Vec::new();
    for (n, pem) in config.root_certificates().iter().enumerate() {
        let parsed = reqwest::Certificate::from_pem_bundle(pem)
            .ok()
            .filter(|bundle| !bundle.is_empty())
            .ok_or(SetupError::Certificate { number: n + 1 })?;
        certificates.extend(parsed);
    }
    Ok(certificates)
}

/// Where a redirect response points, or `None` for any other response.
fn redirect_target(url: &Url, response: &Response) -> Result<Option<Url>, FetchError> {
    let status = response.status();
    let redirects = matches!(
        status,
        StatusCode::MOVED_PERMANENTLY
            | StatusCode::FOUND
            | StatusCode::SEE_OTHER
            | StatusCode::TEMPORARY_REDIRECT
            | StatusCode::PERMANENT_REDIRECT
    );
    if !redirects {
        return Ok(None);
    }
    response
        .headers()
        .get(header::LOCATION)
        .and_then(|location| location.to_str().ok())
        .and_then(|location| url.join(location).ok())
        .map(Some)
        .ok_or_else(|| FetchError::BadRedirect {
            url: url.to_string(),
            status,
        })
}

fn guard_error(url: &Url, error: SsrfGuardError) -> FetchError {
    match error {
        SsrfGuardError::Blocked(reason) => FetchError::Blocked {
            url: url.to_string(),
            reason,
        },
        unresolvable @ SsrfGuardError::Unresolvable { .. } => {
            FetchError::Unresolvable(unresolvable.to_string())
        }
    }
}

/// `30 s`, `0.2 s`: a duration as a model reads it.
fn seconds(duration: Duration) -> String {
    format!("{} s", duration.as_secs_f64())
}
