//! A served tool talks to the MCP client that called it — log messages, questions
//! (elicitation), its model (sampling) — and a mount passes a remote server's questions on
//! to the client of the call that caused them (the gateway). Real rmcp clients over
//! streamable HTTP on 127.0.0.1.

// Sampling and logging are deprecated for MCP 2026-07-28 (SEP-2577); clients on
// 2025-11-25, which these tests speak, use them.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tools_core::{
    ToolContext, ToolError, ToolRegistry,
    caller::{ElicitRequest, Elicited, LogLevel, SamplingMessage, SamplingRequest},
    tool::DynamicTool,
};
use agent_tools_mcp::{HttpServer, McpServer, MountMcp as _, MountOptions, serve_http};
use rmcp::ServiceExt as _;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, Implementation, LoggingMessageNotificationParam,
    SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// A client with a person and a model behind it: answers forms as `answer` says,
/// sampling with a fixed text, and passes log messages and the forms it saw to the test.
struct Person {
    capabilities: Value,
    answer: ElicitationAction,
    forms: Arc<Mutex<Vec<Value>>>,
    log: mpsc::UnboundedSender<LoggingMessageNotificationParam>,
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities = serde_json::from_value(self.capabilities.clone()).unwrap();
        ClientConfig::new(capabilities, Implementation::new("person", "1"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let requested_schema = match request {
            ElicitRequestParams::FormElicitationParams { requested_schema, .. } => requested_schema,
            ElicitRequestParams::UrlElicitationParams { url, .. } => {
                self.forms.lock().unwrap().push(json!({"url": url}));
                return Ok(ElicitResult::new(self.answer.clone()));
            }
            _ => return Err(McpError::invalid_params("forms and URLs only", None)),
        };
        let requested_schema = serde_json::to_value(requested_schema).unwrap();
        // An approval (the policy asks before a tool runs) or the survey's own form.
        let content = if requested_schema["properties"]["decision"].is_object() {
            json!({"decision": "allow_once"})
        } else {
            json!({"name": "Ada", "color": "green"})
        };
        self.forms.lock().unwrap().push(requested_schema);
        let mut result = ElicitResult::new(self.answer.clone());
        if self.answer == ElicitationAction::Accept {
            result.content = Some(content);
        }
        Ok(result)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        let asked = serde_json::to_value(&params.messages).unwrap();
        let text = format!(
            "model saw {}",
            asked[0]["content"]["text"].as_str().unwrap_or("?")
        );
        let result = json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "m-1"});
        Ok(serde_json::from_value(result).unwrap())
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.log.send(params);
    }
}

struct Client {
    service: RunningService<RoleClient, Person>,
    forms: Arc<Mutex<Vec<Value>>>,
    log: mpsc::UnboundedReceiver<LoggingMessageNotificationParam>,
}

impl Client {
    async fn call(&self, name: &str) -> rmcp::model::CallToolResult {
        let params = CallToolRequestParams::new(name.to_owned());
        self.service.peer().call_tool(params).await.unwrap()
    }

    /// The log messages that arrived, waiting until `count` have.
    async fn logged(&mut self, count: usize) -> Vec<String> {
        let mut messages = Vec::new();
        while messages.len() < count {
            let message = tokio::time::timeout(Duration::from_secs(10), self.log.recv())
                .await
                .expect("a log message within 10 s")
                .expect("the client is running");
            messages.push(format!(
                "{}: {}",
                serde_json::to_value(message.level).unwrap(),
                message.data
            ));
        }
        messages
    }
}

const EVERYTHING: &str = r#"{"elicitation": {"form": {}}, "sampling": {}}"#;

async fn connect(server: &HttpServer, capabilities: &str, answer: ElicitationAction) -> Client {
    let (log, log_receiver) = mpsc::unbounded_channel();
    let forms = Arc::new(Mutex::new(Vec::new()));
    let person = Person {
        capabilities: serde_json::from_str(capabilities).unwrap(),
        answer,
        forms: forms.clone(),
        log,
    };
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    let service = person.serve(transport).await.unwrap();
    Client {
        service,
        forms,
        log: log_receiver,
    }
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Favourite {
    /// Your name.
    name: String,
    #[serde(default = "blue")]
    color: Color,
}

fn blue() -> Color {
    Color::Blue
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Color {
    Blue,
    Green,
}

/// Logs at three levels, asks for a favourite colour, and asks the model about it.
fn survey() -> DynamicTool {
    DynamicTool::new(
        "survey",
        "Ask about colours.",
        json!({"type": "object"}),
        |_: Value, ctx: ToolContext| async move {
            ctx.log(LogLevel::Debug, "starting");
            ctx.log(LogLevel::Info, "asking");
            ctx.log(LogLevel::Warning, "careful");
            let answer = match ctx.elicit::<Favourite>("Your favourite colour?").await? {
                Elicited::Accepted(favourite) => favourite,
                Elicited::Declined => return Ok::<_, ToolError>("declined".to_owned()),
                Elicited::Cancelled => return Ok("cancelled".to_owned()),
            };
            let color = serde_json::to_value(&answer.color).unwrap_or_default();
            let request = SamplingRequest::new(vec![SamplingMessage::user(format!("{}", color))], 50);
            let said = ctx.sample(request).await?.text();
            Ok(format!("{} likes {color}; {said}", answer.name))
        },
    )
}

async fn served_survey() -> HttpServer {
    let registry = ToolRegistry::new();
    registry.register(survey()).unwrap();
    serve_http(registry, "127.0.0.1:0").await.unwrap()
}

#[tokio::test]
async fn a_tool_logs_asks_and_samples_through_its_client() {
    let server = served_survey().await;
    let mut client = connect(&server, EVERYTHING, ElicitationAction::Accept).await;
    let result = client.call("survey").await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let text = result.content[0].as_text().unwrap().text.clone();
    assert_eq!(text, r#"Ada likes "green"; model saw "green""#);
    // The form the client saw: typed from `Favourite`, its default kept (SEP-1034).
    let form = client.forms.lock().unwrap()[0].clone();
    assert_eq!(form["properties"]["color"]["enum"], json!(["blue", "green"]));
    assert_eq!(form["properties"]["color"]["default"], "blue");
    assert_eq!(form["required"], json!(["name"]));
    // Until the client chooses a level, every message is sent.
    let logged = client.logged(3).await;
    assert_eq!(
        logged,
        [
            r#""debug": "starting""#,
            r#""info": "asking""#,
            r#""warning": "careful""#
        ]
    );
}

#[tokio::test]
async fn log_messages_below_the_clients_level_are_not_sent() {
    let server = served_survey().await;
    let mut client = connect(&server, EVERYTHING, ElicitationAction::Decline).await;
    let level = serde_json::from_value(json!({"level": "warning"})).unwrap();
    let params: SetLevelRequestParams = level;
    client.service.peer().set_level(params).await.unwrap();
    let result = client.call("survey").await;
    assert_eq!(result.content[0].as_text().unwrap().text, "declined");
    // Only the warning; a second message, had one been sent, would be in the channel
    // before the call's result.
    assert_eq!(client.logged(1).await, [r#""warning": "careful""#]);
    assert!(client.log.try_recv().is_err());
}

#[tokio::test]
async fn a_client_without_elicitation_gets_an_error_result_that_says_so() {
    let server = served_survey().await;
    let client = connect(&server, r#"{"sampling": {}}"#, ElicitationAction::Accept).await;
    let result = client.call("survey").await;
    assert_eq!(result.is_error, Some(true));
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.contains("ask the user (elicitation)"), "{text}");
    assert!(client.forms.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_mounted_servers_questions_reach_the_client_of_the_gateway() {
    // `inner` has the tool; `gateway` mounts it and serves it on; the person talks to
    // the gateway only.
    let inner = served_survey().await;
    let gateway_registry = ToolRegistry::new();
    let _mount = gateway_registry
        .mount_mcp(
            McpServer::http(inner.url()),
            MountOptions::new().prefix("inner_").prefer_initialize(),
        )
        .await
        .unwrap();
    let gateway = serve_http(gateway_registry, "127.0.0.1:0").await.unwrap();
    let mut client = connect(&gateway, EVERYTHING, ElicitationAction::Accept).await;
    let result = client.call("inner_survey").await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        r#"Ada likes "green"; model saw "green""#
    );
    assert_eq!(
        client.forms.lock().unwrap().len(),
        1,
        "the person saw the inner tool's form"
    );
    // The inner tool's log messages came through the gateway too.
    assert_eq!(client.logged(3).await.len(), 3);
}

/// Asks the user to open a URL (MCP's URL mode).
fn sign_in() -> DynamicTool {
    DynamicTool::new(
        "sign_in",
        "Sign in.",
        json!({"type": "object"}),
        |_: Value, ctx: ToolContext| async move {
            let request = ElicitRequest::url("Sign in to continue", "https://example.test/login", "login-1");
            let response = ctx.elicit_request(request).await?;
            Ok::<_, ToolError>(format!("the user chose {}", response.action.as_str()))
        },
    )
}

#[tokio::test]
async fn url_elicitation_reaches_clients_that_declare_it_and_only_them() {
    let registry = ToolRegistry::new();
    registry.register(sign_in()).unwrap();
    let server = serve_http(registry, "127.0.0.1:0").await.unwrap();
    let client = connect(
        &server,
        r#"{"elicitation": {"url": {}}}"#,
        ElicitationAction::Accept,
    )
    .await;
    let result = client.call("sign_in").await;
    assert_eq!(result.content[0].as_text().unwrap().text, "the user chose accept");
    assert_eq!(
        client.forms.lock().unwrap()[0],
        json!({"url": "https://example.test/login"})
    );

    let forms_only = connect(
        &server,
        r#"{"elicitation": {"form": {}}}"#,
        ElicitationAction::Accept,
    )
    .await;
    let result = forms_only.call("sign_in").await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        result.content[0].as_text().unwrap().text.contains("open a URL"),
        "{result:?}"
    );
    assert!(forms_only.forms.lock().unwrap().is_empty());
}

/// A policy that asks before `publish` runs asks the MCP client's user by a form; the
/// answer decides; a client that cannot show forms gets a refusal saying approval was
/// needed.
#[tokio::test]
async fn the_policy_asks_the_clients_user_before_a_tool_runs() {
    let policy = agent_tools_core::policy::Policy::builder()
        .ask("publish")
        .build()
        .unwrap();
    let registry = ToolRegistry::builder().policy(policy).build();
    registry
        .register(DynamicTool::new(
            "publish",
            "Publish the crate.",
            json!({"type": "object"}),
            |_: Value, _ctx: ToolContext| async move { Ok::<_, ToolError>("published") },
        ))
        .unwrap();
    let server = serve_http(registry, "127.0.0.1:0").await.unwrap();
    let cases = [
        (EVERYTHING, ElicitationAction::Accept, false, "published"),
        (EVERYTHING, ElicitationAction::Decline, true, "the user declined"),
        (EVERYTHING, ElicitationAction::Cancel, true, "dismissed"),
        ("{}", ElicitationAction::Accept, true, "no one can be asked"),
    ];
    for (capabilities, answer, is_error, expected) in cases {
        let client = connect(&server, capabilities, answer.clone()).await;
        let result = client.call("publish").await;
        assert_eq!(result.is_error, Some(is_error), "{answer:?}: {result:?}");
        let text = &result.content[0].as_text().unwrap().text;
        assert!(text.contains(expected), "{answer:?}: {text}");
        let forms = client.forms.lock().unwrap().clone();
        let asked = usize::from(capabilities != "{}");
        assert_eq!(forms.len(), asked, "{forms:?}");
        if let Some(form) = forms.first() {
            assert!(form["properties"]["decision"]["oneOf"].is_array(), "{form}");
        }
    }
}
