//! The HTTP client of a mount that logs in with OAuth: every request carries the login's
//! current token; a `401` gets a newer, refreshed or freshly logged-in token and the
//! request is sent again, and a `403 insufficient_scope` a token with more scope.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use futures_util::stream::BoxStream;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use url::Url;

use super::login::{OAuthClient, OAuthClientError, Refusal};

type HeaderMap = HashMap<axum::http::HeaderName, axum::http::HeaderValue>;
type Error = StreamableHttpError<reqwest::Error>;

/// How many times one request may come back `401` and be sent again (once with a
/// refreshed token, once after a new login).
const UNAUTHORIZED_RETRIES: usize = 2;

/// An HTTP client for rmcp's streamable HTTP transport whose requests carry an
/// [`OAuthClient`]'s token, logging in, refreshing and stepping up as the server asks.
/// Mounts use it through [`McpServer::oauth`](crate::McpServer::oauth); an application
/// with an rmcp client of its own can use it directly:
///
/// ```no_run
/// # async fn example(login: agent_tools_mcp::oauth::OAuthClient) -> Result<(), Box<dyn std::error::Error>> {
/// use rmcp::ServiceExt as _;
/// use rmcp::transport::StreamableHttpClientTransport;
/// use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
/// use agent_tools_mcp::oauth::OAuthHttpClient;
///
/// let url = "https://mcp.example.com/mcp";
/// let http = OAuthHttpClient::new(login, url.parse()?);
/// let transport = StreamableHttpClientTransport::with_client(http, StreamableHttpClientTransportConfig::with_uri(url));
/// let client = ().serve(transport).await?;
/// # drop(client); Ok(()) }
/// ```
#[derive(Clone)]
pub struct OAuthHttpClient {
    inner: reqwest::Client,
    login: OAuthClient,
    server: Arc<Url>,
}

impl OAuthHttpClient {
    /// Requests to `server` (the MCP endpoint's URL) carry `login`'s token.
    pub fn new(login: OAuthClient, server: Url) -> Self {
        Self {
            inner: reqwest::Client::new(),
            login,
            server: Arc::new(server),
        }
    }

    /// Runs `call` with the current token, and again with a better one after a `401` or
    /// a `403 insufficient_scope`.
    async fn with_login<T, F, Fut>(&self, call: F) -> Result<T, Error>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let mut token = self.login.token().await.map_err(login_failed)?;
        let mut unauthorized = 0;
        loop {
            let (refusal, challenge) = match call(token.clone()).await {
                Err(StreamableHttpError::AuthRequired(challenge)) if unauthorized < UNAUTHORIZED_RETRIES => {
                    unauthorized += 1;
                    (Refusal::Unauthorized, challenge.www_authenticate_header)
                }
                Err(StreamableHttpError::InsufficientScope(challenge)) => {
                    (Refusal::InsufficientScope, challenge.www_authenticate_header)
                }
                Ok(answer) => {
                    self.login.succeeded();
                    return Ok(answer);
                }
                Err(error) => return Err(error),
            };
            let better = self
                .login
                .replace(&self.server, token.as_deref(), &challenge, refusal)
                .await;
            token = Some(better.map_err(login_failed)?);
        }
    }
}

/// A login failure, as the transport reports errors (its source is the login's error).
fn login_failed(error: OAuthClientError) -> Error {
    StreamableHttpError::Io(std::io::Error::other(error))
}

impl StreamableHttpClient for OAuthHttpClient {
    type Error = reqwest::Error;

    // As rmcp's own client does: the plain methods are the limited ones with the default
    // limits (rmcp's transport calls only the limited ones).
    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HeaderMap,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let limits = StreamableHttpResponseLimits::default();
        self.post_message_with_response_limits(uri, message, session_id, auth_header, custom_headers, limits)
            .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HeaderMap,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(uri, message, session_id, auth_header, custom_headers, limits)
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HeaderMap,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.with_login(|token| {
            let (uri, message, session_id, headers) = (
                uri.clone(),
                message.clone(),
                session_id.clone(),
                custom_headers.clone(),
            );
            async move {
                self.inner
                    .post_message_with_response_limits(uri, message, session_id, token, headers, limits)
                    .await
            }
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: HeaderMap,
    ) -> Result<(), Error> {
        self.with_login(|token| {
            let (uri, session_id, headers) = (uri.clone(), session_id.clone(), custom_headers.clone());
            async move { self.inner.delete_session(uri, session_id, token, headers).await }
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HeaderMap,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>, Error> {
        let max_sse_event_size = StreamableHttpResponseLimits::default().max_sse_event_size;
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max_sse_event_size,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HeaderMap,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>, Error> {
        self.with_login(|token| {
            let (uri, session_id, last, headers) = (
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                custom_headers.clone(),
            );
            async move {
                self.inner
                    .get_stream_with_max_sse_event_size(
                        uri,
                        session_id,
                        last,
                        token,
                        headers,
                        max_sse_event_size,
                    )
                    .await
            }
        })
        .await
    }
}
