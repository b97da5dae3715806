//! The exporters' HTTP client: reqwest (rustls), driven on the application's runtime.
//!
//! The SDK's batch processors export from threads of their own, where an async
//! `reqwest::Client` has no tokio reactor and panics. So each request is spawned onto
//! the runtime that built the telemetry, and the export thread waits for its
//! `JoinHandle`, which any executor can poll.

use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};

/// A `reqwest::Client` whose requests run on a given tokio runtime.
#[derive(Debug, Clone)]
pub(crate) struct RuntimeClient {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

impl RuntimeClient {
    /// `client` on `runtime`.
    pub(crate) fn new(client: reqwest::Client, runtime: tokio::runtime::Handle) -> Self {
        Self { client, runtime }
    }
}

#[async_trait::async_trait]
impl HttpClient for RuntimeClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let client = self.client.clone();
        self.runtime
            .spawn(async move { client.send_bytes(request).await })
            .await?
    }
}
