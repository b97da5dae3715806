//! The command line's `[telemetry]` and `[audit]` sections, with the real parts: an
//! OTLP/HTTP receiver on loopback and a PostgreSQL cluster started by this test binary.
//! A call made by `agent-tools call` is a span, an OTLP log record and a row, all
//! carrying the same trace; settings that cannot work stop the command before any call.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use test_support::otlp_receiver;
use test_support::postgres;

use otlp_receiver::{Receiver, attribute, hex};

/// `agent-tools --workspace <dir>/ws --config <dir>/config.toml ARGS`, with `config`.
fn agent_tools(dir: &Path, config: &str, args: &[&str]) -> Output {
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    std::fs::write(dir.join("ws/notes.txt"), "one line\n").unwrap();
    std::fs::write(dir.join("config.toml"), config).unwrap();
    Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .arg("--workspace")
        .arg(dir.join("ws"))
        .arg("--config")
        .arg(dir.join("config.toml"))
        .args(args)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_is_a_span_a_log_record_and_a_row_of_one_trace() {
    let mut receiver = Receiver::start().await;
    let Some(server) = postgres::server() else {
        return;
    };
    let database = server.database();
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[telemetry]\notlp_endpoint = \"{}\"\n\n[audit]\notlp = true\npostgres_url = \"{database}\"\n",
        receiver.url
    );
    let path = dir.path().to_owned();
    let output = tokio::task::spawn_blocking(move || {
        agent_tools(&path, &config, &["call", "read_file", r#"{"path": "notes.txt"}"#])
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("one line"));

    // The process flushed its telemetry before it exited.
    receiver
        .until(|r| !r.spans.is_empty() && !r.logs.is_empty())
        .await;
    let span = receiver.span("execute_tool read_file");
    assert_eq!(
        attribute(&span.attributes, "gen_ai.tool.name").as_deref(),
        Some("read_file")
    );
    let record = &receiver.logs[0];
    assert_eq!(record.event_name, "agent_tools.tool_call");
    assert_eq!(record.span_id, span.span_id);

    let db = postgres::client(&database).await;
    let row = db
        .query_one(
            "SELECT tool, outcome, trace_id, span_id FROM agent_tools_audit",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "read_file");
    assert_eq!(row.get::<_, String>(1), "ok");
    assert_eq!(row.get::<_, Option<String>>(2), Some(hex(&span.trace_id)));
    assert_eq!(row.get::<_, Option<String>>(3), Some(hex(&span.span_id)));
}

#[test]
fn settings_that_cannot_work_stop_the_command_before_any_call() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |config: &str| {
        let output = agent_tools(
            dir.path(),
            config,
            &["call", "read_file", r#"{"path": "notes.txt"}"#],
        );
        assert_eq!(output.status.code(), Some(2), "{config}");
        assert!(output.stdout.is_empty(), "no call was made");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let no_telemetry = refused("[audit]\notlp = true\n");
    assert!(
        no_telemetry.contains("[audit] otlp needs telemetry"),
        "{no_telemetry}"
    );
    let port = postgres::free_port();
    let unreachable = refused(&format!(
        "[audit]\npostgres_url = \"postgres://agent@127.0.0.1:{port}/none\"\n"
    ));
    assert!(
        unreachable.contains("[audit] cannot use PostgreSQL"),
        "{unreachable}"
    );
    let unset = refused("[audit]\npostgres_url_env = \"NO_SUCH_AUDIT_URL\"\n");
    assert!(unset.contains("$NO_SUCH_AUDIT_URL is not set"), "{unset}");
}

#[test]
fn the_documented_replica_configuration_is_valid() {
    let path = test_support::workspace_root().join("deploy/agent-tools.toml");
    let config = agent_tools_cli::Config::load(&path).expect("deploy/agent-tools.toml loads");
    assert!(config.serve.stateless);
    assert!(config.audit.otlp);
    assert_eq!(
        config.audit.postgres_url_env.as_deref(),
        Some("AGENT_TOOLS_DATABASE_URL")
    );
    assert_eq!(
        config.builtins.memory.url_env.as_deref(),
        Some("AGENT_TOOLS_DATABASE_URL")
    );
    assert!(config.builtins.memory.per_principal);
    assert_eq!(
        config.telemetry.otlp_endpoint.as_deref(),
        Some("http://127.0.0.1:4318")
    );
}
