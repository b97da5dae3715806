//! The guarded proxy, spoken to over real sockets as a browser would: private targets are
//! refused without a connection, a trusted host is reached both ways.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use super::serve;
use crate::web::FetchConfig;
use crate::web::proxy::GuardedProxy;
use crate::web::ssrf_guard::SsrfGuard;

async fn proxy(config: &FetchConfig) -> GuardedProxy {
    GuardedProxy::start(SsrfGuard::new(config), Duration::from_secs(5))
        .await
        .unwrap()
}

/// Sends `request` to the proxy and reads everything until it closes the connection.
async fn exchange(proxy: &GuardedProxy, request: &str) -> String {
    let mut stream = TcpStream::connect(proxy.addr()).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response))
        .await
        .expect("the proxy closes the connection")
        .unwrap();
    String::from_utf8(response).unwrap()
}

/// A listener on loopback that only counts the connections made to it.
async fn counting_listener() -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let counted = count.clone();
    tokio::spawn(async move {
        while listener.accept().await.is_ok() {
            counted.fetch_add(1, Ordering::SeqCst);
        }
    });
    (addr, count)
}

async fn page_server() -> SocketAddr {
    let app = Router::new()
        .route("/hello", get(|| async { "hello through the proxy" }))
        .route(
            "/echo",
            post(|body: String| async move { format!("echo: {body}") }),
        );
    serve(app).await
}

#[tokio::test]
async fn private_targets_are_refused_without_a_connection() {
    let (private, connections) = counting_listener().await;
    let proxy = proxy(&FetchConfig::default()).await;
    let port = private.port();
    for (request, reason) in [
        (
            format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n"),
            "127.0.0.1 is a loopback address",
        ),
        (
            format!("GET http://127.0.0.1:{port}/ HTTP/1.1\r\nHost: x\r\n\r\n"),
            "127.0.0.1 is a loopback address",
        ),
        // The encodings a browser would normalize are judged by the address they mean.
        (
            format!("GET http://0x7f.1:{port}/ HTTP/1.1\r\n\r\n"),
            "127.0.0.1 is a loopback address",
        ),
        (
            format!("CONNECT localhost:{port} HTTP/1.1\r\n\r\n"),
            "`localhost` names this machine",
        ),
        (
            format!("CONNECT [::1]:{port} HTTP/1.1\r\n\r\n"),
            "[::1] is a loopback address",
        ),
        (
            "CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n".to_owned(),
            "169.254.169.254 is a cloud metadata address",
        ),
    ] {
        let response = exchange(&proxy, &request).await;
        assert!(
            response.starts_with("HTTP/1.1 403 Forbidden\r\n"),
            "{request:?}: {response}"
        );
        assert!(response.contains(reason), "{request:?}: {response}");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_trusted_host_is_reached_by_forwarding_and_by_tunnel() {
    let server = page_server().await;
    let port = server.port();
    let proxy = proxy(&FetchConfig::default().trusted_host("page.test", server)).await;

    let response = exchange(&proxy, &format!("GET http://page.test:{port}/hello HTTP/1.1\r\nHost: page.test\r\nProxy-Connection: keep-alive\r\n\r\n")).await;
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    assert!(response.ends_with("hello through the proxy"), "{response}");

    // Without a port in the URL, the trusted address's port is used.
    let response = exchange(
        &proxy,
        "GET http://page.test/hello HTTP/1.1\r\nHost: page.test\r\n\r\n",
    )
    .await;
    assert!(response.ends_with("hello through the proxy"), "{response}");

    // A body already sent with the head is forwarded with it.
    let request = format!(
        "POST http://page.test:{port}/echo HTTP/1.1\r\nHost: page.test\r\nContent-Type: text/plain\r\n\
         Content-Length: 5\r\n\r\nabcde"
    );
    let response = exchange(&proxy, &request).await;
    assert!(response.ends_with("echo: abcde"), "{response}");

    let tunnel = format!(
        "CONNECT page.test:{port} HTTP/1.1\r\nHost: page.test:{port}\r\n\r\n\
         GET /hello HTTP/1.1\r\nHost: page.test\r\nConnection: close\r\n\r\n"
    );
    let response = exchange(&proxy, &tunnel).await;
    assert!(
        response.starts_with("HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200 OK\r\n"),
        "{response}"
    );
    assert!(response.ends_with("hello through the proxy"), "{response}");
}

#[tokio::test]
async fn bad_requests_and_unreachable_hosts_are_answered() {
    let closed = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let proxy = proxy(&FetchConfig::default().trusted_host("gone.test", closed)).await;
    let response = exchange(&proxy, "GET http://gone.test/ HTTP/1.1\r\n\r\n").await;
    assert!(response.starts_with("HTTP/1.1 502 Bad Gateway\r\n"), "{response}");
    assert!(
        response.contains(&format!("cannot connect to {closed}")),
        "{response}"
    );

    let response = exchange(&proxy, "GET /not-absolute HTTP/1.1\r\n\r\n").await;
    assert!(response.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{response}");
    assert!(
        response.contains("`/not-absolute` is not an absolute URL"),
        "{response}"
    );
}

#[tokio::test]
async fn an_endless_request_head_is_cut_off() {
    let proxy = proxy(&FetchConfig::default()).await;
    let mut stream = TcpStream::connect(proxy.addr()).await.unwrap();
    // 100 KiB with no end of line: the proxy stops reading at 64 KiB and hangs up. Our
    // write may fail once it has, which is fine.
    let _ = stream.write_all(&vec![b'a'; 100 * 1024]).await;
    let mut response = Vec::new();
    let ended = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response)).await;
    assert!(ended.is_ok(), "the proxy kept the connection open");
    assert!(response.is_empty(), "{}", String::from_utf8_lossy(&response));
}

#[tokio::test]
async fn a_dropped_proxy_stops_listening() {
    let proxy = proxy(&FetchConfig::default()).await;
    let addr = proxy.addr();
    drop(proxy);
    for _ in 0..500 {
        if TcpStream::connect(addr).await.is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the proxy still accepts connections on {addr}");
}
