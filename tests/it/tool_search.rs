//! Deferred tools and tool search: what each dialect's request offers (checked against
//! the providers' documented examples and, independently, their rules), and the
//! registry's own `tool_search` found, called and followed by a call to what it found.

use agent_tools::testing::{provider_rule_violations, tool_list_violations};
use agent_tools::{
    Dialect, ToolCall, ToolError, ToolOutput, ToolRegistry, dialect::DefinitionOptions,
    search::ToolSearchMode, tool, tool::DynamicTool,
};
use serde_json::{Value, json};

/// Read a text file in the workspace.
#[tool(read_only)]
async fn read_file(
    /// The file's path.
    path: String,
) -> String {
    format!("contents of {path}")
}

/// Send an email message to one recipient.
#[tool(defer, open_world)]
async fn send_email(
    /// The recipient's address.
    to: String,
    /// What the message says.
    body: String,
) -> String {
    format!("sent to {to}: {body}")
}

/// Create an invoice for a customer.
#[tool(defer)]
async fn create_invoice(
    /// The customer's id.
    customer: String,
    /// The amount, in cents.
    cents: u64,
) -> String {
    format!("invoice for {customer}: {cents}")
}

fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    registry.register(ReadFileTool).unwrap();
    registry.register(SendEmailTool).unwrap();
    registry.register(CreateInvoiceTool).unwrap();
    registry
}

/// The tool names in a request's list, whatever the dialect's shape.
fn names(definitions: &[Value]) -> Vec<String> {
    definitions
        .iter()
        .map(|definition| {
            let name = definition
                .get("name")
                .or_else(|| definition.pointer("/function/name"))
                .and_then(Value::as_str);
            let kind = definition.get("type").and_then(Value::as_str);
            match (name, kind) {
                (Some(name), _) => name.to_owned(),
                (None, Some(kind)) => format!("<{kind}>"),
                (None, None) => "<unnamed>".to_owned(),
            }
        })
        .collect()
}

fn assert_providers_accept(options: DefinitionOptions, definitions: &[Value]) {
    for definition in definitions {
        let violations = provider_rule_violations(options.dialect, definition);
        assert!(
            violations.is_empty(),
            "{}: {violations:?}\n{definition:#}",
            options.dialect
        );
    }
    let violations = tool_list_violations(options.dialect, definitions);
    assert!(violations.is_empty(), "{}: {violations:?}", options.dialect);
}

#[test]
fn dialects_without_a_native_search_get_the_core_tools_and_tool_search() {
    let registry = registry();
    for dialect in [Dialect::OpenAiChat, Dialect::Gemini, Dialect::Mcp] {
        let options = DefinitionOptions::new(dialect);
        let definitions = registry.definitions_with(options);
        assert_eq!(names(&definitions), ["read_file", "tool_search"], "{dialect}");
        assert!(
            !definitions
                .iter()
                .any(|d| d.to_string().contains("defer_loading"))
        );
        assert_providers_accept(options, &definitions);
    }
}

#[test]
fn anthropic_gets_every_tool_with_defer_loading_and_its_bm25_search_tool() {
    let registry = registry();
    let options = DefinitionOptions::new(Dialect::Anthropic);
    let definitions = registry.definitions_with(options);
    assert_eq!(
        names(&definitions),
        [
            "read_file",
            "send_email",
            "create_invoice",
            "tool_search_tool_bm25"
        ]
    );
    assert_eq!(definitions[0].get("defer_loading"), None);
    assert_eq!(definitions[1]["defer_loading"], true);
    assert_eq!(definitions[2]["defer_loading"], true);
    // The search tool as the documentation writes it.
    assert_eq!(
        definitions[3],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    assert_providers_accept(options, &definitions);
}

#[test]
fn openai_responses_gets_deferred_functions_and_the_hosted_tool_search() {
    let registry = registry();
    let options = DefinitionOptions::new(Dialect::OpenAiResponses);
    let definitions = registry.definitions_with(options);
    assert_eq!(
        names(&definitions),
        ["read_file", "send_email", "create_invoice", "<tool_search>"]
    );
    assert_eq!(definitions[1]["type"], "function");
    assert_eq!(definitions[1]["defer_loading"], true);
    assert_eq!(definitions[3], json!({"type": "tool_search"}));
    assert_providers_accept(options, &definitions);
}

/// Anthropic's documented deferred tool, from "Tool search tool" → "Deferred tool
/// loading", rendered by the registry.
#[test]
fn anthropics_documented_example_is_what_the_registry_sends() {
    let documented = json!({
        "name": "get_weather",
        "description": "Get current weather for a location",
        "input_schema": {
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
            },
            "required": ["location"]
        },
        "defer_loading": true
    });
    let registry = ToolRegistry::builder().defer_all_except(["other"]).build();
    let tool = DynamicTool::new(
        "get_weather",
        "Get current weather for a location",
        documented["input_schema"].clone(),
        |_, _| async { Ok::<_, ToolError>(ToolOutput::text("sunny")) },
    );
    registry.register(tool).unwrap();
    let definitions = registry.definitions(Dialect::Anthropic);
    assert_eq!(definitions[0], documented);
}

/// The shape of OpenAI's guide: a function with `defer_loading: true` beside
/// `{"type": "tool_search"}` (its strict form is the registry's usual OpenAI one).
#[test]
fn openais_documented_shape_is_what_the_registry_sends() {
    let registry = registry();
    let definitions = registry.definitions(Dialect::OpenAiResponses);
    let send_email = &definitions[1];
    let mut keys: Vec<&str> = send_email
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "defer_loading",
            "description",
            "name",
            "parameters",
            "strict",
            "type"
        ]
    );
}

#[test]
fn local_mode_is_available_everywhere_and_load_all_sends_everything() {
    let registry = registry();
    for dialect in Dialect::ALL {
        let local = DefinitionOptions::new(dialect).tool_search(ToolSearchMode::Local);
        let definitions = registry.definitions_with(local);
        assert_eq!(names(&definitions), ["read_file", "tool_search"], "{dialect}");
        assert_providers_accept(local, &definitions);
        let all = DefinitionOptions::new(dialect).tool_search(ToolSearchMode::LoadAll);
        let definitions = registry.definitions_with(all);
        assert_eq!(
            names(&definitions),
            ["read_file", "send_email", "create_invoice"],
            "{dialect}"
        );
        assert_providers_accept(all, &definitions);
    }
}

#[test]
fn without_deferred_tools_nothing_changes() {
    let registry = ToolRegistry::new();
    registry.register(ReadFileTool).unwrap();
    assert_eq!(registry.names(), ["read_file"]);
    for dialect in Dialect::ALL {
        assert_eq!(names(&registry.definitions(dialect)), ["read_file"]);
    }
}

#[test]
fn the_checkers_refuse_what_the_providers_refuse() {
    let deferred = json!({"name": "x", "input_schema": {"type": "object"}, "defer_loading": true});
    let violations = tool_list_violations(Dialect::Anthropic, std::slice::from_ref(&deferred));
    assert_eq!(violations, ["tools: at least one tool must not be deferred"]);
    let search = json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25", "defer_loading": true});
    let violations = provider_rule_violations(Dialect::Anthropic, &search);
    assert_eq!(
        violations,
        ["defer_loading: the tool search tool itself must not be deferred"]
    );
    let misnamed = json!({"type": "tool_search_tool_bm25_20251119", "name": "search"});
    assert_eq!(
        provider_rule_violations(Dialect::Anthropic, &misnamed),
        ["name: must be \"tool_search_tool_bm25\""]
    );
    let function = json!({"type": "function", "name": "x", "parameters": {"type": "object"}, "strict": false, "defer_loading": true});
    let violations = tool_list_violations(Dialect::OpenAiResponses, std::slice::from_ref(&function));
    assert_eq!(
        violations,
        ["tools: deferred functions need the `tool_search` tool in the request"]
    );
    let chat = json!({"type": "function", "function": {"name": "x", "parameters": {"type": "object"}}, "defer_loading": true});
    assert!(!provider_rule_violations(Dialect::OpenAiChat, &chat).is_empty());
}

#[tokio::test]
async fn tool_search_finds_deferred_tools_and_returns_their_definitions() {
    let registry = registry();
    let call = ToolCall::new("s1", "tool_search", json!({"query": "email someone a message"}))
        .with_definition_options(DefinitionOptions::new(Dialect::OpenAiChat));
    let result = registry.call(call).await;
    assert!(!result.is_error(), "{}", result.text());
    let first = result.text().lines().next().unwrap_or_default().to_owned();
    assert!(first.starts_with("send_email — Send an email message"), "{first}");
    assert!(first.contains("Arguments: to, body."), "{first}");
    let structured = result.output.structured.clone().unwrap();
    assert_eq!(structured["tools"][0]["function"]["name"], "send_email");
    assert_eq!(
        structured["tools"][0],
        registry.definitions_with(
            DefinitionOptions::new(Dialect::OpenAiChat).tool_search(ToolSearchMode::LoadAll),
        )[1]
    );

    // What it found is called as any tool; deferral never decided what runs.
    let result = registry
        .call(ToolCall::new(
            "c1",
            "send_email",
            json!({"to": "a@example.test", "body": "hi"}),
        ))
        .await;
    assert_eq!(result.text(), "sent to a@example.test: hi");
}

#[tokio::test]
async fn tool_search_answers_in_mcp_form_by_default_and_says_when_nothing_matches() {
    let registry = registry();
    let result = registry
        .call(ToolCall::new(
            "s1",
            "tool_search",
            json!({"query": "invoice", "limit": 1}),
        ))
        .await;
    assert_eq!(result.text().lines().count(), 1);
    let structured = result.output.structured.clone().unwrap();
    assert_eq!(structured["tools"][0]["name"], "create_invoice");
    assert!(structured["tools"][0]["inputSchema"].is_object());

    let result = registry
        .call(ToolCall::new(
            "s2",
            "tool_search",
            json!({"query": "quantum teleportation"}),
        ))
        .await;
    assert!(!result.is_error());
    assert!(result.text().starts_with("No tool matches"), "{}", result.text());

    let result = registry
        .call(ToolCall::new(
            "s3",
            "tool_search",
            json!({"query": "", "limit": 100}),
        ))
        .await;
    assert!(result.is_error());
    assert!(
        result.text().contains("query") && result.text().contains("limit"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn the_search_follows_the_registry_as_tools_come_and_go() {
    let registry = ToolRegistry::builder().defer_all_except(["read_file"]).build();
    registry.register(ReadFileTool).unwrap();
    assert_eq!(registry.names(), ["read_file"], "nothing deferred yet, no search");
    registry.register(SendEmailTool).unwrap();
    assert_eq!(registry.names(), ["read_file", "send_email", "tool_search"]);
    let search = |query: &'static str| {
        let registry = registry.clone();
        async move {
            registry
                .call(ToolCall::new("s", "tool_search", json!({"query": query})))
                .await
                .text()
        }
    };
    assert!(search("invoice").await.starts_with("No tool matches"));
    registry.register(CreateInvoiceTool).unwrap();
    assert!(search("invoice").await.starts_with("create_invoice"));

    // A derived registry searches its own tools only.
    let view = registry.filter(|spec| spec.meta.name != "create_invoice");
    let found = view
        .call(ToolCall::new("s", "tool_search", json!({"query": "invoice"})))
        .await;
    assert!(found.text().starts_with("No tool matches"), "{}", found.text());

    registry.unregister("send_email");
    registry.unregister("create_invoice");
    assert_eq!(
        registry.names(),
        ["read_file"],
        "the search goes with the last deferred tool"
    );
}

#[tokio::test]
async fn an_applications_own_tool_search_is_kept() {
    let registry = registry();
    let own = DynamicTool::new("tool_search", "Mine.", json!({"type": "object"}), |_, _| async {
        Ok::<_, ToolError>(ToolOutput::text("my search"))
    });
    registry.register(own).unwrap();
    assert_eq!(
        registry
            .names()
            .iter()
            .filter(|name| *name == "tool_search")
            .count(),
        1
    );
    let result = registry.call(ToolCall::new("s", "tool_search", json!({}))).await;
    assert_eq!(result.text(), "my search");
}
