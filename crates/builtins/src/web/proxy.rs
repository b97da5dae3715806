//! A forward proxy that holds every connection to the SSRF guard, for programs that
//! fetch on their own.
//!
//! Headless Chromium loads a page's redirects, frames, images, scripts and WebSockets
//! itself; the guard on the URL a model gave cannot see those. Started with this proxy
//! as its only way out, Chromium has each of those connections checked exactly like
//! `web_fetch`'s own: IP literals by address, host names by every address they resolve
//! to, trusted hosts by their configured address.
//!
//! It speaks the two forms browsers send a proxy. `CONNECT host:port` (HTTPS, secure
//! WebSockets) becomes a tunnel to the checked address. An absolute-form request
//! (`GET http://host/path HTTP/1.1`, plain HTTP) is forwarded in origin form with
//! `Connection: close`, so that each request comes on a connection of its own and is
//! checked on its own: a server must not act on requests that follow one marked `close`
//! (RFC 9112, 9.6), so a second request pipelined behind the first goes nowhere new. The proxy resolves the host itself and connects to the address it
//! approved, so no second lookup can rebind the name. A refused connection is answered
//! `403 Forbidden` with the guard's reason; one that cannot be made, `502 Bad Gateway`.
//!
//! It listens on an ephemeral port of 127.0.0.1 for as long as its owner keeps it; dropping
//! it stops the listener and every connection it carries.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};
use url::{Host, Url};

use super::ssrf_guard::SsrfGuard;

/// The most a request line and its headers may take.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// How long to wait before accepting again after `accept` failed.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// Headers about the hop to the proxy, not meant for the server.
const HOP_HEADERS: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authorization",
    "proxy-connection",
];

/// A running guarded proxy; stops when dropped.
#[derive(Debug)]
pub(crate) struct GuardedProxy {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl GuardedProxy {
    /// Starts a proxy on 127.0.0.1 that lets connections through `guard`, each given
    /// `connect_timeout` to reach its server.
    pub(crate) async fn start(guard: SsrfGuard, connect_timeout: Duration) -> std::io::Result<Self> {
        let listener = TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let route = Arc::new(Route {
            guard,
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
struct Route {
    guard: SsrfGuard,
    connect_timeout: Duration,
}

async fn accept(listener: TcpListener, route: Arc<Route>) {
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

async fn serve(client: TcpStream, route: Arc<Route>) {
    let mut client = BufReader::new(client);
    let Ok(head) = read_head(&mut client).await else {
        return;
    };
    let request = match parse(&head) {
        Ok(request) => request,
        Err(reason) => return answer(&mut client, "400 Bad Request", &reason).await,
    };
    let url = match &request {
        Request::Tunnel(url) | Request::Forward(url, _) => url,
    };
    let mut server = match route.connect(url).await {
        Ok(server) => server,
        Err(Refusal::Blocked(reason)) => return answer(&mut client, "403 Forbidden", &reason).await,
        Err(Refusal::Unreachable(reason)) => return answer(&mut client, "502 Bad Gateway", &reason).await,
    };
    let started = match &request {
        Request::Tunnel(_) => {
            client
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await
        }
        Request::Forward(_, head) => server.write_all(head).await,
    };
    if started.is_ok() {
        // The client's bytes already buffered past the head (a request body) go first.
        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
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
    let mut forwarded = format!("{method} {} {version}\r\n", origin_form(&url));
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

fn port(url: &Url) -> u16 {
    url.port_or_known_default().unwrap_or(443)
}

/// Why a connection was not made.
#[derive(Debug)]
enum Refusal {
    /// The guard refused the host.
    Blocked(String),
    /// The host could not be resolved or reached.
    Unreachable(String),
}

impl Route {
    /// Connects to the URL's host, at an address the guard approved.
    async fn connect(&self, url: &Url) -> Result<TcpStream, Refusal> {
        let addresses = self.addresses(url).await?;
        let mut last_error = String::from("no address to connect to");
        for address in addresses {
            match tokio::time::timeout(self.connect_timeout, TcpStream::connect(address)).await {
                Ok(Ok(stream)) => return Ok(stream),
                Ok(Err(error)) => last_error = format!("cannot connect to {address}: {error}"),
                Err(_) => last_error = format!("cannot connect to {address}: timed out"),
            }
        }
        Err(Refusal::Unreachable(last_error))
    }

    /// The approved addresses of the URL's host, with the port to connect to: the URL's
    /// own if it names one, else a trusted host's configured port, else the default.
    async fn addresses(&self, url: &Url) -> Result<Vec<SocketAddr>, Refusal> {
        use super::ssrf_guard::SsrfGuardError;
        let refusal = |error: SsrfGuardError| match error {
            SsrfGuardError::Blocked(reason) => Refusal::Blocked(reason),
            unresolvable @ SsrfGuardError::Unresolvable { .. } => {
                Refusal::Unreachable(unresolvable.to_string())
            }
        };
        self.guard.check_url(url).map_err(refusal)?;
        let mut addresses = match url.host() {
            Some(Host::Domain(name)) => self.guard.resolve(name).await.map_err(refusal)?,
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
        let (url, head) = forwarded(
            "GET http://example.com:8080/a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\n\
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
