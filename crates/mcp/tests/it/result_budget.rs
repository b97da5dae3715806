//! Results fitted to their budget over MCP: the client's `anthropic/maxResultSizeChars`
//! honoured, and the whole result read back through the link the cut result carries.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agent_tools_core::output::{KeptResult, OverflowedResult, ResultOverflow};
use agent_tools_core::tool::{BoxFuture, DynamicTool};
use agent_tools_core::{ToolContext, ToolError, ToolRegistry};
use agent_tools_mcp::serve_http;
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, RequestMetaObject, ResourceContents};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

/// Keeps results in memory, each at a URI of its own.
#[derive(Default, Clone)]
struct Kept(Arc<Mutex<HashMap<String, String>>>);

impl ResultOverflow for Kept {
    fn keep<'a>(&'a self, result: OverflowedResult<'a>) -> BoxFuture<'a, Result<KeptResult, String>> {
        let uri = format!("memory:///results/{}", result.call_id);
        self.0.lock().unwrap().insert(uri.clone(), result.text.to_owned());
        Box::pin(async move { Ok(KeptResult::file(format!("results/{}", result.call_id)).with_uri(uri)) })
    }

    fn read<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move { self.0.lock().unwrap().get(uri).cloned() })
    }
}

fn big_text() -> String {
    (1..=5000)
        .map(|n| format!("line {n}: some words to fill it\n"))
        .collect()
}

fn registry() -> ToolRegistry {
    let registry = ToolRegistry::builder()
        .max_result_tokens(2_000)
        .result_overflow(Kept::default())
        .build();
    let big = DynamicTool::new(
        "big",
        "Returns a lot.",
        json!({"type": "object"}),
        |_: Value, _: ToolContext| async { Ok::<_, ToolError>(big_text()) },
    );
    registry.register(big).unwrap();
    registry
}

#[tokio::test]
async fn a_cut_result_links_to_the_whole_text_and_the_clients_cap_is_honoured() {
    let server = serve_http(registry(), "127.0.0.1:0").await.unwrap();
    let client = ().serve(StreamableHttpClientTransport::from_uri(server.url())).await.unwrap();
    let capabilities = client.peer_info().unwrap().capabilities.clone();
    assert!(
        capabilities.resources.is_some(),
        "a server that keeps results offers them"
    );

    // The budget of 2,000 estimated tokens alone: about 6,000 bytes shown.
    let result = client
        .peer()
        .call_tool(CallToolRequestParams::new("big"))
        .await
        .unwrap();
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|part| part.as_text().map(|t| t.text.as_str()))
        .collect();
    let shown: usize = texts.iter().map(|text| text.len()).sum();
    assert!(shown <= 6_000 && shown > 4_000, "{shown} bytes shown");
    let uri = result
        .content
        .iter()
        .find_map(|part| Some(part.as_resource_link()?.uri.clone()))
        .expect("a link to the whole result");
    let read = client
        .peer()
        .read_resource(ReadResourceRequestParams::new(uri.clone()))
        .await
        .unwrap();
    let [ResourceContents::TextResourceContents { text, .. }] = read.contents.as_slice() else {
        panic!("one text: {:?}", read.contents);
    };
    assert_eq!(*text, big_text());

    // Claude Code's cap in characters, smaller than the budget, wins.
    let mut meta = RequestMetaObject::new();
    meta.0
        .0
        .insert("anthropic/maxResultSizeChars".into(), json!(1_000));
    let mut capped = CallToolRequestParams::new("big");
    capped.meta = Some(meta);
    let result = client.peer().call_tool(capped).await.unwrap();
    let chars: usize = result
        .content
        .iter()
        .filter_map(|part| part.as_text().map(|t| t.text.chars().count()))
        .sum();
    assert!(chars <= 1_000, "{chars} characters");
    assert!(result.content.iter().any(|part| {
        part.as_text()
            .is_some_and(|t| t.text.contains("1,000 characters"))
    }));

    // A URI the store did not hand out is not found.
    let unknown = client
        .peer()
        .read_resource(ReadResourceRequestParams::new("memory:///results/guess"))
        .await;
    assert!(unknown.is_err());
    client.cancel().await.unwrap();
}
