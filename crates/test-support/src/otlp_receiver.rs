//! An OpenTelemetry collector for the tests: an OTLP/HTTP receiver on loopback (axum)
//! decoding the protobuf bodies with the OpenTelemetry protocol's own types, keeping the
//! spans and log records it got.

use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use opentelemetry_proto::tonic::collector::logs::v1::{ExportLogsServiceRequest, ExportLogsServiceResponse};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value};
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use tokio::sync::mpsc;

/// What the receiver got.
enum Export {
    Traces(HeaderMap, ExportTraceServiceRequest),
    Logs(ExportLogsServiceRequest),
}

/// A running receiver and what it has collected so far (see [`Receiver::until`]).
pub struct Receiver {
    /// The receiver's base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`).
    pub url: String,
    exports: mpsc::UnboundedReceiver<Export>,
    /// The spans received.
    pub spans: Vec<Span>,
    /// The log records received.
    pub logs: Vec<LogRecord>,
    /// The headers of the first trace export.
    pub headers: Option<HeaderMap>,
    /// The resource attributes of the first trace export.
    pub resource: Vec<KeyValue>,
}

async fn receive_traces(
    State(sink): State<mpsc::UnboundedSender<Export>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match ExportTraceServiceRequest::decode(body) {
        Ok(request) => {
            let _ = sink.send(Export::Traces(headers, request));
            protobuf(ExportTraceServiceResponse::default().encode_to_vec())
        }
        Err(_) => StatusCode::BAD_REQUEST.into_response(),
    }
}

async fn receive_logs(State(sink): State<mpsc::UnboundedSender<Export>>, body: Bytes) -> Response {
    match ExportLogsServiceRequest::decode(body) {
        Ok(request) => {
            let _ = sink.send(Export::Logs(request));
            protobuf(ExportLogsServiceResponse::default().encode_to_vec())
        }
        Err(_) => StatusCode::BAD_REQUEST.into_response(),
    }
}

fn protobuf(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/x-protobuf")], body).into_response()
}

impl Receiver {
    /// A receiver on a free loopback port, serving from a task of the current runtime.
    pub async fn start() -> Self {
        let (sink, exports) = mpsc::unbounded_channel();
        let app = Router::new()
            .route("/v1/traces", post(receive_traces))
            .route("/v1/logs", post(receive_logs))
            .with_state(sink);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            url,
            exports,
            spans: Vec::new(),
            logs: Vec::new(),
            headers: None,
            resource: Vec::new(),
        }
    }

    /// Takes exports until `done` holds of what arrived (or a minute passes).
    pub async fn until(&mut self, done: impl Fn(&Self) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        while !done(self) {
            let export = tokio::time::timeout_at(deadline, self.exports.recv())
                .await
                .expect("the exports arrive within a minute")
                .expect("the receiver runs");
            match export {
                Export::Traces(headers, request) => {
                    for resource_spans in request.resource_spans {
                        if self.headers.is_none() {
                            self.headers = Some(headers.clone());
                            self.resource = resource_spans.resource.clone().unwrap_or_default().attributes;
                        }
                        for scope in resource_spans.scope_spans {
                            self.spans.extend(scope.spans);
                        }
                    }
                }
                Export::Logs(request) => {
                    for resource_logs in request.resource_logs {
                        for scope in resource_logs.scope_logs {
                            self.logs.extend(scope.log_records);
                        }
                    }
                }
            }
        }
    }

    /// The span named `name`; fails the test, listing the names, when there is none.
    pub fn span(&self, name: &str) -> &Span {
        self.spans
            .iter()
            .find(|span| span.name == name)
            .unwrap_or_else(|| {
                panic!(
                    "no span {name}: {:?}",
                    self.spans.iter().map(|s| &s.name).collect::<Vec<_>>()
                )
            })
    }
}

/// `bytes` in lower-case hexadecimal (trace and span ids as W3C headers write them).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The value of attribute `key`, as text.
pub fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    let value = attributes
        .iter()
        .find(|kv| kv.key == key)?
        .value
        .as_ref()?
        .value
        .as_ref()?;
    Some(match value {
        any_value::Value::StringValue(text) => text.clone(),
        any_value::Value::IntValue(int) => int.to_string(),
        any_value::Value::DoubleValue(double) => double.to_string(),
        any_value::Value::BoolValue(bool) => bool.to_string(),
        other => format!("{other:?}"),
    })
}
