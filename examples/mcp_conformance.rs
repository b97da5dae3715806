//! The "everything server" of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), written with `#[tool]` and `#[toolset]` and
//! served over streamable HTTP.
//!
//! ```text
//! cargo run --release --example mcp_conformance -- 127.0.0.1:8080
//! ```
//!
//! prints the endpoint's URL (`http://127.0.0.1:8080/mcp`) on stdout once it accepts
//! connections (bind port 0 for a free one) and serves until Ctrl-C; with `--stateless`
//! after the address, without sessions. `scripts/conformance`
//! starts it and runs the suite's server scenarios against it.
//!
//! Each tool is what one scenario calls, under the name and with the output the suite's
//! text asks for. Tools of a server are usually methods of one `#[toolset]` on the state
//! they share; here they share nothing, so the set is a unit struct. The tools that talk
//! to the client while they run — progress, log messages, questions for the user
//! (elicitation), a request for the client's model (sampling) — do it through their
//! [`ToolContext`], which the MCP server connects to the client of the call.
//!
//! One scenario's tool is missing: `server-sse-polling` calls `test_reconnection`, which
//! must close its own call's event stream before answering (so that the client resumes
//! with `Last-Event-ID`), and a tool has no handle on the HTTP stream it is answered on.

use std::sync::Arc;
use std::time::Duration;

use agent_tools::mcp::{HttpOptions, McpHandler};
use agent_tools::serde_json::{self, Value, json};
use agent_tools::{
    ToolContext, ToolError, ToolOutput, ToolRegistry,
    caller::{
        CallerError, ElicitRequest, Elicited, InputRequest, InputResponse, LogLevel, SamplingMessage,
        SamplingRequest,
    },
    output::{Audio, Content, Image},
    registry::WeakToolRegistry,
    tool::DynamicTool,
    toolset,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A 1×1 red PNG: the smallest image the image scenarios accept.
const RED_PIXEL_PNG: &[u8] = include_bytes!("assets/red_pixel.png");

/// A WAV file of one silent sample.
const ONE_SAMPLE_WAV: &[u8] = include_bytes!("assets/one_sample.wav");

/// The time between the steps of the tools that report as they go, so that a client sees
/// the reports arrive one by one while the call runs.
const STEP: Duration = Duration::from_millis(50);

/// The conformance suite's tools.
struct ConformanceTools;

#[toolset]
impl ConformanceTools {
    /// Tests simple text content response.
    #[tool(read_only)]
    async fn test_simple_text(&self) -> &'static str {
        "This is a simple text response for testing."
    }

    /// Tests image content response.
    #[tool(read_only)]
    async fn test_image_content(&self) -> Image {
        Image::png(RED_PIXEL_PNG.to_vec())
    }

    /// Tests audio content response.
    #[tool(read_only)]
    async fn test_audio_content(&self) -> Audio {
        Audio::wav(ONE_SAMPLE_WAV.to_vec())
    }

    /// Tests embedded resource content response.
    #[tool(read_only)]
    async fn test_embedded_resource(&self) -> Content {
        Content::text_resource(
            "test://embedded-resource",
            Some("text/plain".to_owned()),
            "This is an embedded resource content.",
        )
    }

    /// Tests response with multiple content types (text, image, resource).
    #[tool(read_only)]
    async fn test_multiple_content_types(&self) -> ToolOutput {
        let resource = json!({"test": "data", "value": 123}).to_string();
        ToolOutput::text("Multiple content types test:")
            .with_content(Image::png(RED_PIXEL_PNG.to_vec()).into())
            .with_content(Content::text_resource(
                "test://mixed-content-resource",
                Some("application/json".to_owned()),
                resource,
            ))
    }

    /// Tests error response handling.
    #[tool(read_only)]
    async fn test_error_handling(&self) -> Result<String, ToolError> {
        // An `Err` reaches the client as a result with `isError: true` and the message
        // as its text, as every failure a model can act on does.
        Err(ToolError::new(
            "This tool intentionally returns an error for testing",
        ))
    }

    /// Tests tool that reports progress notifications.
    #[tool(read_only)]
    async fn test_tool_with_progress(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        for (step, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if step > 0 {
                pause(ctx).await?;
            }
            // A no-op unless the client sent a progress token; over MCP each report
            // becomes a `notifications/progress` sent before the result.
            let message = format!("Completed step {progress} of 100");
            ctx.report_progress(progress, Some(100.0), Some(&message));
        }
        Ok("Progress reported: 0, 50 and 100 of 100".to_owned())
    }

    /// Tests tool that emits log messages during execution.
    #[tool(read_only)]
    async fn test_tool_with_logging(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        // Each becomes a `notifications/message` to the client, unless the client's
        // `logging/setLevel` asked for less than `info`.
        ctx.log(LogLevel::Info, "Tool execution started");
        pause(ctx).await?;
        ctx.log(LogLevel::Info, "Tool processing data");
        pause(ctx).await?;
        ctx.log(LogLevel::Info, "Tool execution completed");
        Ok("Tool with logging executed successfully".to_owned())
    }

    /// Tests server-initiated sampling (LLM completion request).
    #[tool(read_only)]
    async fn test_sampling(
        &self,
        ctx: &ToolContext,
        /// The prompt to send to the LLM.
        prompt: String,
    ) -> Result<String, ToolError> {
        // `?` turns a client that cannot sample into an error result that says so.
        let request = SamplingRequest::new(vec![SamplingMessage::user(prompt)], 100);
        let response = ctx.sample(request).await?;
        Ok(format!("LLM response: {}", response.text()))
    }

    /// Tests server-initiated elicitation (user input request).
    #[tool(read_only)]
    async fn test_elicitation(
        &self,
        ctx: &ToolContext,
        /// The message to show the user.
        message: String,
    ) -> Result<String, ToolError> {
        let answer = ctx.elicit::<UserInfo>(message).await?;
        Ok(format!("User response: {}", describe(&answer)))
    }

    /// Tests elicitation with default values for every primitive type (SEP-1034).
    #[tool(read_only)]
    async fn test_elicitation_sep1034_defaults(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        let answer = ctx.elicit::<Profile>("Please review your profile").await?;
        Ok(format!("Elicitation completed: {}", describe(&answer)))
    }

    /// Tests elicitation with every enum shape (SEP-1330).
    #[tool(read_only)]
    async fn test_elicitation_sep1330_enums(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        let answer = ctx.elicit::<Choices>("Please choose").await?;
        Ok(format!("Elicitation completed: {}", describe(&answer)))
    }

    // The input-required scenarios (MCP 2026-07-28, SEP-2322) name each question: a tool
    // asks with `ctx.ask(name, …)`, and a client on 2026-07-28 gets the questions back as
    // an input-required result and calls again with the answers under those names.

    /// Asks the user's name (SEP-2322, one elicitation).
    #[tool(read_only)]
    async fn test_input_required_result_elicitation(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        let name = ask_form(ctx, "user_name", "What is your name?", "name", "string").await?;
        Ok(format!("Hello, {}!", text_of(&name)))
    }

    /// Asks the client's model a question (SEP-2322, one sampling request).
    #[tool(read_only)]
    async fn test_input_required_result_sampling(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        let answer = ask_model(ctx, "capital_question", "What is the capital of France?", 100).await?;
        Ok(format!("LLM response: {answer}"))
    }

    /// Asks for the client's roots (SEP-2322, one roots/list request).
    #[tool(read_only)]
    async fn test_input_required_result_list_roots(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        let roots = ask_roots(ctx, "client_roots").await?;
        Ok(format!("Client roots: {roots}"))
    }

    /// Asks for a confirmation; the answer comes back with the sealed request state.
    #[tool(read_only)]
    async fn test_input_required_result_request_state(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        confirm(ctx).await
    }

    /// Asks the user, the model and for the roots at once: one round, three questions.
    #[tool(read_only)]
    async fn test_input_required_result_multiple_inputs(
        &self,
        ctx: &ToolContext,
    ) -> Result<String, ToolError> {
        let (name, greeting, roots) = tokio::try_join!(
            ask_form(ctx, "user_name", "What is your name?", "name", "string"),
            ask_model(ctx, "greeting", "Generate a greeting", 50),
            ask_roots(ctx, "client_roots"),
        )?;
        Ok(format!(
            "name={}, greeting={greeting}, roots={roots}",
            text_of(&name)
        ))
    }

    /// Asks one question, then another: two rounds.
    #[tool(read_only)]
    async fn test_input_required_result_multi_round(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        let name = ask_form(ctx, "step1", "Step 1: What is your name?", "name", "string").await?;
        let color = ask_form(
            ctx,
            "step2",
            "Step 2: What is your favorite color?",
            "color",
            "string",
        )
        .await?;
        Ok(format!("{} likes {}", text_of(&name), text_of(&color)))
    }

    /// Asks the user (when the client takes forms) and the model: a question of a kind
    /// the client did not declare fails at once with `NotAvailable` and never reaches it.
    #[tool(read_only)]
    async fn test_input_required_result_capabilities(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        let form =
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
        let question = InputRequest::Elicit(ElicitRequest::form("What is your name?", form));
        let name = match ctx.ask("user_name", question).await {
            Ok(InputResponse::Elicit(answer)) => answer
                .content
                .and_then(|content| content.get("name").map(text_of))
                .unwrap_or_default(),
            Err(CallerError::NotAvailable { .. }) => "(the client takes no forms)".to_owned(),
            Ok(_) => {
                return Err(ToolError::new(
                    "the client answered a question with something else",
                ));
            }
            Err(error) => return Err(error.into()),
        };
        let greeting = ask_model(ctx, "greeting", "Generate a greeting", 50).await?;
        Ok(format!("name={name}, greeting={greeting}"))
    }

    /// Echoes `region`, which a client on 2026-07-28 also sends as the header
    /// `Mcp-Param-Region` (SEP-2243): a request whose header disagrees with the argument
    /// is refused before the tool runs.
    #[tool(read_only, headers(region = "Region"))]
    async fn test_header_routing(&self, region: String) -> String {
        format!("region={region}")
    }

    /// Asks the client's model: a client that did not declare sampling gets the error
    /// that names the capability (`-32021`), not a failed result.
    #[tool(read_only)]
    async fn test_missing_capability(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        ask_model(ctx, "greeting", "Generate a greeting", 50).await
    }

    /// Asks the user: on 2026-07-28 the question ends the request with an input-required
    /// result, never a request of the server's own on the call's stream.
    #[tool(read_only)]
    async fn test_streaming_elicitation(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        let name = ask_form(ctx, "user_name", "What is your name?", "name", "string").await?;
        Ok(format!("Hello, {}!", text_of(&name)))
    }

    /// Logs a message: it reaches a 2026-07-28 client only if the request named a log
    /// level in its `_meta`.
    #[tool(read_only)]
    async fn test_logging_tool(&self, ctx: &ToolContext) -> &'static str {
        ctx.log(LogLevel::Info, "test_logging_tool ran");
        "logged"
    }

    /// Greets `name`; runs within its request (no task).
    #[tool(read_only)]
    async fn greet(&self, name: String) -> String {
        format!("Hello, {name}!")
    }

    /// Sleeps `seconds`, then says so: a task for clients that take tasks. Cancelled
    /// meanwhile, it stops at once.
    #[tool(read_only, task = "optional", timeout = "10m")]
    async fn slow_compute(&self, seconds: u64, ctx: &ToolContext) -> Result<String, ToolError> {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(seconds)) => Ok(format!("Computed after {seconds} seconds")),
            () = ctx.cancelled() => Err(ToolError::cancelled()),
        }
    }

    /// Fails after a second, as a tool fails: the task completes with `isError`. Only
    /// as a task.
    #[tool(read_only, task = "required")]
    async fn failing_job(&self) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_secs(1)).await;
        Err(ToolError::new("Tool execution failed"))
    }

    /// Panics: the task fails with a protocol error rather than completing.
    #[tool(read_only, task = "optional")]
    async fn protocol_error_job(&self) -> String {
        panic!("the protocol error job always panics")
    }

    /// Asks the user to confirm deleting `filename`, as a task: the task waits in
    /// `input_required` for the answer.
    #[tool(destructive, task = "optional")]
    async fn confirm_delete(&self, filename: String, ctx: &ToolContext) -> Result<String, ToolError> {
        let confirmed = ask_form(
            ctx,
            "confirm_delete",
            &format!("Delete {filename}?"),
            "confirm",
            "boolean",
        )
        .await?;
        Ok(match confirmed {
            Value::Bool(true) => format!("Deleted {filename}"),
            _ => format!("Kept {filename}"),
        })
    }

    /// Asks two questions at once, as a task: both wait together, and may be answered one
    /// at a time.
    #[tool(read_only, task = "optional")]
    async fn multi_input(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        let (first, second) = tokio::try_join!(
            ask_form(ctx, "first", "First name?", "name", "string"),
            ask_form(ctx, "second", "Second name?", "name", "string"),
        )?;
        Ok(format!("Got {} and {}", text_of(&first), text_of(&second)))
    }

    /// Asks the user's name within its request (an input-required round trip), then goes
    /// on as a task, whose result greets them.
    #[tool(read_only, task = "required", explicit_task_start)]
    async fn test_tool_with_task(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        let name = ask_form(ctx, "user_name", "What is your name?", "name", "string").await?;
        ctx.start_task().await?;
        Ok(format!("Hello, {}! (finished as a task)", text_of(&name)))
    }

    /// Asks for a confirmation; a changed request state is refused before the tool runs.
    #[tool(read_only)]
    async fn test_input_required_result_tampered_state(
        &self,
        ctx: &ToolContext,
    ) -> Result<String, ToolError> {
        confirm(ctx).await
    }
}

/// Asks the question `confirm` and says the state came back whole (`state-ok`, which the
/// request-state scenario looks for; a changed state never reaches the tool).
async fn confirm(ctx: &ToolContext) -> Result<String, ToolError> {
    let ok = ask_form(ctx, "confirm", "Please confirm", "ok", "boolean").await?;
    Ok(format!("state-ok: confirmed={ok}"))
}

/// Asks the form question `key` with one required `field` of JSON Schema type `kind`, and
/// returns the field's value (null when the user declined).
async fn ask_form(
    ctx: &ToolContext,
    key: &str,
    message: &str,
    field: &str,
    kind: &str,
) -> Result<Value, ToolError> {
    let form = json!({"type": "object", "properties": {field: {"type": kind}}, "required": [field]});
    match ctx
        .ask(key, InputRequest::Elicit(ElicitRequest::form(message, form)))
        .await?
    {
        InputResponse::Elicit(answer) => Ok(answer
            .content
            .and_then(|content| content.get(field).cloned())
            .unwrap_or(Value::Null)),
        _ => Err(ToolError::new(
            "the client answered a question with something else",
        )),
    }
}

/// Asks the client's model `prompt` as the question `key` and returns its text.
async fn ask_model(ctx: &ToolContext, key: &str, prompt: &str, max_tokens: u32) -> Result<String, ToolError> {
    let request = SamplingRequest::new(vec![SamplingMessage::user(prompt)], max_tokens);
    match ctx.ask(key, InputRequest::sample(request)).await? {
        InputResponse::Sample(answer) => Ok(answer.text()),
        _ => Err(ToolError::new(
            "the client answered a question with something else",
        )),
    }
}

/// Asks for the client's roots as the question `key` and lists their URIs.
async fn ask_roots(ctx: &ToolContext, key: &str) -> Result<String, ToolError> {
    match ctx.ask(key, InputRequest::ListRoots).await? {
        InputResponse::Roots(roots) => Ok(roots
            .iter()
            .map(|root| root.uri.as_str())
            .collect::<Vec<_>>()
            .join(", ")),
        _ => Err(ToolError::new(
            "the client answered a question with something else",
        )),
    }
}

/// A JSON value as text: a string without its quotes.
fn text_of(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_owned)
}

// The forms of the elicitation tools. `ctx.elicit::<T>` sends the form schemars derives
// from `T` — doc comments become descriptions, `#[serde(default)]` values defaults — and
// deserializes the user's answer into `T`.

/// `test_elicitation`'s form.
#[derive(Deserialize, Serialize, JsonSchema)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// SEP-1034: a default for each primitive type, shown pre-filled.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(default)]
struct Profile {
    /// User name
    name: String,
    /// User age
    age: i64,
    /// User score
    score: f64,
    /// User status
    status: Status,
    /// Verification status
    verified: bool,
}

impl Default for Profile {
    fn default() -> Self {
        Self {
            name: "John Doe".to_owned(),
            age: 30,
            score: 95.5,
            status: Status::Active,
            verified: true,
        }
    }
}

/// An untitled enum: its values are all the user sees.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// SEP-1330: the five shapes of a choice.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Choices {
    /// Untitled single-select
    untitled_single: Plain,
    /// Titled single-select
    titled_single: TitledOption,
    /// Legacy titled single-select
    legacy_enum: Legacy,
    /// Untitled multi-select
    untitled_multi: Vec<Plain>,
    /// Titled multi-select
    titled_multi: Vec<TitledChoice>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Plain {
    Option1,
    Option2,
    Option3,
}

/// A documented variant's doc comment is the title the user sees.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum TitledOption {
    /// First Option
    Value1,
    /// Second Option
    Value2,
    /// Third Option
    Value3,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum TitledChoice {
    /// First Choice
    Value1,
    /// Second Choice
    Value2,
    /// Third Choice
    Value3,
}

/// Titles the older way, `enumNames` beside `enum`, which clients that predate SEP-1330
/// show.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
enum Legacy {
    Opt1,
    Opt2,
    Opt3,
}

/// An answer as the suite's texts write it: `action=accept, content={…}`.
fn describe<T: Serialize>(answer: &Elicited<T>) -> String {
    match answer {
        Elicited::Accepted(content) => {
            let content = serde_json::to_string(content).unwrap_or_default();
            format!("action=accept, content={content}")
        }
        Elicited::Declined => "action=decline".to_owned(),
        Elicited::Cancelled => "action=cancel".to_owned(),
    }
}

/// Waits one [`STEP`], or ends the call if it is cancelled meanwhile (the client's
/// `notifications/cancelled`, a timeout).
async fn pause(ctx: &ToolContext) -> Result<(), ToolError> {
    tokio::select! {
        () = tokio::time::sleep(STEP) => Ok(()),
        () = ctx.cancelled() => Err(ToolError::cancelled()),
    }
}

/// `json_schema_2020_12_tool`: the suite checks that a schema written by hand reaches
/// clients as written — `$schema`, `$defs` and `additionalProperties` (SEP-1613), and on
/// the 2026-07-28 line also `$anchor`, `allOf`/`anyOf` and `if`/`then`/`else` (SEP-2106).
///
/// A schema that is data is a [`DynamicTool`]'s, served as given. (`#[tool]` derives the
/// schema from the argument type instead, and leaves out `$schema`: its schemas are all
/// draft 2020-12, which MCP assumes when none is named.)
fn json_schema_2020_12_tool() -> DynamicTool {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"}
                }
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    });
    DynamicTool::new(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        schema,
        |args: Value, _ctx: ToolContext| async move {
            // The registry has validated `args` against the schema above.
            Ok::<_, ToolError>(format!("Received: {args}"))
        },
    )
}

/// `test_trigger_tool_change`: registers a tool, or unregisters it if it is there, so
/// that clients listening for list changes (`subscriptions/listen`) hear one.
fn trigger_tool_change_tool(registry: WeakToolRegistry) -> DynamicTool {
    const MARKER: &str = "test_tool_change_marker";
    DynamicTool::new(
        "test_trigger_tool_change",
        "Changes the tool list: adds or removes the tool test_tool_change_marker",
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
        move |_args: Value, _ctx: ToolContext| {
            let registry = registry.upgrade();
            async move {
                let registry = registry.ok_or_else(|| ToolError::new("the server is stopping"))?;
                if registry.unregister(MARKER).is_some() {
                    return Ok::<_, ToolError>(format!("removed {MARKER}"));
                }
                let marker = DynamicTool::new(
                    MARKER,
                    "Is listed between two calls of test_trigger_tool_change",
                    json!({"type": "object", "properties": {}, "additionalProperties": false}),
                    |_args: Value, _ctx: ToolContext| async { Ok::<_, ToolError>("marker") },
                );
                registry.register(marker).map_err(ToolError::new)?;
                Ok(format!("added {MARKER}"))
            }
        },
    )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:0".to_owned());
    // `--stateless`: no sessions, as a replica behind a load balancer serves.
    let options = match args.next().as_deref() {
        Some("--stateless") => HttpOptions::new().stateless(),
        Some(other) => return Err(format!("unknown option `{other}` (expected --stateless)").into()),
        None => HttpOptions::new(),
    };
    let registry = ToolRegistry::new();
    Arc::new(ConformanceTools).register_all(&registry)?;
    registry.register(json_schema_2020_12_tool())?;
    registry.register(trigger_tool_change_tool(registry.downgrade()))?;
    let server = McpHandler::new(registry)
        .server_info("agent-tools-conformance", env!("CARGO_PKG_VERSION"))
        .serve_http_with(addr, options)
        .await?;
    // The line scripts/conformance waits for: the server accepts connections from now on.
    println!("{}", server.url());
    server
        .wait_until(async {
            // Without a signal handler (it could not be installed) serve until killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        })
        .await?;
    Ok(())
}
