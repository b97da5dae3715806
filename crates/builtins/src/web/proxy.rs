//! A forward proxy that holds every connection to a policy, for programs that fetch on
//! their own.
//!
//! Headless Chromium loads a page's redirects, frames, images, scripts and WebSockets
//! itself; the guard on the URL a model gave cannot see those. Started with this proxy
//! as its only way out, Chromium has each of those connections checked exactly like
//! `web_fetch`'s own ([`SsrfGuard`] is a [`ProxyPolicy`]): IP literals by address, host
//! names by every address they resolve to, trusted hosts by their configured address.
//! `exec` under an allow-list (`network = ["crates.io", …]`) gives its commands the same
//! proxy with the allow-list as the policy (the `shell::egress` module).
//!
//! It speaks the two forms clients send a proxy. `CONNECT host:port` (HTTPS, secure
//! WebSockets) becomes a tunnel to the checked address; a policy may ask to see the
//! tunnel's first bytes, a TLS ClientHello whose server name must be the host asked for
//! ([`TunnelCheck`]). An absolute-form request
//! (`GET http://host/path HTTP/1.1`, plain HTTP) is forwarded in origin form with
//! `Connection: close` and a `Host` header naming the URL's host (RFC 9112, 3.2.2: a
//! proxy replaces the one it got, so a client cannot name one host to the policy and
//! another to the server), so that each request comes on a connection of its own and is
//! checked on its own: a server must not act on requests that follow one marked `close`
//! (RFC 9112, 9.6), so a second request pipelined behind the first goes nowhere new. The
//! proxy resolves the host itself and connects to the address it approved, so no second
//! lookup can rebind the name. A refused connection is answered `403 Forbidden` with the
//! policy's reason; one that cannot be made, `502 Bad Gateway`. Every decision is told to
//! the policy ([`ProxyPolicy::record`]), which may keep it for an audit.
//!
//! It listens on an ephemeral port of 127.0.0.1 ([`GuardedProxy::start`]), or on a
//! listener it is given ([`GuardedProxy::serve`]: one made inside a command's network
//! namespace), for as long as its owner keeps it; dropping it stops the listener and
//! every connection it carries.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};
use url::{Host, Url};

use super::client_hello::{self, Hello};
use super::ssrf_guard::{SsrfGuard, SsrfGuardError};

/// The most a request line and its headers may take.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// How long to wait before accepting again after `accept` failed.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// Headers about the hop to the proxy, not meant for the server (`host` is replaced by
/// the URL's).
const HOP_HEADERS: &[&str] = &[
    "connection",
    "host",
    "keep-alive",
    "proxy-authorization",
    "proxy-connection",
];

/// What the proxy may connect to: the one decision that differs between its users.
pub(crate) trait ProxyPolicy: Send + Sync + 'static {
    /// The addresses a connection to `target`'s host and port may go to, or why none.
    fn addresses(&self, target: &Url) -> impl Future<Output = Result<Vec<SocketAddr>, Refusal>> + Send;

    /// What a tunnel to `target` must begin with. Default: anything.
    fn tunnel(&self, _target: &Url) -> TunnelCheck {
        TunnelCheck::Open
    }

    /// Told of every connection the proxy was asked for and what became of it.
    fn record(&self, _connection: Connection<'_>) {}
}

/// What the first bytes of a tunnel must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TunnelCheck {
    /// Anything: the tunnel is opened as asked.
    Open,
    /// A TLS ClientHello naming the CONNECT host (its SNI; a tunnel to an IP address may
    /// name none), or, if `plain` allows, something that is not TLS at all.
    TlsNamingHost {
        /// Whether a tunnel that does not start with TLS may pass.
        plain: bool,
    },
}

/// One connection the proxy was asked for, as told to [`ProxyPolicy::record`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Connection<'a> {
    /// `CONNECT`, or the method of a forwarded request.
    pub(crate) method: &'a str,
    /// The host asked for (a name, or an address as the URL writes it).
    pub(crate) host: &'a str,
    /// The port asked for.
    pub(crate) port: u16,
    /// What became of it.
    pub(crate) verdict: Verdict<'a>,
}

/// What became of a connection.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Verdict<'a> {
    /// Made.
    Allowed,
    /// Refused by the policy, with its reason.
    Refused(&'a str),
    /// Allowed but not made: the host could not be resolved or reached.
    Failed(&'a str),
}

/// A running guarded proxy; stops when dropped.
#[derive(Debug)]
pub(crate) struct GuardedProxy {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl GuardedProxy {
    /// Starts a proxy on an ephemeral port of 127.0.0.1 that lets connections through
    /// `policy`, each given `connect_timeout` to reach its server.
    pub(crate) async fn start(policy: impl ProxyPolicy, connect_timeout: Duration) -> std::io::Result<Self> {
        let listener = TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
        Self::serve(listener, policy, connect_timeout)
    }

    /// Serves the clients of `listener` (which may belong to another network namespace:
    /// a socket stays in the one it was made in) through `policy`. Must be called within
    /// a Tokio runtime.
    pub(crate) fn serve(
        listener: TcpListener,
        policy: impl ProxyPolicy,
        connect_timeout: Duration,
    ) -> std::io::Result<Self> {
        let addr = listener.local_addr()?;
        let route = Arc::new(Route {
            policy,
            connect_timeout,
        });
        let task = tokio::spawn(accept(listener, route));
        Ok(Self { addr, task })
    }

    /// The address to give a client as its HTTP proxy.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for GuardedProxy {
    fn drop(&mut self) {
        // The connections live in the accept task's `JoinSet`, so they end with it.
        self.task.abort();
    }
}

/// How the proxy reaches a server.
#[derive(Debug)]
struct Route<P> {
    policy: P,
    connect_timeout: Duration,
}

async fn accept<P: ProxyPolicy>(listener: TcpListener, route: Arc<Route<P>>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((client, _)) => {
                    connections.spawn(serve(client, route.clone()));
                }
                // Out of file descriptors, say: retrying at once would only spin.
                Err(_) => tokio::time::sleep(ACCEPT_RETRY).await,
            },
            Some(_) = connections.join_next() => {}
        }
    }
}

/// What a client asked the proxy for.
#[derive(Debug, PartialEq, Eq)]
enum Request {
    /// `CONNECT`: a tunnel to the URL's host and port.
    Tunnel(Url),
    /// A plain HTTP request to the URL, and the head to send its server.
    Forward(Url, Vec<u8>),
}

async fn serve<P: ProxyPolicy>(client: TcpStream, route: Arc<Route<P>>) {
    let mut client = BufReader::new(client);
    let Ok(head) = read_head(&mut client).await else {
        return;
    };
    let request = match parse(&head) {
        Ok(request) => request,
        Err(reason) => return answer(&mut client, "400 Bad Request", &reason).await,
    };
    let (method, url) = match &request {
        Request::Tunnel(url) => ("CONNECT", url),
        Request::Forward(url, head) => (method_of(head), url),
    };
    let host = url.host_str().unwrap_or_default();
    let record = |verdict| {
        route.policy.record(Connection {
            method,
            host,
            port: port(url),
            verdict,
        });
    };
    let addresses = match route.policy.addresses(url).await {
        Ok(addresses) => addresses,
        Err(Refusal::Blocked(reason)) => {
            record(Verdict::Refused(&reason));
            return answer(&mut client, "403 Forbidden", &reason).await;
        }
        Err(Refusal::Unreachable(reason)) => {
            record(Verdict::Failed(&reason));
            return answer(&mut client, "502 Bad Gateway", &reason).await;
        }
    };
    let (mut server, first) = match &request {
        Request::Forward(_, head) => match route.connect(addresses).await {
            Ok(server) => (server, head.clone()),
            Err(reason) => {
                record(Verdict::Failed(&reason));
                return answer(&mut client, "502 Bad Gateway", &reason).await;
            }
        },
        // The tunnel's first bytes are judged before the server is contacted at all.
        Request::Tunnel(url) => {
            if client
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await
                .is_err()
            {
                return;
            }
            let check = route.policy.tunnel(url);
            let first = match check_tunnel(&mut client, url, check, route.connect_timeout).await {
                Ok(first) => first,
                // The tunnel is open already: closing it is the only answer left.
                Err(reason) => return record(Verdict::Refused(&reason)),
            };
            match route.connect(addresses).await {
                Ok(server) => (server, first),
                Err(reason) => return record(Verdict::Failed(&reason)),
            }
        }
    };
    record(Verdict::Allowed);
    if server.write_all(&first).await.is_ok() {
        // The client's bytes already buffered past the head (a request body) go first.
        // 64 KiB buffers rather than tokio's 8 KiB: an eighth of the system calls on a
        // download (`cargo bench --bench exec -- egress`).
        let _ =
            tokio::io::copy_bidirectional_with_sizes(&mut client, &mut server, RELAY_BUFFER, RELAY_BUFFER)
                .await;
    }
}

/// Bytes each direction of a relayed connection reads at a time.
const RELAY_BUFFER: usize = 64 * 1024;

/// The method of a forwarded head (its first word).
fn method_of(head: &[u8]) -> &str {
    let end = head.iter().position(|byte| *byte == b' ').unwrap_or(0);
    std::str::from_utf8(&head[..end]).unwrap_or("?")
}

/// Reads what a tunnel's client sends first, as far as `check` needs to judge it, and
/// returns those bytes for the server, or why the tunnel may not go on.
async fn check_tunnel(
    client: &mut BufReader<TcpStream>,
    url: &Url,
    check: TunnelCheck,
    wait: Duration,
) -> Result<Vec<u8>, String> {
    let TunnelCheck::TlsNamingHost { plain } = check else {
        return Ok(Vec::new());
    };
    let mut first = Vec::new();
    let hello = tokio::time::timeout(wait, async {
        loop {
            match client_hello::server_name(&first) {
                Hello::Incomplete => {}
                judged => return Ok(judged),
            }
            let mut chunk = [0u8; 4096];
            match client.read(&mut chunk).await {
                Ok(0) | Err(_) => {
                    return Err("the client closed the tunnel before sending anything".to_owned());
                }
                Ok(read) => first.extend_from_slice(&chunk[..read]),
            }
        }
    })
    .await
    .map_err(|_| "the client sent no TLS ClientHello in time".to_owned())??;
    let host = url.host_str().unwrap_or_default();
    let is_name = matches!(url.host(), Some(Host::Domain(_)));
    match hello {
        Hello::Tls(Some(name)) if name.eq_ignore_ascii_case(host.trim_end_matches('.')) => Ok(first),
        Hello::Tls(Some(name)) => Err(format!(
            "the TLS ClientHello names `{name}`, not `{host}` the tunnel was opened to"
        )),
        Hello::Tls(None) if !is_name => Ok(first),
        Hello::Tls(None) => Err(format!(
            "the TLS ClientHello names no server (SNI); a tunnel to `{host}` must name it"
        )),
        Hello::NotTls if plain => Ok(first),
        Hello::NotTls => Err(format!(
            "the tunnel to `{host}` does not start TLS; plain traffic through CONNECT is allowed \
             only to a port listed explicitly"
        )),
        Hello::Malformed(reason) => Err(format!("the TLS ClientHello cannot be read: {reason}")),
        Hello::Incomplete => Err("the TLS ClientHello is incomplete".to_owned()),
    }
}

/// Reads the request line and headers, up to and including the empty line, and no more
/// than [`MAX_HEAD_BYTES`] of them.
async fn read_head(client: &mut BufReader<TcpStream>) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::new();
    let mut limited = (&mut *client).take(MAX_HEAD_BYTES as u64);
    loop {
        // Zero bytes: the client closed, or the head reached the limit.
        if limited.read_until(b'\n', &mut head).await? == 0 {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
        if head.ends_with(b"\r\n\r\n") || head == b"\r\n" || head.ends_with(b"\n\n") {
            return Ok(head);
        }
    }
}

/// Parses a request head sent to a proxy.
fn parse(head: &[u8]) -> Result<Request, String> {
    let text = std::str::from_utf8(head).map_err(|_| "the request head is not UTF-8".to_owned())?;
    let mut lines = text.lines();
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("`{request_line}` is not a request line"));
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        let url = tunnel_url(target).ok_or_else(|| format!("`{target}` is not a host and port"))?;
        return Ok(Request::Tunnel(url));
    }
    let url = Url::parse(target).map_err(|_| format!("`{target}` is not an absolute URL"))?;
    if url.scheme() != "http" {
        return Err(format!("only http URLs are forwarded, not `{}:`", url.scheme()));
    }
    let mut forwarded = format!(
        "{method} {} {version}\r\nHost: {}\r\n",
        origin_form(&url),
        authority(&url)
    );
    for line in lines.take_while(|line| !line.is_empty()) {
        let name = line.split(':').next().unwrap_or_default().trim();
        if !HOP_HEADERS.iter().any(|hop| name.eq_ignore_ascii_case(hop)) {
            forwarded.push_str(line);
            forwarded.push_str("\r\n");
        }
    }
    forwarded.push_str("Connection: close\r\n\r\n");
    Ok(Request::Forward(url, forwarded.into_bytes()))
}

/// `host` or `host:port` (the port only when the URL names one other than its scheme's).
fn authority(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

/// `/path?query`, what a server is sent in place of the absolute URL.
fn origin_form(url: &Url) -> String {
    match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    }
}

/// A CONNECT target, `host:port` and nothing else, as a URL (`https:` only lends the
/// parser its host rules; the port is the one asked for).
fn tunnel_url(target: &str) -> Option<Url> {
    let (host, port) = target.rsplit_once(':')?;
    let port: u16 = port.parse().ok()?;
    if host.is_empty() || host.contains(['@', '/', '\\', '?', '#']) {
        return None;
    }
    let mut url = Url::parse(&format!("https://{host}/")).ok()?;
    url.set_port(Some(port)).ok()?;
    Some(url)
}

/// The port a connection to `url` goes to.
pub(crate) fn port(url: &Url) -> u16 {
    url.port_or_known_default().unwrap_or(443)
}

/// Why a connection was not made.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The policy refused the host.
    Blocked(String),
    /// The host could not be resolved or reached.
    Unreachable(String),
}

impl From<SsrfGuardError> for Refusal {
    fn from(error: SsrfGuardError) -> Self {
        match error {
            SsrfGuardError::Blocked(reason) => Refusal::Blocked(reason),
            unresolvable @ SsrfGuardError::Unresolvable { .. } => {
                Refusal::Unreachable(unresolvable.to_string())
            }
        }
    }
}

impl<P> Route<P> {
    /// Connects to the first of the approved `addresses` that answers.
    async fn connect(&self, addresses: Vec<SocketAddr>) -> Result<TcpStream, String> {
        let mut last_error = String::from("no address to connect to");
        for address in addresses {
            match tokio::time::timeout(self.connect_timeout, TcpStream::connect(address)).await {
                Ok(Ok(stream)) => return Ok(stream),
                Ok(Err(error)) => last_error = format!("cannot connect to {address}: {error}"),
                Err(_) => last_error = format!("cannot connect to {address}: timed out"),
            }
        }
        Err(last_error)
    }
}

/// The SSRF guard alone, as Chromium's proxy applies it.
impl ProxyPolicy for SsrfGuard {
    async fn addresses(&self, target: &Url) -> Result<Vec<SocketAddr>, Refusal> {
        self.check_url(target)?;
        guarded_addresses(self, target).await
    }
}

/// The addresses of the URL's host as `guard` resolves them (a name) or as written (an
/// address, which the caller has judged), with the port to connect to: the URL's own if
/// it names one, else a trusted host's configured port, else the scheme's.
pub(crate) async fn guarded_addresses(guard: &SsrfGuard, url: &Url) -> Result<Vec<SocketAddr>, Refusal> {
    let mut addresses = match url.host() {
        Some(Host::Domain(name)) => guard.resolve(name).await?,
        Some(Host::Ipv4(ip)) => vec![SocketAddr::new(ip.into(), 0)],
        Some(Host::Ipv6(ip)) => vec![SocketAddr::new(ip.into(), 0)],
        None => return Err(Refusal::Blocked("the URL has no host".into())),
    };
    for address in &mut addresses {
        if url.port().is_some() || address.port() == 0 {
            address.set_port(port(url));
        }
    }
    Ok(addresses)
}

/// Answers the client with `status` and `reason` as a short text, then closes.
async fn answer(client: &mut BufReader<TcpStream>, status: &str, reason: &str) {
    let body = format!("agent-tools did not make this connection: {reason}\n");
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    // The client may be gone already; there is nobody else to tell.
    let _ = client.write_all(response.as_bytes()).await;
    let _ = client.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forwarded(head: &str) -> (String, String) {
        match parse(head.as_bytes()).unwrap() {
            Request::Forward(url, head) => (url.to_string(), String::from_utf8(head).unwrap()),
            Request::Tunnel(url) => panic!("a tunnel to {url}"),
        }
    }

    #[test]
    fn a_plain_request_is_forwarded_in_origin_form_without_hop_headers() {
        // The Host header the server gets is the URL's, whatever the client wrote.
        let (url, head) = forwarded(
            "GET http://example.com:8080/a/b?c=d HTTP/1.1\r\nHost: other.test\r\n\
             Proxy-Connection: keep-alive\r\nConnection: keep-alive\r\nAccept: */*\r\n\r\n",
        );
        assert_eq!(url, "http://example.com:8080/a/b?c=d");
        assert_eq!(
            head,
            "GET /a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        );
    }

    #[test]
    fn connect_names_a_host_and_port() {
        for (target, expected) in [
            ("example.com:443", "https://example.com/"),
            ("example.com:8443", "https://example.com:8443/"),
            ("[::1]:443", "https://[::1]/"),
            ("127.0.0.1:80", "https://127.0.0.1:80/"),
        ] {
            let request = parse(format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n").as_bytes());
            assert_eq!(
                request,
                Ok(Request::Tunnel(Url::parse(expected).unwrap())),
                "{target}"
            );
        }
    }

    #[test]
    fn malformed_requests_are_refused() {
        for (head, reason) in [
            (
                "CONNECT user@example.com:443 HTTP/1.1\r\n\r\n",
                "is not a host and port",
            ),
            (
                "CONNECT example.com:443/path HTTP/1.1\r\n\r\n",
                "is not a host and port",
            ),
            ("GET /relative HTTP/1.1\r\n\r\n", "is not an absolute URL"),
            (
                "GET ftp://example.com/ HTTP/1.1\r\n\r\n",
                "only http URLs are forwarded",
            ),
            ("GET http://example.com/\r\n\r\n", "is not a request line"),
        ] {
            let error = parse(head.as_bytes()).unwrap_err();
            assert!(
                error.ends_with(reason) || error.starts_with(reason),
                "{head:?}: {error}"
            );
        }
    }
}
