//! The step of a login that needs the user: [`Authorizer`], which takes them to the
//! authorization server and brings back where it redirected them.

use std::fmt;
use std::time::Duration;

use agent_tools_core::tool::BoxFuture;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;
use url::Url;

use crate::oauth::fetch;

/// How long [`LoopbackBrowser`] waits for the user to finish at the authorization server.
const LOGIN_WAIT: Duration = Duration::from_secs(5 * 60);
/// The longest request line and headers the loopback listener reads.
const MAX_CALLBACK_REQUEST: usize = 16 * 1024;

/// Takes the user through an authorization server's consent: given the authorization URL,
/// returns the URL the server redirected back to (carrying `code` and `state`).
pub trait Authorizer: Send + Sync + 'static {
    /// The redirect URI the authorization server is to send the user back to.
    fn redirect_uri(&self) -> &Url;

    /// Has the user authorize at `url`; the redirect's full URL, or why there is none.
    fn authorize<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Result<Url, AuthorizeError>>;
}

/// Why the user could not authorize.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AuthorizeError(pub String);

/// Authorization in the user's browser, with the redirect caught on a loopback port (RFC
/// 8252 §7.3): the URL is printed on stderr (and opened with `xdg-open` when
/// [`open_browser`](Self::open_browser) is set), and the login waits up to five minutes
/// for the browser to come back.
pub struct LoopbackBrowser {
    listener: tokio::sync::Mutex<TcpListener>,
    redirect_uri: Url,
    open_browser: bool,
}

impl LoopbackBrowser {
    /// Listens on `127.0.0.1:port` (0: any free port) for the redirect to `/callback`.
    pub async fn bind(port: u16) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let port = listener.local_addr()?.port();
        let redirect_uri =
            Url::parse(&format!("http://127.0.0.1:{port}/callback")).map_err(std::io::Error::other)?;
        Ok(Self {
            listener: tokio::sync::Mutex::new(listener),
            redirect_uri,
            open_browser: false,
        })
    }

    /// Also opens the URL in the desktop's browser (`xdg-open`).
    pub fn open_browser(mut self, open: bool) -> Self {
        self.open_browser = open;
        self
    }

    async fn wait_for_redirect(&self) -> Result<Url, AuthorizeError> {
        let listener = self.listener.lock().await;
        loop {
            let (mut stream, _) = listener
                .accept()
                .await
                .map_err(|error| AuthorizeError(format!("the redirect listener failed: {error}")))?;
            let Some(target) = read_request_target(&mut stream).await else {
                continue;
            };
            // Anything but the callback (a browser's favicon request) is not the answer.
            let Ok(url) = self.redirect_uri.join(&target) else {
                continue;
            };
            if url.path() != self.redirect_uri.path() {
                let _ = stream
                    .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                    .await;
                continue;
            }
            let page = "<!doctype html><title>agent-tools</title><p>Authorization received; you may close this window.</p>";
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
            return Ok(url);
        }
    }
}

impl Authorizer for LoopbackBrowser {
    fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    fn authorize<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Result<Url, AuthorizeError>> {
        Box::pin(async move {
            eprintln!("agent-tools: to authorize, open this address in a browser:\n  {url}");
            if self.open_browser {
                // The printed address is the fallback when no browser can be opened.
                let _ = std::process::Command::new("xdg-open")
                    .arg(url.as_str())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn();
            }
            tokio::time::timeout(LOGIN_WAIT, self.wait_for_redirect())
                .await
                .map_err(|_| AuthorizeError("no authorization came back within five minutes".to_owned()))?
        })
    }
}

impl fmt::Debug for LoopbackBrowser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackBrowser")
            .field("redirect_uri", &self.redirect_uri.as_str())
            .finish_non_exhaustive()
    }
}

/// Authorization without a user: requests the authorization URL and takes the redirect it
/// answers with, without following it. For authorization servers that approve at once —
/// test servers, the MCP conformance suite's — and for tests of a mount's login.
#[derive(Debug, Clone)]
pub struct FollowRedirect {
    redirect_uri: Url,
    http: reqwest::Client,
}

impl FollowRedirect {
    /// Asks to be sent back to `redirect_uri` (nothing needs to listen there).
    pub fn new(redirect_uri: Url) -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_else(|_| fetch::http_client());
        Self { redirect_uri, http }
    }
}

impl Authorizer for FollowRedirect {
    fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    fn authorize<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Result<Url, AuthorizeError>> {
        Box::pin(async move {
            let response = self
                .http
                .get(url.clone())
                .send()
                .await
                .map_err(|error| AuthorizeError(format!("{url}: {error}")))?;
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|value| value.to_str().ok())
                .ok_or_else(|| {
                    AuthorizeError(format!(
                        "the authorization server answered {} without a redirect",
                        response.status()
                    ))
                })?;
            url.join(location)
                .map_err(|error| AuthorizeError(format!("the redirect `{location}` is not a URL: {error}")))
        })
    }
}

/// The target of the HTTP request on `stream` (`/callback?code=…`), if it reads as one.
async fn read_request_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut request = Vec::new();
    let mut buffer = [0u8; 1024];
    while !request.windows(4).any(|window| window == b"\r\n\r\n") {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer))
            .await
            .ok()?
            .ok()?;
        if read == 0 || request.len() + read > MAX_CALLBACK_REQUEST {
            return None;
        }
        request.extend_from_slice(&buffer[..read]);
    }
    let line = std::str::from_utf8(&request).ok()?.lines().next()?;
    let mut parts = line.split(' ');
    (parts.next()? == "GET").then_some(())?;
    parts.next().map(str::to_owned)
}
