//! Spans and audit records as a collector receives them: an OTLP/HTTP receiver in the
//! test (axum on loopback, decoding the protobuf bodies with the OpenTelemetry protocol's
//! own types), and a real chain of MCP servers over HTTP — a client, a gateway serving a
//! mounted server's tools, and the mounted server — each registry tracing its calls.

use std::collections::HashMap;
use std::process::Command;

use agent_tools_core::{
    ToolCall, ToolContext, ToolError, ToolRegistry, tool::DynamicTool, trace::TraceContext,
};
use agent_tools_mcp::{HttpOptions, McpHandler, McpServer, MountMcp as _, MountOptions};
use agent_tools_telemetry::{OtelTracer, OtlpAudit, Telemetry};
use opentelemetry_proto::tonic::trace::v1::{Span, span, status};
use serde_json::{Value, json};

use otlp_receiver::{Receiver, attribute, hex};
use test_support::otlp_receiver;

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

/// A registry with `echo` and `fail`, traced by `tracer`.
fn registry(tracer: OtelTracer, audit: Option<OtlpAudit>) -> ToolRegistry {
    let mut builder = ToolRegistry::builder().tracer(tracer);
    if let Some(audit) = audit {
        builder = builder.audit(audit);
    }
    let registry = builder.build();
    let schema =
        json!({"type": "object", "properties": {"text": {"type": "string"}, "api_key": {"type": "string"}}});
    let echo = DynamicTool::new(
        "echo",
        "Says it back.",
        schema.clone(),
        |args: Value, _: ToolContext| async move {
            Ok::<_, ToolError>(format!("echo: {}", args["text"].as_str().unwrap_or_default()))
        },
    );
    let fail = DynamicTool::new("fail", "Fails.", schema, |_: Value, _: ToolContext| async move {
        Err::<String, _>(ToolError::new("the disk is on fire"))
    });
    registry.register(echo).unwrap();
    registry.register(fail).unwrap();
    registry
}

fn telemetry(receiver: &Receiver) -> Telemetry {
    Telemetry::builder()
        .endpoint(&receiver.url)
        .build()
        .expect("telemetry builds")
        .expect("telemetry is not disabled")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_trace_runs_from_the_client_through_a_gateway_to_the_mounted_server() {
    let mut receiver = Receiver::start().await;
    let telemetry = telemetry(&receiver);
    // The mounted server: a registry of its own, served over HTTP.
    let backend = McpHandler::new(registry(OtelTracer::new(&telemetry), None))
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    // The gateway: serves the mounted server's tools, audits to the logs pipeline.
    let gateway_registry = registry(OtelTracer::new(&telemetry), Some(OtlpAudit::new(&telemetry)));
    gateway_registry
        .mount_mcp(McpServer::http(backend.url()), MountOptions::new().prefix("b_"))
        .await
        .unwrap();
    let gateway = McpHandler::new(gateway_registry)
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    // The client: its call carries the trace it belongs to.
    let client = ToolRegistry::new();
    client
        .mount_mcp(McpServer::http(gateway.url()), MountOptions::new().prefix("g_"))
        .await
        .unwrap();
    let parent = TraceContext::parse(&format!("00-{TRACE_ID}-{PARENT_ID}-01"), Some("rojo=1")).unwrap();
    let result = client
        .call(ToolCall::new("c1", "g_b_echo", json!({"text": "hi"})).with_trace_context(parent))
        .await;
    assert_eq!(result.text(), "echo: hi");
    telemetry.shutdown().await;

    receiver.until(|r| r.spans.len() >= 2 && !r.logs.is_empty()).await;
    let at_gateway = receiver.span("execute_tool b_echo");
    let at_backend = receiver.span("execute_tool echo");
    assert_eq!(
        hex(&at_gateway.trace_id),
        TRACE_ID,
        "the gateway continues the client's trace"
    );
    assert_eq!(hex(&at_gateway.parent_span_id), PARENT_ID);
    assert_eq!(
        hex(&at_backend.trace_id),
        TRACE_ID,
        "and the mounted server continues it"
    );
    assert_eq!(
        at_backend.parent_span_id, at_gateway.span_id,
        "under the gateway's span"
    );
    assert_eq!(at_gateway.kind, span::SpanKind::Internal as i32);
    let attributes = &at_gateway.attributes;
    assert_eq!(
        attribute(attributes, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(
        attribute(attributes, "gen_ai.tool.name").as_deref(),
        Some("b_echo")
    );
    assert!(attribute(attributes, "gen_ai.tool.call.id").is_some());
    // Where the mounted tool came from: its server, its definition's hash, not pinned
    // (this mount has no lock file).
    assert!(
        attribute(attributes, "agent_tools.details.mount.server")
            .is_some_and(|server| server.starts_with("http://127.0.0.1:")),
        "{attributes:?}"
    );
    assert!(
        attribute(attributes, "agent_tools.details.mount.definition_sha256")
            .is_some_and(|hash| hash.starts_with("sha256:"))
    );
    assert_eq!(
        attribute(attributes, "agent_tools.details.mount.pinned").as_deref(),
        Some("false")
    );
    assert_eq!(attribute(attributes, "error.type"), None);
    assert_eq!(
        attribute(attributes, "gen_ai.tool.call.arguments"),
        None,
        "payloads are opt-in"
    );
    assert_eq!(
        attribute(&receiver.resource, "service.name").as_deref(),
        Some("agent-tools")
    );

    // The gateway's audit record, correlated with its span.
    let record = receiver
        .logs
        .iter()
        .find(|record| attribute(&record.attributes, "gen_ai.tool.name").as_deref() == Some("b_echo"))
        .expect("the gateway's audit record");
    assert_eq!(record.event_name, "agent_tools.tool_call");
    assert_eq!(hex(&record.trace_id), TRACE_ID);
    assert_eq!(record.span_id, at_gateway.span_id);
    assert_eq!(
        attribute(&record.attributes, "agent_tools.outcome").as_deref(),
        Some("ok")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_tool_records_for_its_audit_is_in_the_record_and_on_the_span() {
    let mut receiver = Receiver::start().await;
    let telemetry = telemetry(&receiver);
    let registry = registry(OtelTracer::new(&telemetry), Some(OtlpAudit::new(&telemetry)));
    let fetcher = DynamicTool::new(
        "fetcher",
        "Records what it reached.",
        json!({"type": "object"}),
        |_: Value, ctx: ToolContext| async move {
            ctx.audit_detail("network", json!([{"host": "refused.test", "outcome": "refused"}]));
            ctx.audit_detail("mount", json!({"server": "docs", "pinned": true}));
            Ok::<_, ToolError>("done".to_owned())
        },
    );
    registry.register(fetcher).unwrap();
    registry.call(ToolCall::new("d", "fetcher", json!({}))).await;
    telemetry.shutdown().await;

    receiver
        .until(|r| !r.logs.is_empty() && !r.spans.is_empty())
        .await;
    let span = &receiver.spans[0];
    assert_eq!(
        attribute(&span.attributes, "agent_tools.details.mount.server").as_deref(),
        Some("docs")
    );
    assert_eq!(
        attribute(&span.attributes, "agent_tools.details.mount.pinned").as_deref(),
        Some("true")
    );
    let record = receiver
        .logs
        .iter()
        .find(|record| attribute(&record.attributes, "gen_ai.tool.name").as_deref() == Some("fetcher"))
        .expect("the call's audit record");
    assert_eq!(
        attribute(&record.attributes, "agent_tools.details.network").as_deref(),
        Some(r#"[{"host":"refused.test","outcome":"refused"}]"#)
    );
    assert_eq!(
        attribute(&record.attributes, "agent_tools.details.mount.server").as_deref(),
        Some("docs")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_error_spans_and_payloads_are_opt_in_and_redacted() {
    let mut receiver = Receiver::start().await;
    let telemetry = telemetry(&receiver);
    let registry = registry(OtelTracer::new(&telemetry).record_payloads(true), None);
    let call = |id: &str, tool: &str, arguments: Value| ToolCall::new(id, tool, arguments);
    registry
        .call(call(
            "ok",
            "echo",
            json!({"text": "hi", "api_key": "sk-live-abcdefghijklmnop1234"}),
        ))
        .await;
    registry.call(call("failed", "fail", json!({}))).await;
    registry.call(call("invalid", "echo", json!({"text": 5}))).await;
    registry.call(call("unknown", "nope", json!({}))).await;
    telemetry.shutdown().await;
    receiver.until(|r| r.spans.len() >= 4).await;

    let by_call: HashMap<String, &Span> = receiver
        .spans
        .iter()
        .map(|span| {
            (
                attribute(&span.attributes, "gen_ai.tool.call.id").unwrap_or_default(),
                span,
            )
        })
        .collect();
    let ok = &by_call["ok"].attributes;
    let arguments = attribute(ok, "gen_ai.tool.call.arguments").expect("arguments recorded on opt-in");
    assert!(
        arguments.contains("\"text\":\"hi\"") && !arguments.contains("sk-live"),
        "{arguments}"
    );
    assert_eq!(
        attribute(ok, "gen_ai.tool.call.result").as_deref(),
        Some("echo: hi")
    );
    for (id, error_type) in [
        ("failed", "tool_error"),
        ("invalid", "invalid_arguments"),
        ("unknown", "unknown_tool"),
    ] {
        let span = by_call[id];
        assert_eq!(
            attribute(&span.attributes, "error.type").as_deref(),
            Some(error_type),
            "{id}"
        );
        let status = span.status.as_ref().expect("a status");
        assert_eq!(status.code, status::StatusCode::Error as i32, "{id}");
    }
    let failed = by_call["failed"].status.as_ref().unwrap();
    assert!(
        failed.message.contains("the disk is on fire"),
        "{}",
        failed.message
    );
    assert_eq!(
        attribute(&by_call["failed"].attributes, "gen_ai.tool.call.result"),
        None
    );
    // Without a parent, each call is a trace of its own.
    assert!(by_call["ok"].parent_span_id.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_traceparent_from_a_client_starts_a_new_trace() {
    let mut receiver = Receiver::start().await;
    let telemetry = telemetry(&receiver);
    // Stateless, so that a request needs no session first.
    let server = McpHandler::new(registry(OtelTracer::new(&telemetry), None))
        .serve_http_with("127.0.0.1:0", HttpOptions::new().stateless())
        .await
        .unwrap();
    let http = reqwest::Client::new();
    for (id, traceparent) in [
        (1, "00-zzzz-not-a-trace-01"),
        (2, "00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "x"}, "_meta": {"traceparent": traceparent}}});
        let response = http
            .post(server.url())
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert!(response.text().await.unwrap().contains("echo: x"));
    }
    telemetry.shutdown().await;
    receiver.until(|r| r.spans.len() >= 2).await;
    for span in &receiver.spans {
        assert!(
            span.parent_span_id.is_empty(),
            "a root span, not a child of garbage"
        );
        assert_ne!(hex(&span.trace_id), "00000000000000000000000000000000");
    }
}

/// The same requests without a tracer: what the tool sees is what the server parsed, so
/// this checks our parsing itself (the SDK would also drop an invalid parent, which the
/// test above cannot tell apart).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_hands_a_tool_only_a_well_formed_traceparent() {
    let registry = ToolRegistry::new();
    let seen = DynamicTool::new(
        "seen",
        "The trace context the call came with.",
        json!({"type": "object"}),
        |_: Value, ctx: ToolContext| async move {
            let seen = ctx.trace_context().map_or("none", TraceContext::traceparent);
            Ok::<_, ToolError>(seen.to_owned())
        },
    );
    registry.register(seen).unwrap();
    let server = McpHandler::new(registry)
        .serve_http_with("127.0.0.1:0", HttpOptions::new().stateless())
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    for (id, traceparent, expected) in [
        (1, valid, valid),
        (2, "00-zzzz-not-a-trace-01", "none"),
        (
            3,
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "none",
        ),
        (
            4,
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "none",
        ),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "seen", "arguments": {}, "_meta": {"traceparent": traceparent}}});
        let response = http
            .post(server.url())
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .json(&body)
            .send()
            .await
            .unwrap();
        let text = response.text().await.unwrap();
        assert!(
            text.contains(&format!("\"text\":\"{expected}\"")),
            "{traceparent}: {text}"
        );
    }
}

/// Not a test on its own: the child of the next test, run with `OTEL_*` variables set
/// (setting them in this process would race the other tests). Makes one traced call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_traces_one_call_as_the_environment_says() {
    if std::env::var_os("TELEMETRY_CHILD").is_none() {
        return;
    }
    let Some(telemetry) = Telemetry::builder().build().unwrap() else {
        println!("disabled");
        return;
    };
    let registry = registry(OtelTracer::new(&telemetry), Some(OtlpAudit::new(&telemetry)));
    registry
        .call(ToolCall::new("env", "echo", json!({"text": "x"})))
        .await;
    telemetry.shutdown().await;
    println!("exported");
}

fn child(envs: &[(&str, String)]) -> String {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "otlp::child_traces_one_call_as_the_environment_says",
            "--exact",
            "--nocapture",
            "--quiet",
        ])
        .env("TELEMETRY_CHILD", "1");
    for (name, value) in envs {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standard_otel_variables_are_honoured() {
    let mut receiver = Receiver::start().await;
    let url = receiver.url.clone();
    let stdout = tokio::task::spawn_blocking(move || {
        child(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", url),
            ("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=s3cr3t".to_owned()),
            ("OTEL_SERVICE_NAME", "gateway-eu".to_owned()),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment.name=test".to_owned(),
            ),
        ])
    })
    .await
    .unwrap();
    assert!(stdout.contains("exported"), "{stdout}");
    receiver
        .until(|r| !r.spans.is_empty() && !r.logs.is_empty())
        .await;
    assert_eq!(receiver.headers.as_ref().unwrap()["x-api-key"], "s3cr3t");
    assert_eq!(
        attribute(&receiver.resource, "service.name").as_deref(),
        Some("gateway-eu")
    );
    assert_eq!(
        attribute(&receiver.resource, "deployment.environment.name").as_deref(),
        Some("test")
    );

    let stdout = tokio::task::spawn_blocking(|| child(&[("OTEL_SDK_DISABLED", "true".to_owned())]))
        .await
        .unwrap();
    assert!(stdout.contains("disabled"), "{stdout}");
}
