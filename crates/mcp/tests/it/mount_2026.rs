//! Mounting a server that speaks MCP 2026-07-28 — our own, served over streamable HTTP
//! on 127.0.0.1 — the way `--mount` does: questions come back as input-required results
//! (SEP-2322), which reach the mounting call's caller and are answered in a retry; the
//! standard and `Mcp-Param-*` headers (SEP-2243) go with every call, which the server
//! checks against the body and refuses when they disagree.

// Sampling and roots are deprecated for 2026-07-28 (SEP-2577), yet two of the three
// questions an input-required result may ask.
#![allow(deprecated)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_tools_core::caller::{
    Caller, CallerError, ElicitRequest, ElicitResponse, InputRequest, InputResponse, Role, Root,
    SamplingContent, SamplingMessage, SamplingRequest, SamplingResponse,
};
use agent_tools_core::tool::{BoxFuture, DynamicTool, ToolMeta};
use agent_tools_core::{ToolCall, ToolContext, ToolError, ToolRegistry, ToolResult};
use agent_tools_mcp::{HttpServer, McpMount, McpServer, MountMcp as _, MountOptions, serve_http};
use rmcp::ServiceExt as _;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation,
};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient};
use serde_json::{Value, json};

/// Bounds every wait in these tests; nothing should come near it.
const PATIENCE: Duration = Duration::from_secs(10);

/// A user who accepts every form with `{"ok": true}`, a model that answers "blue", and
/// the roots `file:///work`; remembers what it was asked, by name.
#[derive(Default)]
struct Recorder {
    asked: Mutex<Vec<(String, InputRequest)>>,
}

impl Recorder {
    fn asked(&self) -> Vec<(String, InputRequest)> {
        self.asked.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl Caller for Recorder {
    fn ask(&self, key: &str, request: InputRequest) -> BoxFuture<'_, Result<InputResponse, CallerError>> {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((key.to_owned(), request.clone()));
        let answer = match request {
            InputRequest::Elicit(_) => InputResponse::Elicit(ElicitResponse::accept(
                json!({"ok": true}).as_object().cloned().unwrap_or_default(),
            )),
            InputRequest::Sample(_) => InputResponse::Sample(SamplingResponse::new(
                "test-model",
                vec![SamplingContent::text("blue")],
            )),
            _ => InputResponse::Roots(vec![Root::new("file:///work").with_name("work")]),
        };
        Box::pin(async move { Ok(answer) })
    }
}

fn confirm_form() -> InputRequest {
    let form = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
    InputRequest::Elicit(ElicitRequest::form("Confirm the payment?", form))
}

/// `pay`: charges once (counted, kept across rounds), then asks for a confirmation named
/// `confirm`.
fn pay(charges: Arc<AtomicUsize>) -> DynamicTool {
    let schema = json!({"type": "object", "properties": {"amount": {"type": "integer"}}});
    DynamicTool::new(
        "pay",
        "Pays after a confirmation.",
        schema,
        move |args: Value, ctx: ToolContext| {
            let charges = charges.clone();
            async move {
                let receipt: String = ctx
                    .remember("charge", async {
                        Ok(format!("receipt-{}", charges.fetch_add(1, Ordering::SeqCst) + 1))
                    })
                    .await?;
                let answer = ctx.ask("confirm", confirm_form()).await?.into_elicit();
                let ok = answer
                    .and_then(|answer| answer.content)
                    .and_then(|content| content.get("ok").cloned());
                Ok::<_, ToolError>(format!(
                    "{} {receipt} confirmed={}",
                    args["amount"],
                    ok.unwrap_or(Value::Null)
                ))
            }
        },
    )
}

/// `survey`: asks its caller's user, then its model, then for its roots, one round each.
fn survey() -> DynamicTool {
    let schema = json!({"type": "object", "properties": {}});
    DynamicTool::new(
        "survey",
        "Asks three things.",
        schema,
        |_: Value, ctx: ToolContext| async move {
            let InputRequest::Elicit(form) = confirm_form() else {
                return Err(ToolError::new("the form is an elicitation"));
            };
            let answer = ctx.elicit_request(form).await?;
            let question = SamplingMessage::new(Role::User, vec![SamplingContent::text("A colour?")]);
            let colour = ctx.sample(SamplingRequest::new(vec![question], 10)).await?;
            let roots = ctx.list_roots().await?;
            Ok::<_, ToolError>(format!(
                "{:?} {} {}",
                answer.action,
                colour.text(),
                roots
                    .iter()
                    .map(|root| root.uri.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            ))
        },
    )
}

/// Serves `tools` as a "remote" server on a free port.
async fn remote(tools: Vec<DynamicTool>) -> HttpServer {
    let registry = ToolRegistry::new();
    for tool in tools {
        registry.register(tool).expect("registers");
    }
    serve_http(registry, "127.0.0.1:0").await.expect("serves")
}

/// Mounts `server` into `local` as `--mount` does: 2026-07-28 where the server speaks it.
async fn mount(local: &ToolRegistry, server: &HttpServer) -> McpMount {
    bounded(local.mount_mcp(McpServer::http(server.url()), MountOptions::new().prefix("r_")))
        .await
        .expect("mounts")
}

async fn call(local: &ToolRegistry, name: &str, arguments: Value) -> ToolResult {
    bounded(local.call(ToolCall::new("c1", name, arguments))).await
}

async fn bounded<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(PATIENCE, future)
        .await
        .expect("finished within the test's patience")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_tools_question_reaches_the_caller_and_the_retry_finishes_the_call() {
    let charges = Arc::new(AtomicUsize::new(0));
    let server = remote(vec![pay(charges.clone())]).await;
    let recorder = Arc::new(Recorder::default());
    let local = ToolRegistry::builder().caller(recorder.clone()).build();
    let _mount = mount(&local, &server).await;

    let result = call(&local, "r_pay", json!({"amount": 5})).await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.text(), "5 receipt-1 confirmed=true");
    let asked = recorder.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(
        asked[0],
        ("confirm".to_owned(), confirm_form()),
        "asked by the server's name"
    );
    assert_eq!(
        charges.load(Ordering::SeqCst),
        1,
        "the server's kept step ran once: the state came back"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_kind_of_question_is_answered_round_after_round() {
    let server = remote(vec![survey()]).await;
    let recorder = Arc::new(Recorder::default());
    let local = ToolRegistry::builder().caller(recorder.clone()).build();
    let _mount = mount(&local, &server).await;

    let result = call(&local, "r_survey", json!({})).await;
    assert_eq!(result.text(), "Accept blue file:///work", "{}", result.text());
    // Each round asked again what the earlier ones had (the tool runs from its start),
    // which the server answered itself from the retry; the caller was asked each once,
    // a later round's names marked with the round.
    let keys: Vec<String> = recorder.asked().into_iter().map(|(key, _)| key).collect();
    assert_eq!(keys, ["elicit-1", "sample-1#2", "roots-1#3"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_nobody_can_answer_fails_the_call_saying_so() {
    let server = remote(vec![pay(Arc::new(AtomicUsize::new(0)))]).await;
    let local = ToolRegistry::new();
    let _mount = mount(&local, &server).await;

    let result = call(&local, "r_pay", json!({"amount": 5})).await;
    assert!(result.is_error());
    assert!(
        result.text().contains("ask the user (elicitation)"),
        "{}",
        result.text()
    );
}

/// An MCP client on 2026-07-28 with a person who accepts every form with `{"ok": true}`.
struct Person;

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}}})).unwrap_or_default();
        ClientConfig::new(capabilities, Implementation::new("person", "1"))
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(json!({"ok": true}));
        Ok(result)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_a_gateway_the_question_reaches_the_gateways_own_client() {
    // `remote` has the tool; the gateway mounts it and serves it on; the client, on
    // 2026-07-28, talks to the gateway only and gets the question as an input-required
    // result of the gateway's.
    let charges = Arc::new(AtomicUsize::new(0));
    let server = remote(vec![pay(charges.clone())]).await;
    let gateway_registry = ToolRegistry::new();
    let _mount = mount(&gateway_registry, &server).await;
    let gateway = serve_http(gateway_registry, "127.0.0.1:0").await.expect("serves");
    let transport = StreamableHttpClientTransport::from_uri(gateway.url());
    let client = bounded(Person.serve(transport)).await.expect("connects");
    let arguments = json!({"amount": 7}).as_object().cloned().unwrap_or_default();

    let result = bounded(client.call_tool(CallToolRequestParams::new("r_pay").with_arguments(arguments)))
        .await
        .expect("the call finishes");
    let text = serde_json::to_value(&result.content).expect("JSON");
    assert_eq!(text[0]["text"], "7 receipt-1 confirmed=true", "{text}");
    assert_eq!(charges.load(Ordering::SeqCst), 1);
}

/// `route`: its `region` is also the header `Mcp-Param-Region`, which the server checks.
fn route() -> DynamicTool {
    let schema =
        json!({"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]});
    DynamicTool::from_meta(
        ToolMeta::new("route", "Answers from a region.").header_argument("region", "Region"),
        schema,
        |args: Value, _: ToolContext| async move { Ok::<_, ToolError>(format!("from {}", args["region"])) },
    )
}

/// A 2026-07-28 `tools/call` of `tool` posted by hand with the standard headers but no
/// `Mcp-Param-*` one; the JSON-RPC response.
async fn call_without_headers(server: &HttpServer, tool: &str, arguments: Value) -> Value {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": meta}});
    let response = reqwest::Client::new()
        .post(server.url())
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string())
        .send()
        .await
        .expect("the server answers");
    let text = response.text().await.expect("a body");
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("not JSON ({error}): {text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_argument_goes_as_its_header_encoded_where_it_must_be() {
    let server = remote(vec![route()]).await;
    let local = ToolRegistry::new();
    let _mount = mount(&local, &server).await;
    let schema = local.get("r_route").expect("mounted").spec().input_schema.clone();
    assert_eq!(
        schema["properties"]["region"]["x-mcp-header"], "Region",
        "kept as served"
    );

    // The server refuses a call whose header is missing (so a call that goes through
    // carried it) ...
    let refused = call_without_headers(&server, "route", json!({"region": "eu-west1"})).await;
    assert_eq!(refused["error"]["code"], -32020, "{refused}");
    // ... or disagrees with its body: plain ASCII, and a value a header cannot carry as
    // it is (Base64 on the wire).
    for region in ["eu-west1", " Zürich\n"] {
        let result = call(&local, "r_route", json!({"region": region})).await;
        assert!(!result.is_error(), "{region:?}: {}", result.text());
        assert_eq!(result.text(), format!("from {}", json!(region)));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_with_an_unusable_header_annotation_is_not_mounted() {
    // A schema that names an empty header: a client could not send it, and the server
    // would refuse every call. Served as written (the registry does not read it).
    let schema = json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": ""}}});
    let bad = DynamicTool::new(
        "bad",
        "An empty header name.",
        schema,
        |_: Value, _: ToolContext| async { Ok::<_, ToolError>("ran") },
    );
    let server = remote(vec![bad, route()]).await;
    let local = ToolRegistry::new();
    let mount = mount(&local, &server).await;
    assert_eq!(mount.tool_names(), ["r_route"]);
    assert!(local.get("r_bad").is_none());
}

/// A task tool that waits `ms` milliseconds, reporting, then asks for a confirmation
/// named `confirm` (when `ask`), then answers; it notes when it is cancelled.
fn slow_task(ask: bool, cancelled: Arc<AtomicUsize>) -> DynamicTool {
    use agent_tools_core::tool::TaskSupport;
    let schema = json!({"type": "object", "properties": {"ms": {"type": "integer"}}});
    let meta = ToolMeta::new("build", "Builds, as a task.").task(TaskSupport::Optional);
    DynamicTool::from_meta(meta, schema, move |args: Value, ctx: ToolContext| {
        let cancelled = cancelled.clone();
        async move {
            let wait = Duration::from_millis(args["ms"].as_u64().unwrap_or(0));
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = ctx.cancelled() => {
                    cancelled.fetch_add(1, Ordering::SeqCst);
                    return Err(ToolError::cancelled());
                }
            }
            if ask {
                ctx.ask("confirm", confirm_form()).await?;
            }
            Ok::<_, ToolError>("built")
        }
    })
}

/// A mounted tool whose server makes its call a task is followed to the task's result;
/// the task's questions reach the mounting call's caller and go back with `tasks/update`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_tool_that_answers_with_a_task_is_followed_to_its_result() {
    use agent_tools_core::task::{MemoryTaskStore, TaskStatus, Tasks};
    for ask in [false, true] {
        let registry = ToolRegistry::new();
        registry
            .register(slow_task(ask, Arc::default()))
            .expect("registers");
        let tasks = Tasks::new(MemoryTaskStore::new());
        let server = agent_tools_mcp::McpHandler::new(registry)
            .tasks(tasks.clone())
            .serve_http("127.0.0.1:0")
            .await
            .expect("serves");
        let recorder = Arc::new(Recorder::default());
        let local = ToolRegistry::builder().caller(recorder.clone()).build();
        let _mount = mount(&local, &server).await;
        let result = call(&local, "r_build", json!({"ms": 50})).await;
        assert_eq!(result.text(), "built", "ask={ask}");
        let keys: Vec<String> = recorder.asked().into_iter().map(|(key, _)| key).collect();
        let expected: &[&str] = if ask { &["confirm"] } else { &[] };
        assert_eq!(keys, expected);
        let done = tasks.list(TaskStatus::Completed, 10).await.expect("listed");
        assert_eq!(done.len(), 1, "the call ran as a task on the server");
    }
}

/// A mounting call that stops waiting (here: its timeout) cancels the remote task, whose
/// tool stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounting_call_that_stops_waiting_cancels_the_remote_task() {
    let cancelled = Arc::new(AtomicUsize::new(0));
    let server = remote(vec![slow_task(false, cancelled.clone())]).await;
    let local = ToolRegistry::builder()
        .default_timeout(Duration::from_millis(300))
        .build();
    let _mount = mount(&local, &server).await;
    let result = call(&local, "r_build", json!({"ms": 60_000})).await;
    assert!(result.is_error(), "{}", result.text());
    bounded(async {
        while cancelled.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}
