//! The SSRF guard: refused literals and names, hop-by-hop re-checks of redirects,
//! credentials across origins.

use std::io::ErrorKind;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::header::LOCATION;
use axum::http::{HeaderMap as AxumHeaders, StatusCode};
use axum::routing::get;
use reqwest::header::{AUTHORIZATION, COOKIE, HeaderMap, HeaderValue, PROXY_AUTHORIZATION};

use super::{FetchFormat, args, ctx, fetch_as, serve, short_fetcher};
use crate::web::{FetchConfig, FetchError, Fetcher, web_fetch};

/// A loopback listener that never accepts by itself, so a test can ask whether anyone
/// connected: the kernel completes a client's connect into the backlog.
struct Tripwire(TcpListener);

impl Tripwire {
    fn new() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        Self(listener)
    }

    fn port(&self) -> u16 {
        self.0.local_addr().unwrap().port()
    }

    fn was_connected(&self) -> bool {
        match self.0.accept() {
            Ok(_) => true,
            Err(error) if error.kind() == ErrorKind::WouldBlock => false,
            Err(error) => panic!("accept failed: {error}"),
        }
    }
}

/// Encodings of 127.0.0.1 (and the same address in IPv6 clothing) that a URL may use.
const LOOPBACK_SPELLINGS: [&str; 8] = [
    "127.0.0.1",
    "2130706433",
    "0x7f.1",
    "127.1",
    "0177.0.0.1",
    "0x7f000001",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
];

#[tokio::test]
async fn every_spelling_of_loopback_is_refused_without_connecting() {
    let tripwire = Tripwire::new();
    let fetcher = short_fetcher(FetchConfig::default());
    for host in LOOPBACK_SPELLINGS {
        let url = format!("http://{host}:{}/", tripwire.port());
        let error = fetch_as(&fetcher, &url, FetchFormat::Raw).await.unwrap_err();
        assert!(error.starts_with("refused to fetch"), "{url}: {error}");
        assert!(error.contains("a loopback address"), "{url}: {error}");
        assert!(!tripwire.was_connected(), "{url} connected");
    }
}

#[tokio::test]
async fn the_tripwire_does_see_an_unguarded_fetch() {
    // The control for the test above: the same spellings do reach the listener when the
    // guard is off, so "not connected" there means the guard stopped them.
    let tripwire = Tripwire::new();
    let config = FetchConfig::default()
        .allow_private_network(true)
        .timeout(Duration::from_millis(200));
    let fetcher = Fetcher::new(config).unwrap();
    for host in &LOOPBACK_SPELLINGS[..6] {
        let url = format!("http://{host}:{}/", tripwire.port());
        let error = fetch_as(&fetcher, &url, FetchFormat::Raw).await.unwrap_err();
        assert!(error.starts_with("timed out after 0.2 s"), "{url}: {error}");
        assert!(tripwire.was_connected(), "{url} did not connect");
    }
}

#[tokio::test]
async fn other_special_addresses_are_refused() {
    let fetcher = short_fetcher(FetchConfig::default());
    for (url, reason) in [
        ("http://[::1]/", "a loopback address"),
        ("http://0/", "a \"this network\" address"),
        ("http://0.0.0.0:8080/", "a \"this network\" address"),
        ("http://[::]/", "the unspecified address"),
        ("http://10.0.0.1/", "a private address"),
        ("http://172.20.1.1/", "a private address"),
        ("http://192.168.0.1/admin", "a private address"),
        ("http://100.64.0.1/", "a shared (CGNAT) address"),
        (
            "http://169.254.169.254/latest/meta-data/",
            "a cloud metadata address",
        ),
        ("http://[fd00:ec2::254]/", "a cloud metadata address"),
        ("http://100.100.100.200/", "a cloud metadata address"),
        ("http://169.254.10.10/", "a link-local address"),
        ("http://[fe80::1]/", "a link-local address"),
        ("http://[fc00::1]/", "a private (unique local) address"),
        ("http://224.0.0.1/", "a multicast address"),
        ("http://255.255.255.255/", "the broadcast address"),
        ("http://192.0.2.1/", "a documentation address"),
        ("http://[2001:db8::1]/", "a documentation address"),
        ("http://198.18.0.1/", "a benchmarking address"),
        ("http://240.0.0.1/", "a reserved address"),
        ("http://[64:ff9b::7f00:1]/", "a loopback address"),
        ("http://[2002:a00:1::]/", "a private address"),
        ("http://[::127.0.0.1]/", "a loopback address"),
        ("https://0xa9.0xfe.0xa9.0xfe/", "a cloud metadata address"),
        ("http://127.0.0.1./", "a loopback address"),
    ] {
        let error = fetch_as(&fetcher, url, FetchFormat::Raw).await.unwrap_err();
        assert!(error.contains(reason), "{url}: {error}");
    }
}

#[tokio::test]
async fn localhost_names_are_refused_without_resolving() {
    let fetcher = short_fetcher(FetchConfig::default());
    for url in [
        "http://localhost/",
        "http://LOCALHOST:8080/",
        "http://localhost./",
        "http://foo.localhost/",
        "http://a.b.localhost/x",
    ] {
        let error = fetch_as(&fetcher, url, FetchFormat::Raw).await.unwrap_err();
        assert!(error.contains("names this machine"), "{url}: {error}");
    }
}

#[tokio::test]
async fn names_are_judged_by_every_address_they_resolve_to() {
    let public = IpAddr::V4(Ipv4Addr::new(93, 184, 215, 14));
    let config = FetchConfig::default()
        .static_host("intranet.test", &[IpAddr::V4(Ipv4Addr::new(10, 1, 2, 3))])
        .static_host("mixed.test", &[public, IpAddr::V4(Ipv4Addr::LOCALHOST)])
        .static_host("mapped.test", &["::ffff:192.168.1.1".parse().unwrap()]);
    let fetcher = short_fetcher(config);
    for (url, reason) in [
        (
            "http://intranet.test/",
            "`intranet.test` resolves to 10.1.2.3, a private address",
        ),
        (
            "https://mixed.test/",
            "`mixed.test` resolves to 127.0.0.1, a loopback address",
        ),
        (
            "http://MAPPED.test./",
            "resolves to ::ffff:192.168.1.1, a private address",
        ),
    ] {
        let error = fetch_as(&fetcher, url, FetchFormat::Raw).await.unwrap_err();
        assert!(
            error.starts_with(&format!("refused to fetch {}", url.to_lowercase())),
            "{error}"
        );
        assert!(error.contains(reason), "{url}: {error}");
    }
}

#[tokio::test]
async fn only_http_and_https_are_fetched() {
    let fetcher = short_fetcher(FetchConfig::default().allow_private_network(true));
    for url in [
        "file:///etc/passwd",
        "ftp://example.com/",
        "gopher://127.0.0.1:70/",
    ] {
        let error = web_fetch(&fetcher, args(url), &ctx()).await.unwrap_err();
        assert!(
            error.to_string().contains("only http and https"),
            "{url}: {error}"
        );
        assert_eq!(
            error.kind(),
            agent_tools_core::error::ToolErrorKind::InvalidArguments
        );
    }
    let error = web_fetch(&fetcher, args("not a url"), &ctx()).await.unwrap_err();
    assert!(error.to_string().contains("is not a valid URL"), "{error}");
}

/// Counts the requests that reach `/secret`.
#[derive(Clone, Default)]
struct Hits(Arc<AtomicUsize>);

fn redirect(to: String) -> (StatusCode, [(axum::http::HeaderName, String); 1]) {
    (StatusCode::FOUND, [(LOCATION, to)])
}

/// A server whose `/to?…` path redirects wherever `/to/{target}` says (the target
/// percent-decoded), with a `/secret` that counts its visitors.
async fn redirecting_server() -> (SocketAddr, Hits) {
    let hits = Hits::default();
    let app = Router::new()
        .route("/hello", get(|| async { "hello from a trusted host" }))
        .route(
            "/secret",
            get(|State(hits): State<Hits>| async move {
                hits.0.fetch_add(1, Ordering::SeqCst);
                "the secret"
            }),
        )
        .route(
            "/to/{*target}",
            get(|Path(target): Path<String>| async move { redirect(target) }),
        )
        .with_state(hits.clone());
    (serve(app).await, hits)
}

#[tokio::test]
async fn a_trusted_host_is_reachable_but_its_redirect_to_loopback_is_refused() {
    let (addr, hits) = redirecting_server().await;
    let fetcher = short_fetcher(FetchConfig::default().trusted_host("wiki.test", addr));
    let page = fetch_as(&fetcher, "http://wiki.test/hello", FetchFormat::Raw)
        .await
        .unwrap();
    assert!(page.contains("hello from a trusted host"), "{page}");

    let secret = format!("http://127.0.0.1:{}/secret", addr.port());
    let error = fetch_as(
        &fetcher,
        &format!("http://wiki.test/to/{secret}"),
        FetchFormat::Raw,
    )
    .await
    .unwrap_err();
    assert_eq!(
        error,
        format!(
            "refused to fetch {secret}: 127.0.0.1 is a loopback address; only public internet addresses \
             can be fetched (reached by a redirect from http://wiki.test/to/{secret})"
        )
    );
    // A redirect to a name that resolves to a private address is refused as well.
    let error = fetch_as(
        &fetcher,
        "http://wiki.test/to/http://localhost/secret",
        FetchFormat::Raw,
    )
    .await
    .unwrap_err();
    assert!(error.contains("`localhost` names this machine"), "{error}");
    assert_eq!(hits.0.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_redirect_to_another_scheme_is_refused() {
    let (addr, _) = redirecting_server().await;
    let fetcher = short_fetcher(FetchConfig::default().trusted_host("wiki.test", addr));
    let error = fetch_as(
        &fetcher,
        "http://wiki.test/to/file:///etc/passwd",
        FetchFormat::Raw,
    )
    .await
    .unwrap_err();
    assert_eq!(
        error,
        "refused to fetch file:///etc/passwd: only http and https URLs can be fetched \
         (reached by a redirect from http://wiki.test/to/file:///etc/passwd)"
    );
}

#[tokio::test]
async fn at_most_five_redirects_are_followed() {
    let app = Router::new().route(
        "/chain/{left}",
        get(|Path(left): Path<u32>| async move {
            match left {
                0 => Err("the end of the chain"),
                left => Ok(redirect(format!("/chain/{}", left - 1))),
            }
        }),
    );
    let addr = serve(app).await;
    let fetcher = short_fetcher(FetchConfig::default().trusted_host("chain.test", addr));
    let five = fetch_as(&fetcher, "http://chain.test/chain/5", FetchFormat::Raw)
        .await
        .unwrap();
    assert!(five.contains("the end of the chain"), "{five}");
    assert!(
        five.contains("Redirected from: http://chain.test/chain/5"),
        "{five}"
    );

    let six = fetcher
        .fetch("http://chain.test/chain/6", HeaderMap::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&six, FetchError::TooManyRedirects { max: 5, url } if url == "http://chain.test/chain/0"),
        "{six:?}"
    );
    assert!(six.to_string().starts_with("stopped after 5 redirects"), "{six}");
}

/// Which credential headers a request carried, as the server saw them.
fn credentials_seen(headers: &AxumHeaders) -> String {
    let names = [AUTHORIZATION, COOKIE, PROXY_AUTHORIZATION];
    let seen: Vec<&str> = names
        .iter()
        .filter(|name| headers.contains_key(*name))
        .map(|name| name.as_str())
        .collect();
    format!("credentials: [{}]", seen.join(", "))
}

#[tokio::test]
async fn credentials_are_dropped_when_a_redirect_leaves_the_origin() {
    let app = Router::new()
        .route("/start", get(|| async { redirect("/same".into()) }))
        .route(
            "/same",
            get(|headers: AxumHeaders| async move {
                match credentials_seen(&headers).as_str() {
                    "credentials: [authorization, cookie, proxy-authorization]" => {
                        Ok(redirect("http://other.test/elsewhere".into()))
                    }
                    seen => Err(format!("the same origin lost credentials: {seen}")),
                }
            }),
        )
        .route(
            "/elsewhere",
            get(|headers: AxumHeaders| async move { credentials_seen(&headers) }),
        );
    let addr = serve(app).await;
    let config = FetchConfig::default()
        .trusted_host("api.test", addr)
        .trusted_host("other.test", addr);
    let fetcher = short_fetcher(config);
    let mut headers = HeaderMap::new();
    headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer secret-token"));
    headers.insert(COOKIE, HeaderValue::from_static("session=abc"));
    headers.insert(PROXY_AUTHORIZATION, HeaderValue::from_static("Basic cHJveHk="));
    headers.insert("x-request-id", HeaderValue::from_static("42"));
    let fetched = fetcher.fetch("http://api.test/start", headers).await.unwrap();
    assert_eq!(fetched.url.as_str(), "http://other.test/elsewhere");
    assert_eq!(String::from_utf8_lossy(&fetched.body), "credentials: []");
}
