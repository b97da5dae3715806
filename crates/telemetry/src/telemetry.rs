//! [`Telemetry`]: the OTLP/HTTP exporters of spans and log records, and their providers.

use std::borrow::Cow;
use std::time::Duration;

use opentelemetry_otlp::{LogExporter, SpanExporter, WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::logs::SdkLoggerProvider;
use opentelemetry_sdk::resource::{EnvResourceDetector, ResourceDetector as _};
use opentelemetry_sdk::trace::SdkTracerProvider;

use crate::http_client::RuntimeClient;

/// The service name when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES`
/// names one.
const DEFAULT_SERVICE_NAME: &str = "agent-tools";

/// How long one export request may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why telemetry could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TelemetryError {
    /// An exporter could not be built (an endpoint that is not a URL, a protocol this
    /// build does not have).
    #[error("cannot set up the OTLP exporter: {0}")]
    Exporter(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The HTTP client could not be built (its TLS backend failed).
    #[error("cannot set up the OTLP exporter's HTTP client: {0}")]
    Client(#[source] reqwest::Error),
    /// [`TelemetryBuilder::build`] was called outside a tokio runtime.
    #[error("telemetry must be set up inside the tokio runtime that will export it")]
    NoRuntime,
}

/// The exporters and their providers. Cheap to clone; call [`shutdown`](Self::shutdown)
/// before the runtime ends, so that what is queued is sent.
#[derive(Debug, Clone)]
pub struct Telemetry {
    pub(crate) tracer_provider: SdkTracerProvider,
    pub(crate) logger_provider: SdkLoggerProvider,
}

/// Settings for [`Telemetry`]; everything not set here comes from the `OTEL_*`
/// variables.
#[derive(Debug, Default)]
#[must_use]
pub struct TelemetryBuilder {
    endpoint: Option<String>,
    service_name: Option<String>,
}

impl Telemetry {
    /// Telemetry configured by the `OTEL_*` variables, plus what the builder sets.
    pub fn builder() -> TelemetryBuilder {
        TelemetryBuilder::default()
    }

    /// Whether the environment names an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, or
    /// the traces' or logs' own): an application that exports only when asked builds
    /// telemetry then, or when its configuration gives an endpoint.
    pub fn endpoint_in_environment() -> bool {
        [
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
        ]
        .into_iter()
        .any(is_set)
    }

    /// Sends what is queued, then stops both exporters (at most about 5 seconds each):
    /// the batch processors export their queues as they shut down. The providers'
    /// shutdown blocks, so it runs on the blocking pool; the runtime must still be
    /// running.
    pub async fn shutdown(&self) {
        let telemetry = self.clone();
        let _ = tokio::task::spawn_blocking(move || {
            let _ = telemetry
                .tracer_provider
                .shutdown_with_timeout(Duration::from_secs(5));
            let _ = telemetry
                .logger_provider
                .shutdown_with_timeout(Duration::from_secs(5));
        })
        .await;
    }

    /// Sends what is queued now, without stopping (blocking pool, as
    /// [`shutdown`](Self::shutdown)).
    pub async fn flush(&self) {
        let telemetry = self.clone();
        let _ = tokio::task::spawn_blocking(move || {
            let _ = telemetry.tracer_provider.force_flush();
            let _ = telemetry.logger_provider.force_flush();
        })
        .await;
    }
}

impl TelemetryBuilder {
    /// The OTLP/HTTP endpoint (e.g. `http://collector:4318`), wins over
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`; `/v1/traces` and `/v1/logs` are appended. The
    /// signal-specific variables (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, …) still win for
    /// their signal.
    pub fn endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = Some(endpoint.into());
        self
    }

    /// The `service.name` when the environment names none (default `agent-tools`).
    pub fn service_name(mut self, name: impl Into<String>) -> Self {
        self.service_name = Some(name.into());
        self
    }

    /// Builds the exporters; `None` when `OTEL_SDK_DISABLED=true`. Must run inside the
    /// tokio runtime that will carry the exports.
    pub fn build(self) -> Result<Option<Telemetry>, TelemetryError> {
        if env_flag("OTEL_SDK_DISABLED") {
            return Ok(None);
        }
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| TelemetryError::NoRuntime)?;
        let client = reqwest::Client::builder()
            .timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(TelemetryError::Client)?;
        let http = RuntimeClient::new(client, runtime);
        let resource = self.resource();
        let exporter_error =
            |error: opentelemetry_otlp::ExporterBuildError| TelemetryError::Exporter(Box::new(error));

        let mut tracer_provider = SdkTracerProvider::builder().with_resource(resource.clone());
        if !env_lists("OTEL_TRACES_EXPORTER", "none") {
            let mut spans = SpanExporter::builder().with_http().with_http_client(http.clone());
            if let Some(endpoint) = self.signal_endpoint("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "v1/traces") {
                spans = spans.with_endpoint(endpoint);
            }
            tracer_provider = tracer_provider.with_batch_exporter(spans.build().map_err(exporter_error)?);
        }
        let mut logger_provider = SdkLoggerProvider::builder().with_resource(resource);
        if !env_lists("OTEL_LOGS_EXPORTER", "none") {
            let mut logs = LogExporter::builder().with_http().with_http_client(http);
            if let Some(endpoint) = self.signal_endpoint("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "v1/logs") {
                logs = logs.with_endpoint(endpoint);
            }
            logger_provider = logger_provider.with_batch_exporter(logs.build().map_err(exporter_error)?);
        }
        Ok(Some(Telemetry {
            tracer_provider: tracer_provider.build(),
            logger_provider: logger_provider.build(),
        }))
    }

    /// The endpoint of one signal given in code (`<endpoint>/<path>`), unless its own
    /// variable names one: an exporter given an endpoint in code uses it as is, so the
    /// path is added here, and the variable must keep winning as the specification says.
    fn signal_endpoint(&self, variable: &str, path: &str) -> Option<String> {
        if is_set(variable) {
            return None;
        }
        let base = self.endpoint.as_deref()?;
        Some(format!("{}/{path}", base.trim_end_matches('/')))
    }

    /// `service.name`: `OTEL_SERVICE_NAME`, else the one in `OTEL_RESOURCE_ATTRIBUTES`,
    /// else the builder's, else `agent-tools` (the SDK's own default would be
    /// `unknown_service`); the other resource attributes from the environment.
    fn resource(&self) -> Resource {
        let from_env = std::env::var("OTEL_SERVICE_NAME")
            .ok()
            .filter(|name| !name.trim().is_empty())
            .or_else(|| {
                EnvResourceDetector::new()
                    .detect()
                    .get(&opentelemetry::Key::from_static_str("service.name"))
                    .map(|value| value.to_string())
            });
        let name = match (from_env, &self.service_name) {
            (Some(name), _) => Cow::Owned(name),
            (None, Some(name)) => Cow::Owned(name.clone()),
            (None, None) => Cow::Borrowed(DEFAULT_SERVICE_NAME),
        };
        Resource::builder().with_service_name(name).build()
    }
}

/// Whether `name` is set to `true` (any case), as the specification reads booleans.
fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|value| value.trim().eq_ignore_ascii_case("true"))
}

/// Whether the comma-separated list in `name` holds `value`.
fn env_lists(name: &str, value: &str) -> bool {
    std::env::var(name).is_ok_and(|list| {
        list.split(',')
            .any(|item| item.trim().eq_ignore_ascii_case(value))
    })
}

/// Whether the environment variable holds something other than blanks.
fn is_set(variable: &str) -> bool {
    std::env::var(variable).is_ok_and(|value| !value.trim().is_empty())
}
