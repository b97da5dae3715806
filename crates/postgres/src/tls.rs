//! TLS for PostgreSQL connections: rustls with the platform's certificate verifier (the
//! system's trusted roots), the same stack reqwest uses for the web tools.
//!
//! `sslmode` in the URL decides whether TLS is used: `disable` never, `prefer` (the
//! default) when the server offers it, `require` always. Unlike libpq's `require`, which
//! accepts any certificate, a certificate is always verified here: a server with a
//! self-signed certificate needs its CA in the system's trust store, or `sslmode=disable`
//! on a network where that is safe.

use std::sync::Arc;

use rustls::ClientConfig;
use rustls_platform_verifier::BuilderVerifierExt as _;
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::Error;

/// The connector every pooled connection uses.
pub(crate) fn connector() -> Result<MakeRustlsConnect, Error> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|builder| builder.with_platform_verifier())
        .map_err(Error::Tls)?
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}
