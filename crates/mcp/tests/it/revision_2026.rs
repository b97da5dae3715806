//! MCP 2026-07-28 over real HTTP on 127.0.0.1, with requests written by hand as the
//! conformance suite writes them, so the test sees the wire: input-required results
//! (SEP-2322) — a tool's question comes back as an `InputRequiredResult`, the answers come
//! in the next request with the sealed `requestState`, and the state is refused when it is
//! changed, moved to another call or used twice — and the cache hints of lists.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_tools_core::caller::{ElicitRequest, InputRequest, InputResponse};
use agent_tools_core::{ToolContext, ToolError, ToolRegistry, tool::DynamicTool};
use agent_tools_mcp::{HttpServer, serve_http};
use serde_json::{Value, json};

use crate::request_2026::{Request, call, call_params, post};

/// A tool that charges once (counted), then asks for a confirmation by name.
fn confirming_tool(charges: Arc<AtomicUsize>) -> DynamicTool {
    let schema = json!({"type": "object", "properties": {"amount": {"type": "integer"}}});
    DynamicTool::new(
        "pay",
        "Pays after a confirmation.",
        schema,
        move |args: Value, ctx: ToolContext| {
            let charges = charges.clone();
            async move {
                // Kept across rounds: the charge is not made again when the client answers.
                let receipt: String = ctx
                    .remember("charge", async {
                        let n = charges.fetch_add(1, Ordering::SeqCst) + 1;
                        Ok(format!("receipt-{n}"))
                    })
                    .await?;
                let form =
                    json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
                let question = InputRequest::Elicit(ElicitRequest::form("Confirm the payment?", form));
                let InputResponse::Elicit(answer) = ctx.ask("confirm", question).await? else {
                    return Err(ToolError::new("another kind of answer"));
                };
                let ok = answer.content.and_then(|content| content.get("ok").cloned());
                Ok::<_, ToolError>(format!(
                    "{} {receipt} confirmed={}",
                    args["amount"],
                    ok.unwrap_or(Value::Null)
                ))
            }
        },
    )
}

async fn server() -> (HttpServer, Arc<AtomicUsize>) {
    let charges = Arc::new(AtomicUsize::new(0));
    let registry = ToolRegistry::new();
    registry
        .register(confirming_tool(charges.clone()))
        .expect("registers");
    let server = serve_http(registry, "127.0.0.1:0").await.expect("serves");
    (server, charges)
}

fn accept(ok: bool) -> Value {
    json!({"confirm": {"action": "accept", "content": {"ok": ok}}})
}

/// Calls `pay` of `amount` again, confirming, with `state` as the `requestState`.
async fn confirm_with(server: &HttpServer, amount: u64, state: &str) -> Value {
    let retry = json!({"inputResponses": accept(true), "requestState": state});
    call(server, "pay", json!({"amount": amount}), retry).await
}

#[tokio::test]
async fn a_question_comes_back_as_input_required_and_the_answer_finishes_the_call() {
    let (server, charges) = server().await;
    let first = call(&server, "pay", json!({"amount": 5}), json!({})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert_eq!(result["inputRequests"]["confirm"]["method"], "elicitation/create");
    assert_eq!(
        result["inputRequests"]["confirm"]["params"]["message"],
        "Confirm the payment?"
    );
    let state = result["requestState"]
        .as_str()
        .expect("a request state")
        .to_owned();
    assert!(!state.contains("receipt"), "the state is sealed: {state}");

    let second = confirm_with(&server, 5, &state).await;
    assert_eq!(
        second["result"]["content"][0]["text"], "5 receipt-1 confirmed=true",
        "{second}"
    );
    assert_eq!(charges.load(Ordering::SeqCst), 1, "the kept step ran once");
}

#[tokio::test]
async fn a_changed_moved_or_reused_state_is_refused() {
    let (server, charges) = server().await;
    let first = call(&server, "pay", json!({"amount": 5}), json!({})).await;
    let state = first["result"]["requestState"]
        .as_str()
        .expect("a request state")
        .to_owned();

    // Changed.
    let tampered = format!("{state}-TAMPERED");
    let refused = confirm_with(&server, 5, &tampered).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    // Moved to a call with other arguments: the state is bound to the call.
    let moved = confirm_with(&server, 5000, &state).await;
    assert_eq!(moved["error"]["code"], -32602, "{moved}");
    // Used once, then again.
    let used = confirm_with(&server, 5, &state).await;
    assert!(used["result"]["content"].is_array(), "{used}");
    let replayed = confirm_with(&server, 5, &state).await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert!(
        replayed["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("used already")
    );
    assert_eq!(charges.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_answer_that_does_not_fit_is_a_protocol_error_and_extra_answers_are_ignored() {
    let (server, _charges) = server().await;
    let wrong = call(
        &server,
        "pay",
        json!({"amount": 1}),
        json!({"inputResponses": {"confirm": 12345}}),
    )
    .await;
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");
    assert!(
        wrong["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("`confirm`"),
        "{wrong}"
    );

    let extra =
        json!({"confirm": {"action": "accept", "content": {"ok": false}}, "unknown": {"action": "accept"}});
    let done = call(
        &server,
        "pay",
        json!({"amount": 1}),
        json!({"inputResponses": extra}),
    )
    .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "1 receipt-2 confirmed=false",
        "{done}"
    );

    // Answers under other names re-ask the question.
    let missing = call(
        &server,
        "pay",
        json!({"amount": 2}),
        json!({"inputResponses": {"other": {}}}),
    )
    .await;
    assert_eq!(missing["result"]["resultType"], "input_required", "{missing}");
}

#[tokio::test]
async fn a_tool_list_carries_cache_hints() {
    let (server, _charges) = server().await;
    let listed = post(&server, "tools/list", None, json!({})).await;
    let result = &listed["result"];
    assert_eq!(result["tools"][0]["name"], "pay", "{listed}");
    assert_eq!(result["ttlMs"], 0, "a registry may change while served: {listed}");
    assert_eq!(result["cacheScope"], "public", "{listed}");
}

/// A policy that asks before `publish` runs puts the question to a 2026 client's user as
/// the input-required question `approval`; the answer in the next request decides.
#[tokio::test]
async fn an_approval_is_asked_as_an_input_required_question() {
    let policy = agent_tools_core::policy::Policy::builder()
        .ask("publish")
        .build()
        .expect("a policy");
    let registry = ToolRegistry::builder().policy(policy).build();
    let schema = json!({"type": "object"});
    let publish = DynamicTool::new(
        "publish",
        "Publish the crate.",
        schema,
        |_: Value, _ctx: ToolContext| async { Ok::<_, ToolError>("published") },
    );
    registry.register(publish).expect("registers");
    let server = serve_http(registry, "127.0.0.1:0").await.expect("serves");
    for (decision, is_error, expected) in [("allow_once", false, "published"), ("deny", true, "denied")] {
        let first = call(&server, "publish", json!({}), json!({})).await;
        let question = &first["result"]["inputRequests"]["approval"];
        assert_eq!(question["method"], "elicitation/create", "{first}");
        assert!(
            question["params"]["requestedSchema"]["properties"]["decision"].is_object(),
            "{first}"
        );
        let state = first["result"]["requestState"].clone();
        let answer = json!({"approval": {"action": "accept", "content": {"decision": decision, "reason": "denied by the test"}}});
        let second = call(
            &server,
            "publish",
            json!({}),
            json!({"inputResponses": answer, "requestState": state}),
        )
        .await;
        let result = &second["result"];
        assert_eq!(result["isError"], is_error, "{second}");
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains(expected), "{decision}: {text}");
    }
}

/// A tool that declares `region` as the header `Mcp-Param-Region`: its definition says so,
/// and a request whose header disagrees with the argument, or lacks it, is refused before
/// the tool runs (HTTP 400, `-32020`), so a proxy routing on the header routes what runs.
#[tokio::test]
async fn an_argument_declared_as_a_header_must_agree_with_it() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = runs.clone();
    let schema =
        json!({"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]});
    let meta =
        agent_tools_core::tool::ToolMeta::new("query", "Query a region.").header_argument("region", "Region");
    let query = DynamicTool::from_meta(meta, schema, move |args: Value, _ctx: ToolContext| {
        counted.fetch_add(1, Ordering::SeqCst);
        async move { Ok::<_, ToolError>(format!("queried {}", args["region"])) }
    });
    let registry = ToolRegistry::new();
    registry.register(query).expect("registers");
    let server = serve_http(registry, "127.0.0.1:0").await.expect("serves");

    let listed = post(&server, "tools/list", None, json!({})).await;
    let region = &listed["result"]["tools"][0]["inputSchema"]["properties"]["region"];
    assert_eq!(region["x-mcp-header"], "Region", "{listed}");

    let params = || call_params("query", json!({"region": "eu-west"}), json!({}));
    let agreed = Request::new("tools/call", params())
        .header("mcp-name", "query")
        .header("mcp-param-region", "eu-west")
        .send(&server)
        .await;
    assert_eq!(
        agreed.response["result"]["content"][0]["text"], "queried \"eu-west\"",
        "{}",
        agreed.response
    );
    for header in [Some("us-east"), None] {
        let mut request = Request::new("tools/call", params()).header("mcp-name", "query");
        if let Some(value) = header {
            request = request.header("mcp-param-region", value);
        }
        let refused = request.send(&server).await;
        assert_eq!(
            refused.status,
            reqwest::StatusCode::BAD_REQUEST,
            "{header:?}: {}",
            refused.response
        );
        assert_eq!(
            refused.response["error"]["code"], -32020,
            "{header:?}: {}",
            refused.response
        );
    }
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "only the agreeing request ran the tool"
    );
}

/// A call that failed because it could not ask what the client did not declare ends with
/// the error naming the capability (`-32021`, HTTP 400), so the client knows what to add.
#[tokio::test]
async fn a_call_that_needed_an_undeclared_capability_names_it() {
    let ask_model = DynamicTool::new(
        "summarize",
        "Summarizes with the client's model.",
        json!({"type": "object"}),
        |_args: Value, ctx: ToolContext| async move {
            let request = agent_tools_core::caller::SamplingRequest::new(
                vec![agent_tools_core::caller::SamplingMessage::user("Summarize")],
                50,
            );
            let answer = ctx.sample(request).await?;
            Ok::<_, ToolError>(answer.text())
        },
    );
    let registry = ToolRegistry::new();
    registry.register(ask_model).expect("registers");
    let server = serve_http(registry, "127.0.0.1:0").await.expect("serves");
    let without_sampling = json!({"elicitation": {}});
    let reply = Request::new("tools/call", call_params("summarize", json!({}), json!({})))
        .header("mcp-name", "summarize")
        .meta("io.modelcontextprotocol/clientCapabilities", without_sampling)
        .send(&server)
        .await;
    assert_eq!(
        reply.status,
        reqwest::StatusCode::BAD_REQUEST,
        "{}",
        reply.response
    );
    assert_eq!(reply.response["error"]["code"], -32021, "{}", reply.response);
    assert!(
        reply.response["error"]["data"]["requiredCapabilities"]["sampling"].is_object(),
        "{}",
        reply.response
    );
    // Declared, the question is asked.
    let asked = call(&server, "summarize", json!({}), json!({})).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
}

/// Without a session there is no `logging/setLevel`: a request that names a level in its
/// `_meta` gets the call's log messages at that level and above on its stream; one that
/// names none gets none.
#[tokio::test]
async fn log_messages_reach_only_a_request_that_named_a_level() {
    let logging = DynamicTool::new(
        "chatty",
        "Logs twice.",
        json!({"type": "object"}),
        |_args: Value, ctx: ToolContext| async move {
            ctx.log(agent_tools_core::caller::LogLevel::Debug, "a detail");
            ctx.log(agent_tools_core::caller::LogLevel::Warning, "a warning");
            Ok::<_, ToolError>("done")
        },
    );
    let registry = ToolRegistry::new();
    registry.register(logging).expect("registers");
    let server = serve_http(registry, "127.0.0.1:0").await.expect("serves");
    let request = || {
        Request::new("tools/call", call_params("chatty", json!({}), json!({}))).header("mcp-name", "chatty")
    };

    let quiet = request().send(&server).await;
    assert_eq!(
        quiet.response["result"]["content"][0]["text"], "done",
        "{}",
        quiet.response
    );
    assert!(quiet.notifications.is_empty(), "{:?}", quiet.notifications);

    let told = request()
        .meta("io.modelcontextprotocol/logLevel", json!("info"))
        .send(&server)
        .await;
    assert_eq!(
        told.response["result"]["content"][0]["text"], "done",
        "{}",
        told.response
    );
    let logged: Vec<&Value> = told
        .notifications
        .iter()
        .filter(|message| message["method"] == "notifications/message")
        .collect();
    assert_eq!(logged.len(), 1, "{:?}", told.notifications);
    assert_eq!(logged[0]["params"]["level"], "warning");
    assert_eq!(logged[0]["params"]["data"], "a warning");
}

/// 2026-07-28 takes output schemas and `structuredContent` of any JSON type: a tool whose
/// structured output is a list has its schema listed and its list as the structured
/// content, both of which earlier revisions leave out (they get the list as text).
#[tokio::test]
async fn structured_output_of_any_json_type_reaches_a_2026_client() {
    let list = DynamicTool::new(
        "primes",
        "Lists primes.",
        json!({"type": "object"}),
        |_: Value, _ctx: ToolContext| async {
            Ok::<_, ToolError>(
                agent_tools_core::ToolOutput::text("[2,3,5]").with_structured(json!([2, 3, 5])),
            )
        },
    )
    .output_schema(json!({"type": "array", "items": {"type": "integer"}}));
    let registry = ToolRegistry::new();
    registry.register(list).expect("registers");
    let server = serve_http(registry, "127.0.0.1:0").await.expect("serves");
    let listed = post(&server, "tools/list", None, json!({})).await;
    assert_eq!(
        listed["result"]["tools"][0]["outputSchema"]["type"], "array",
        "{listed}"
    );
    let called = call(&server, "primes", json!({}), json!({})).await;
    assert_eq!(
        called["result"]["structuredContent"],
        json!([2, 3, 5]),
        "{called}"
    );
}

/// A question asked from another task than the call's own — as a mounted server's
/// request to our client is, or a task the tool spawned — still ends the round with an
/// input-required result, rather than leaving the request hanging.
#[tokio::test]
async fn a_question_asked_from_another_task_still_ends_the_round() {
    let spawned = DynamicTool::new(
        "ask_elsewhere",
        "Asks from a task of its own.",
        json!({"type": "object"}),
        |_: Value, ctx: ToolContext| async move {
            let asking = ctx.clone();
            let answer = tokio::spawn(async move {
                let form = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
                let question = InputRequest::Elicit(ElicitRequest::form("Go on?", form));
                asking.ask("go_on", question).await
            })
            .await
            .map_err(|error| ToolError::new(error.to_string()))??;
            Ok::<_, ToolError>(format!("answered: {}", answer.into_elicit().is_some()))
        },
    );
    let registry = ToolRegistry::new();
    registry.register(spawned).expect("registers");
    let server = serve_http(registry, "127.0.0.1:0").await.expect("serves");
    let asked = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        call(&server, "ask_elsewhere", json!({}), json!({})),
    )
    .await
    .expect("the round ends at the question, not hanging");
    assert!(asked["result"]["inputRequests"]["go_on"].is_object(), "{asked}");
}
