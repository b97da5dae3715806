//! Running an [`McpHandler`] over streamable HTTP: the axum server, its admission checks
//! in front of the MCP endpoint, and the [`HttpServer`] handle that stops it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use agent_tools_core::ToolRegistry;
use axum::serve::ListenerExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::error::ServeError;
use super::handler::McpHandler;
use super::http_auth::{self, HttpOptions};
use super::http_sessions::HttpSessions;
#[cfg(feature = "oauth")]
use crate::oauth::resource::guard::{CloseSession, Guard, metadata_routes};

/// The path of the MCP endpoint [`serve_http`] serves.
pub const HTTP_ENDPOINT: &str = "/mcp";

/// Serves `registry` over streamable HTTP at `http://ADDR/mcp`; see
/// [`McpHandler::serve_http`].
///
/// ```no_run
/// # async fn example() -> Result<(), agent_tools_mcp::ServeError> {
/// let server = agent_tools_mcp::serve_http(agent_tools_core::ToolRegistry::new(), "127.0.0.1:8080").await?;
/// eprintln!("serving on {}", server.url());
/// server.wait().await
/// # }
/// ```
pub async fn serve_http(registry: ToolRegistry, addr: impl ToSocketAddrs) -> Result<HttpServer, ServeError> {
    McpHandler::new(registry).serve_http(addr).await
}

impl McpHandler {
    /// Binds `addr` and serves streamable HTTP at [`HTTP_ENDPOINT`] in the background;
    /// the returned handle tells the bound address (bind port 0 to get a free one) and
    /// stops the server when dropped.
    ///
    /// Requests must name a loopback host (`localhost`, `127.0.0.1`, `::1`) or the bound
    /// address in their `Host` header, which defeats DNS rebinding from a browser; put a
    /// reverse proxy in front to serve other names.
    ///
    /// Only a loopback address is served this way; to serve others, give a bearer token
    /// with [`serve_http_with`](Self::serve_http_with).
    pub async fn serve_http(self, addr: impl ToSocketAddrs) -> Result<HttpServer, ServeError> {
        self.serve_http_with(addr, HttpOptions::new()).await
    }

    /// [`serve_http`](Self::serve_http), admitting clients as `options` say: with a
    /// bearer token, any address may be served.
    pub async fn serve_http_with(
        self,
        addr: impl ToSocketAddrs,
        options: HttpOptions,
    ) -> Result<HttpServer, ServeError> {
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        options.check(local_addr)?;
        #[cfg(feature = "oauth")]
        let registry = self.registry().clone();
        let stateless = options.is_stateless();
        let handler = match stateless {
            true => self.stateless(),
            false => self,
        };
        let shutdown = CancellationToken::new();
        let cancel_calls = CancellationToken::new();
        // A stateless call that sends nothing before its result (no progress, no request
        // to the client) is answered as plain JSON, a body sent whole, rather than as an
        // event stream sent chunk by chunk: a small call then costs about a third less
        // under load (benches/serve_load.sh). rmcp switches to an event stream when the
        // handler does send something first.
        let mut config = StreamableHttpServerConfig::default()
            .with_cancellation_token(cancel_calls.child_token())
            .with_legacy_session_mode(!stateless)
            .with_json_response(stateless);
        config = match options.checks_host() {
            true => config.with_allowed_hosts(allowed_hosts(local_addr)),
            false => config.disable_allowed_hosts(),
        };
        // Request ids repeat across clients, so each HTTP session (each request, when
        // serving statelessly or a stateless client) gets its own session id in the audit
        // log; the server's random instance id keeps them apart across replicas logging
        // to one place.
        let instance = instance_id();
        let session_numbers = AtomicU64::new(0);
        let sessions: Arc<Sessions> = Arc::new(HttpSessions::new(LocalSessionManager::default()));
        let service = StreamableHttpService::new(
            move || {
                let number = session_numbers.fetch_add(1, Ordering::Relaxed) + 1;
                Ok(handler.for_session(format!("http-{instance}-{number}")))
            },
            sessions.clone(),
            config,
        );
        let mut router = axum::Router::new().nest_service(HTTP_ENDPOINT, service);
        if !stateless {
            router = router.layer(axum::middleware::from_fn(session_end_answered_ok));
        }
        if let Some(token) = options.token() {
            router = router.layer(axum::middleware::from_fn(move |request, next| {
                http_auth::require_bearer(token.clone(), request, next)
            }));
        }
        #[cfg(feature = "oauth")]
        if let Some(resource) = options.oauth_resource() {
            let guard = Guard::new(resource.clone(), registry, session_closer(sessions));
            router = router
                .layer(axum::middleware::from_fn(move |request, next| {
                    guard.clone().check(request, next)
                }))
                .merge(metadata_routes(resource));
        }
        let stop = shutdown.clone();
        let listener = listener.tap_io(no_delay);
        let task = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(stop.cancelled_owned())
                .await
        });
        Ok(HttpServer {
            local_addr,
            shutdown,
            cancel_calls,
            drain: stateless.then_some(DRAIN_TIMEOUT),
            task: Some(task),
        })
    }
}

/// What the OAuth guard calls to close a session it can no longer keep the owner of.
#[cfg(feature = "oauth")]
fn session_closer(sessions: Arc<Sessions>) -> Arc<CloseSession> {
    use rmcp::transport::streamable_http_server::session::SessionManager as _;
    Arc::new(move |id: String| {
        let sessions = sessions.clone();
        Box::pin(async move {
            // A session that already ended is fine.
            let _ = sessions.close_session(&Arc::from(id)).await;
        })
    })
}

/// The sessions of streamable HTTP: rmcp's, with what `http_sessions` adds.
type Sessions = HttpSessions<LocalSessionManager>;

/// Answers a session's `DELETE` with `200 OK` where rmcp answers `202 Accepted`.
///
/// The session is closed by then, and clients read 202 as a failure: the Python SDK
/// logs "Session termination failed: 202" at the end of every session. The TypeScript
/// SDK's servers answer 200.
async fn session_end_answered_ok(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let deleting = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await;
    if deleting && response.status() == axum::http::StatusCode::ACCEPTED {
        *response.status_mut() = axum::http::StatusCode::OK;
    }
    response
}

/// Sends each response as soon as it is written (`TCP_NODELAY`).
///
/// A response goes out in more than one write (headers, then the body's event or
/// chunks). With Nagle's algorithm on, the last small write waits for the client to
/// acknowledge the first, and a client delays that acknowledgement by up to 40 ms (Linux)
/// hoping to piggyback it on its next request: every request after the first on a
/// kept-alive connection then took about 40 ms. A connection whose option cannot be set
/// is served anyway, only slower.
fn no_delay(connection: &mut tokio::net::TcpStream) {
    if let Err(error) = connection.set_nodelay(true) {
        tracing::debug!(%error, "cannot set TCP_NODELAY on an MCP connection");
    }
}

/// How long a stateless server lets the requests in flight finish after its shutdown
/// signal.
const DRAIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Eight hex digits, random per server: seeded by the standard library's per-process
/// random hash keys, which is all the randomness this needs (telling replicas apart).
fn instance_id() -> String {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(u64::from(std::process::id()));
    format!("{:08x}", hasher.finish() as u32)
}

/// Loopback names always, plus the bound address when it is a specific one.
fn allowed_hosts(local_addr: SocketAddr) -> Vec<String> {
    let mut hosts = vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
    let ip = local_addr.ip();
    if !ip.is_unspecified() && !ip.is_loopback() {
        hosts.push(ip.to_string());
    }
    hosts
}

/// A running streamable HTTP server, from [`serve_http`]. Dropping it stops the server.
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    /// Stops accepting connections.
    shutdown: CancellationToken,
    /// Ends the requests and sessions in flight.
    cancel_calls: CancellationToken,
    /// How long requests in flight may finish after [`wait_until`](Self::wait_until)'s
    /// signal: set for stateless servers; sessions (which hold a stream open for as long
    /// as their client is connected) end at once.
    drain: Option<std::time::Duration>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl HttpServer {
    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The MCP endpoint's URL, e.g. `http://127.0.0.1:8080/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{HTTP_ENDPOINT}", self.local_addr)
    }

    /// Stops accepting connections and ends open sessions and requests;
    /// [`wait`](Self::wait) then returns.
    pub fn shutdown(&self) {
        self.shutdown.cancel();
        self.cancel_calls.cancel();
    }

    /// Runs until `signal` completes (e.g. `tokio::signal::ctrl_c()`), then stops
    /// accepting connections and returns when the open ones are done. Sessions end at
    /// once; a stateless server's requests in flight may finish first, for up to 30
    /// seconds.
    pub async fn wait_until(self, signal: impl Future<Output = ()>) -> Result<(), ServeError> {
        let (shutdown, cancel_calls, drain) = (self.shutdown.clone(), self.cancel_calls.clone(), self.drain);
        let stop_on_signal = async move {
            signal.await;
            shutdown.cancel();
            if let Some(drain) = drain {
                tokio::time::sleep(drain).await;
            }
            cancel_calls.cancel();
            std::future::pending::<()>().await
        };
        tokio::select! {
            result = self.wait() => result,
            () = stop_on_signal => unreachable!("pending never completes"),
        }
    }

    /// Runs until [`shutdown`](Self::shutdown) or a fatal error.
    pub async fn wait(mut self) -> Result<(), ServeError> {
        let Some(task) = self.task.take() else {
            return Ok(());
        };
        match task.await {
            Ok(result) => result.map_err(ServeError::Io),
            Err(error) => Err(ServeError::Stopped(error)),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}
