//! Where the command line's calls are seen from outside: the audit sinks (the JSONL file,
//! PostgreSQL, OTLP log records) and the OpenTelemetry span of each call.

use std::sync::Arc;

use agent_tools::postgres::{AuditOptions, PostgresAudit};
use agent_tools::telemetry::{OtelTracer, OtlpAudit, Telemetry};
use agent_tools::{audit::JsonlAudit, registry::ToolRegistryBuilder};

use super::{CliError, GlobalArgs, Io, Settings};

/// What records the calls, opened before the registry is built.
pub(super) struct Observers {
    jsonl: Option<Arc<JsonlAudit>>,
    postgres: Option<PostgresAudit>,
    telemetry: Option<Telemetry>,
    record_payloads: bool,
    otlp_audit: bool,
}

impl Observers {
    /// Opens what the flags and the configuration ask for; connects to PostgreSQL (and
    /// creates its table) now, so that a wrong URL stops the command before any call.
    pub(super) async fn open(global: &GlobalArgs, settings: &Settings) -> Result<Self, CliError> {
        let config = &settings.config;
        let telemetry = telemetry(config.telemetry.otlp_endpoint.as_deref())?;
        if config.audit.otlp && telemetry.is_none() {
            return Err(CliError(
                "[audit] otlp needs telemetry: set [telemetry] otlp_endpoint or OTEL_EXPORTER_OTLP_ENDPOINT \
                 (and not OTEL_SDK_DISABLED)"
                    .to_owned(),
            ));
        }
        Ok(Self {
            jsonl: jsonl(global, settings)?,
            postgres: postgres(&config.audit).await?,
            telemetry,
            record_payloads: config.telemetry.record_payloads,
            otlp_audit: config.audit.otlp,
        })
    }

    /// `builder` with the sinks and the tracer.
    pub(super) fn register(&self, mut builder: ToolRegistryBuilder) -> ToolRegistryBuilder {
        if let Some(jsonl) = &self.jsonl {
            builder = builder.audit(Arc::clone(jsonl));
        }
        if let Some(postgres) = &self.postgres {
            builder = builder.audit(postgres.clone());
        }
        if let Some(telemetry) = &self.telemetry {
            builder = builder.tracer(OtelTracer::new(telemetry).record_payloads(self.record_payloads));
            if self.otlp_audit {
                builder = builder.audit(OtlpAudit::new(telemetry));
            }
        }
        builder
    }

    /// Sends what telemetry has queued, and says on stderr what could not be recorded: a
    /// failed audit write never fails a call, but whoever relies on the log must hear of
    /// it.
    pub(super) async fn finish(self, io: &mut Io<'_>) {
        if let Some(telemetry) = &self.telemetry {
            telemetry.shutdown().await;
        }
        if let Some(jsonl) = &self.jsonl {
            let failed = jsonl.failed_writes();
            if failed > 0 {
                let path = jsonl.path().display();
                let _ = writeln!(
                    io.stderr,
                    "agent-tools: warning: {failed} audit event(s) could not be written to {path}"
                );
            }
        }
        if let Some(postgres) = &self.postgres {
            let failed = postgres.failed_events();
            if failed > 0 {
                let _ = writeln!(
                    io.stderr,
                    "agent-tools: warning: {failed} audit event(s) could not be stored in PostgreSQL"
                );
            }
        }
    }
}

/// The `--audit-log` (or config) file.
fn jsonl(global: &GlobalArgs, settings: &Settings) -> Result<Option<Arc<JsonlAudit>>, CliError> {
    let Some(path) = global.audit_log.as_ref().or(settings.config.audit_log.as_ref()) else {
        return Ok(None);
    };
    let audit = JsonlAudit::open(path)
        .map_err(|error| CliError(format!("cannot open audit log {}: {error}", path.display())))?;
    Ok(Some(Arc::new(audit)))
}

/// The audit table, when `[audit]` names a database.
async fn postgres(config: &super::AuditConfig) -> Result<Option<PostgresAudit>, CliError> {
    let url = match (&config.postgres_url, &config.postgres_url_env) {
        (Some(url), _) => url.clone(),
        (None, Some(variable)) => super::env_token(variable, "[audit] postgres_url_env")?,
        (None, None) => return Ok(None),
    };
    PostgresAudit::connect(&url, AuditOptions::default())
        .await
        .map(Some)
        .map_err(|error| CliError(format!("[audit] cannot use PostgreSQL: {error}")))
}

/// Telemetry, when an endpoint is configured or the environment names one.
fn telemetry(endpoint: Option<&str>) -> Result<Option<Telemetry>, CliError> {
    if endpoint.is_none() && !Telemetry::endpoint_in_environment() {
        return Ok(None);
    }
    let mut builder = Telemetry::builder();
    if let Some(endpoint) = endpoint {
        builder = builder.endpoint(endpoint);
    }
    builder
        .build()
        .map_err(|error| CliError(format!("[telemetry] {error}")))
}
