//! `web_fetch` over HTTPS, against a TLS server on loopback whose certificate a test CA
//! issued (see `tls/README.md`): trusted when the CA is configured, refused otherwise.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::pem::PemObject as _;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::{fetch_as, short_fetcher};
use crate::SetupError;
use crate::web::{FetchConfig, FetchFormat, Fetcher};

const CA: &str = include_str!("tls/ca.pem");
const CERTIFICATE: &str = include_str!("tls/wiki.test.pem");
const KEY: &str = include_str!("tls/wiki.test.key");

/// Serves one fixed page over TLS as `wiki.test`, to every connection, until the
/// test's runtime ends.
async fn serve_tls() -> SocketAddr {
    let certificate = CertificateDer::from_pem_slice(CERTIFICATE.as_bytes()).unwrap();
    let key = PrivateKeyDer::from_pem_slice(KEY.as_bytes()).unwrap();
    let config = ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![certificate], key)
        .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                // A client that rejects the certificate ends the handshake; nothing to do.
                let Ok(mut stream) = acceptor.accept(stream).await else {
                    return;
                };
                let mut request = [0; 4096];
                let _ = stream.read(&mut request).await;
                let body = "hello over TLS";
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    addr
}

#[tokio::test]
async fn a_site_of_a_configured_private_ca_is_fetched_over_https() {
    let addr = serve_tls().await;
    let config = FetchConfig::default()
        .trusted_host("wiki.test", addr)
        .root_certificate_pem(CA);
    let url = format!("https://wiki.test:{}/page", addr.port());
    let page = fetch_as(&short_fetcher(config), &url, FetchFormat::Raw)
        .await
        .unwrap();
    assert!(page.contains("hello over TLS"), "{page}");
}

#[tokio::test]
async fn a_certificate_no_trusted_ca_issued_is_refused() {
    let addr = serve_tls().await;
    let config = FetchConfig::default().trusted_host("wiki.test", addr);
    let url = format!("https://wiki.test:{}/page", addr.port());
    let error = fetch_as(&short_fetcher(config), &url, FetchFormat::Raw)
        .await
        .unwrap_err();
    assert!(error.starts_with(&format!("fetching {url} failed")), "{error}");
    assert!(error.contains("certificate"), "{error}");
}

#[test]
fn a_root_certificate_that_is_not_pem_is_refused() {
    let config = FetchConfig::default()
        .root_certificate_pem(CA)
        .root_certificate_pem("not a certificate");
    let error = Fetcher::new(config).err().unwrap();
    assert!(
        matches!(error, SetupError::Certificate { number: 2 }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "invalid web_fetch settings: root certificate 2 holds no PEM certificate"
    );
}
