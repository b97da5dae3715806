//! Every kind of content part (audio and resource links too) and its annotations, over
//! MCP end to end: served to rmcp's client, mounted from our own server, mounted from a
//! second, hand-written implementation.

use std::future::Future;
use std::time::Duration;

use agent_tools_core::{
    Dialect, ToolCall, ToolContext, ToolError, ToolOutput, ToolRegistry,
    output::{Audience, Audio, Content, ContentAnnotations},
    tool::DynamicTool,
};
use agent_tools_mcp::{McpServer, MountMcp as _, MountOptions, serve_http};
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, Role};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

/// Bounds every wait in these tests; nothing should come near it.
const PATIENCE: Duration = Duration::from_secs(10);

async fn bounded<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(PATIENCE, future)
        .await
        .expect("finished within the test's patience")
}

fn annotations() -> ContentAnnotations {
    ContentAnnotations::new()
        .audience([Audience::User])
        .priority(0.8)
        .last_modified("2025-01-12T15:00:58Z")
}

/// One part of every kind, most of them annotated.
fn rich_output() -> ToolOutput {
    ToolOutput::text("Recorded the meeting.")
        .with_content(Content::from(Audio::wav(b"RIFF....WAVE".to_vec())).with_annotations(annotations()))
        .with_content(Content::ResourceLink {
            uri: "file:///meetings/2025-01-12.txt".into(),
            name: "2025-01-12.txt".into(),
            title: Some("Transcript".into()),
            description: Some("What everyone said.".into()),
            mime_type: Some("text/plain".into()),
            size: Some(48_213),
            annotations: Some(ContentAnnotations::new().audience([Audience::Assistant])),
        })
        .with_content(Content::resource_link("file:///meetings/notes.md", "notes.md"))
        .with_content(
            Content::from(agent_tools_core::output::Image::png(vec![1, 2, 3]))
                .with_annotations(annotations()),
        )
        .with_content(
            Content::text_resource("file:///agenda.md", Some("text/markdown".into()), "# Agenda")
                .with_annotations(ContentAnnotations::new().priority(0.25)),
        )
        .with_content(Content::text("for you").with_annotations(annotations()))
}

fn rich_registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    registry
        .register(DynamicTool::new(
            "rich",
            "Return one part of every kind.",
            json!({"type": "object"}),
            |_: Value, _: ToolContext| async { Ok::<_, ToolError>(rich_output()) },
        ))
        .unwrap();
    registry
}

#[tokio::test]
async fn every_part_and_its_annotations_reach_an_rmcp_client() {
    let server = serve_http(rich_registry(), "127.0.0.1:0").await.unwrap();
    let client = bounded(().serve(StreamableHttpClientTransport::from_uri(server.url())))
        .await
        .unwrap();
    let result = bounded(client.peer().call_tool(CallToolRequestParams::new("rich")))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.content.len(), 7);

    let audio = result.content[1].as_audio().expect("an audio block");
    assert_eq!(audio.mime_type, "audio/wav");
    assert_eq!(audio.data, "UklGRi4uLi5XQVZF");
    let audio_annotations = audio.annotations.as_ref().expect("annotations on the audio");
    assert_eq!(audio_annotations.audience, Some(vec![Role::User]));
    assert_eq!(audio_annotations.priority, Some(0.8));
    assert_eq!(
        audio_annotations.last_modified.as_deref(),
        Some("2025-01-12T15:00:58Z")
    );

    let link = result.content[2].as_resource_link().expect("a resource link");
    assert_eq!(link.uri, "file:///meetings/2025-01-12.txt");
    assert_eq!(link.name, "2025-01-12.txt");
    assert_eq!(link.title.as_deref(), Some("Transcript"));
    assert_eq!(link.description.as_deref(), Some("What everyone said."));
    assert_eq!(link.mime_type.as_deref(), Some("text/plain"));
    assert_eq!(link.size, Some(48_213));
    assert_eq!(
        link.annotations.as_ref().and_then(|a| a.audience.clone()),
        Some(vec![Role::Assistant])
    );
    let bare = result.content[3].as_resource_link().expect("a second link");
    assert_eq!((bare.name.as_str(), bare.title.as_deref()), ("notes.md", None));

    let image = result.content[4].as_image().expect("an image");
    assert_eq!(image.annotations.as_ref().and_then(|a| a.priority), Some(0.8));
    let resource = result.content[5].as_resource().expect("an embedded resource");
    assert_eq!(resource.annotations.as_ref().and_then(|a| a.priority), Some(0.25));
    let text = result.content[6].as_text().expect("a text");
    assert_eq!(
        text.annotations.as_ref().and_then(|a| a.audience.clone()),
        Some(vec![Role::User])
    );
    bounded(client.cancel()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_part_survives_mounting_our_own_server() {
    let server = serve_http(rich_registry(), "127.0.0.1:0").await.unwrap();
    let local = ToolRegistry::new();
    let _mount = bounded(local.mount_mcp(McpServer::http(server.url()), MountOptions::new().prefix("r_")))
        .await
        .unwrap();
    let result = bounded(local.call(ToolCall::new("c1", "r_rich", json!({})))).await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.output, rich_output());
}

/// A second MCP implementation, the Python server of `test_support::mcp_server`
/// (hand-written JSON-RPC over stdio, 2025 protocol), with one tool answering with every
/// kind of part and annotations in MCP's own spelling. `None` when python3 is missing (the
/// test is skipped).
fn python_server() -> Option<McpServer> {
    let config = json!({
        "tools": [{"name": "minutes", "description": "The meeting.", "inputSchema": {"type": "object"}}],
        "content": [
            {"type": "text", "text": "Recorded.", "annotations": {"audience": ["assistant"], "priority": 1}},
            {"type": "audio", "mimeType": "audio/mpeg", "data": "SUQz",
             "annotations": {"audience": ["user"], "priority": 0.3, "lastModified": "2025-01-12"}},
            {"type": "resource_link", "uri": "https://example.com/minutes.pdf", "name": "minutes.pdf",
             "title": "Minutes", "description": "Who decided what.", "mimeType": "application/pdf", "size": 2048,
             "annotations": {"priority": 0.9}},
            {"type": "resource_link", "uri": "file:///notes.md", "name": "notes.md"},
            {"type": "resource", "resource": {"uri": "file:///a.bin", "mimeType": "application/zip", "blob": "UEsD"},
             "annotations": {"audience": ["user", "assistant"]}},
        ],
    });
    let python = test_support::mcp_server::python()?;
    Some(McpServer::stdio(
        python,
        test_support::mcp_server::arguments(&config, &[]),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_part_from_another_implementation_survives_mounting() {
    let Some(server) = python_server() else {
        return;
    };
    let local = ToolRegistry::new();
    let mount = bounded(local.mount_mcp(server.env("PYTHONDONTWRITEBYTECODE", "1"), MountOptions::new()))
        .await
        .unwrap();
    let result = bounded(local.call(ToolCall::new("c1", "minutes", json!({})))).await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        result.output.content,
        vec![
            Content::text("Recorded.").with_annotations(
                ContentAnnotations::new()
                    .audience([Audience::Assistant])
                    .priority(1.0)
            ),
            Content::Audio {
                mime_type: "audio/mpeg".into(),
                data: "SUQz".into(),
                annotations: Some(
                    ContentAnnotations::new()
                        .audience([Audience::User])
                        .priority(0.3)
                        .last_modified("2025-01-12")
                ),
            },
            Content::ResourceLink {
                uri: "https://example.com/minutes.pdf".into(),
                name: "minutes.pdf".into(),
                title: Some("Minutes".into()),
                description: Some("Who decided what.".into()),
                mime_type: Some("application/pdf".into()),
                size: Some(2048),
                annotations: Some(ContentAnnotations::new().priority(0.9)),
            },
            Content::resource_link("file:///notes.md", "notes.md"),
            Content::Resource {
                uri: "file:///a.bin".into(),
                mime_type: Some("application/zip".into()),
                contents: agent_tools_core::output::ResourceContents::Blob("UEsD".into()),
                annotations: Some(ContentAnnotations::new().audience([Audience::User, Audience::Assistant])),
            },
        ]
    );
    // Rendered for MCP again, the parts are what the server sent (priority 1 is 1.0).
    let rendered = Dialect::Mcp.tool_result(&result);
    assert_eq!(rendered["content"][1]["annotations"]["priority"], 0.3);
    assert_eq!(rendered["content"][2]["size"], 2048);
    // And for a model: the audio is for the user, the links are readable lines.
    let anthropic = Dialect::Anthropic.tool_result(&result);
    let texts: Vec<&str> = anthropic["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect();
    assert_eq!(
        texts,
        [
            "Recorded.",
            "[audio (audio/mpeg, 3 bytes) for the user only, not shown to the model]",
            "Resource link: [Minutes](https://example.com/minutes.pdf) (application/pdf, 2 KB): Who decided what.",
            "Resource link: [notes.md](file:///notes.md)",
            "[resource file:///a.bin (application/zip, 3 bytes) not shown: this provider's tool results cannot carry application/zip files]",
        ]
    );
    bounded(mount.unmount()).await;
}
