//! What a token's scopes let `tool_search` reveal, served over HTTP with OAuth against
//! a real authorization server on loopback (`support/auth_server.rs`), to rmcp's own
//! client: a token that reaches only read-only tools finds no definition of a deferred
//! tool it does not reach, its session's list does not grow by one, and an unknown tool's
//! suggestions do not name one — each answer the same as if the tool did not exist —
//! while a token that reaches the tool gets all of it.

use agent_tools_core::{
    ToolContext, ToolError, ToolRegistry,
    tool::{DynamicTool, ToolMeta},
};
use agent_tools_mcp::oauth::{OAuthResource, ScopeMap};
use agent_tools_mcp::{HttpOptions, HttpServer, McpHandler};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};

use auth_server::AuthServer;
use test_support::auth_server;

/// `peek` in the core set; `read_notes` (read-only) and `delete_notes` (destructive)
/// deferred.
fn registry() -> ToolRegistry {
    let registry = ToolRegistry::builder().defer_all_except(["peek"]).build();
    let tools = [
        ("peek", "Look at the desk.", true),
        ("read_notes", "Read the notes in the notebook.", true),
        (
            "delete_notes",
            "Delete the notes in the notebook for good.",
            false,
        ),
    ];
    for (name, description, read_only) in tools {
        let meta = ToolMeta::new(name, description).read_only(read_only);
        let tool = DynamicTool::from_meta(
            meta,
            json!({"type": "object", "properties": {"notebook": {"type": "string", "description": "Which notebook"}}}),
            |_args: Value, _ctx: ToolContext| async move { Ok::<_, ToolError>("done") },
        );
        registry.register(tool).unwrap();
    }
    registry
}

/// The authorization server, and the registry served behind it.
struct Setup {
    auth: AuthServer,
    server: HttpServer,
}

impl Setup {
    /// Served with `scopes`.
    async fn start(scopes: ScopeMap) -> Self {
        let auth = AuthServer::start().await;
        let port = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let audience = format!("http://127.0.0.1:{port}/mcp");
        let resource = OAuthResource::builder(auth.issuer(), &audience)
            .scopes(scopes)
            .build()
            .unwrap();
        let server = McpHandler::new(registry())
            .serve_http_with(("127.0.0.1", port), HttpOptions::new().oauth(resource))
            .await
            .unwrap();
        Self { auth, server }
    }

    /// `mcp:read` reaches the read-only tools, `mcp:write` every tool.
    async fn read_and_write() -> Self {
        let scopes = ScopeMap::new()
            .read_only("mcp:read", ["*"])
            .unwrap()
            .grant("mcp:write", ["*"])
            .unwrap();
        Self::start(scopes).await
    }

    /// A session of rmcp's client with a token for `sub` with `scope`.
    async fn session(&self, sub: &str, scope: &str) -> Session {
        let token = self.auth.token(&self.server.url(), sub, scope, json!({}));
        let config = StreamableHttpClientTransportConfig::with_uri(self.server.url()).auth_header(token);
        let transport = StreamableHttpClientTransport::from_config(config);
        let client = Client
            .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
            .await
            .unwrap();
        Session(client)
    }
}

/// A client of a protocol version with sessions.
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }
}

struct Session(RunningService<RoleClient, Client>);

impl Session {
    /// The names the session lists.
    async fn listed(&self) -> Vec<String> {
        let tools = self.0.peer().list_all_tools().await.unwrap();
        tools.into_iter().map(|tool| tool.name.to_string()).collect()
    }

    /// A `tool_search` for `query`: the text and the names of the definitions found.
    async fn search(&self, query: &str) -> (String, Vec<String>) {
        let arguments = json!({"query": query, "limit": 25});
        let request =
            CallToolRequestParams::new("tool_search").with_arguments(arguments.as_object().unwrap().clone());
        let result: CallToolResult = self.0.peer().call_tool(request).await.unwrap();
        assert_ne!(result.is_error, Some(true), "{result:?}");
        let text = result.content[0].as_text().unwrap().text.clone();
        let structured = result.structured_content.unwrap();
        let names = structured["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|definition| definition["name"].as_str().unwrap().to_owned())
            .collect();
        (text, names)
    }

    /// The error of a call of `name`, which the server does not know (to this caller).
    async fn unknown(&self, name: &str) -> String {
        let request = CallToolRequestParams::new(name.to_owned());
        self.0.peer().call_tool(request).await.unwrap_err().to_string()
    }
}

#[tokio::test]
async fn a_read_only_token_finds_and_loads_no_tool_it_does_not_reach() {
    let setup = Setup::read_and_write().await;
    let reader = setup.session("rita", "mcp:read").await;
    assert_eq!(reader.listed().await, ["peek", "tool_search"]);

    // `delete` matches only `delete_notes`: the answer is the one for no tool at all.
    let (text, found) = reader.search("delete").await;
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(
        text,
        "No tool matches `delete`. Try other words for what the tool would do."
    );
    // `notes` and its exact name match both; only the one it reaches comes back.
    for query in ["delete notes", "delete_notes", "notebook"] {
        let (text, found) = reader.search(query).await;
        assert_eq!(found, ["read_notes"], "{query}");
        assert!(!text.contains("delete"), "{query}: {text}");
    }
    assert_eq!(
        reader.listed().await,
        ["peek", "tool_search", "read_notes"],
        "the session's list grows by what the search found, and only by that"
    );
    let error = reader.unknown("delete_note").await;
    assert!(!error.contains("delete_notes"), "{error}");
    assert!(error.contains("unknown tool `delete_note`"), "{error}");

    // The control: a token that reaches `delete_notes` finds it, in full, and loads it.
    let writer = setup.session("wes", "mcp:read mcp:write").await;
    let (text, found) = writer.search("delete").await;
    assert_eq!(found, ["delete_notes"]);
    assert!(text.starts_with("delete_notes — Delete the notes"), "{text}");
    assert_eq!(writer.listed().await, ["peek", "tool_search", "delete_notes"]);
    let error = writer.unknown("delete_note").await;
    assert!(error.contains("Did you mean `delete_notes`"), "{error}");
    assert_eq!(
        reader.listed().await,
        ["peek", "tool_search", "read_notes"],
        "another session's search loads nothing here"
    );
}

#[tokio::test]
async fn a_token_that_reaches_no_deferred_tool_is_not_offered_the_search() {
    // `mcp:desk` reaches the search by name, but none of the tools it searches.
    let scopes = ScopeMap::new()
        .grant("mcp:desk", ["peek", "tool_search"])
        .unwrap()
        .grant("mcp:write", ["*"])
        .unwrap();
    let setup = Setup::start(scopes).await;
    let desk = setup.session("dora", "mcp:desk").await;
    assert_eq!(desk.listed().await, ["peek"]);
    let error = desk.unknown("tool_search").await;
    assert!(error.contains("unknown tool `tool_search`"), "{error}");
    let writer = setup.session("wes", "mcp:write").await;
    assert_eq!(writer.listed().await, ["peek", "tool_search"]);
}
