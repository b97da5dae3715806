//! The "everything server" of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), written with `#[tool]` and `#[toolset]` and
//! served over streamable HTTP.
//!
//! ```text
//! cargo run --release --example mcp_conformance -- 127.0.0.1:8080
//! ```
//!
//! prints the endpoint's URL (`http://127.0.0.1:8080/mcp`) on stdout once it accepts
//! connections (bind port 0 for a free one) and serves until Ctrl-C. `scripts/conformance`
//! starts it and runs the suite's server scenarios against it.
//!
//! Each tool is what one scenario calls, under the name and with the output the suite's
//! text asks for. Tools of a server are usually methods of one `#[toolset]` on the state
//! they share; here they share nothing, so the set is a unit struct.

use std::sync::Arc;
use std::time::Duration;

use agent_tools::mcp::McpHandler;
use agent_tools::serde_json::{Value, json};
use agent_tools::{Content, DynamicTool, ToolContext, ToolError, ToolOutput, ToolRegistry, toolset};

/// A 1×1 red PNG, base64-encoded: the smallest image the image scenarios accept.
const RED_PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

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
    async fn test_image_content(&self) -> Content {
        red_pixel()
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
            .with_content(red_pixel())
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
}

/// The suite's image, as an image content part.
fn red_pixel() -> Content {
    Content::Image {
        mime_type: "image/png".to_owned(),
        data: RED_PIXEL_PNG.to_owned(),
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
/// clients as written, `$schema`, `$defs` and `additionalProperties` included.
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
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"}
                }
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"}
        },
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

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let registry = ToolRegistry::new();
    Arc::new(ConformanceTools).register_all(&registry)?;
    registry.register(json_schema_2020_12_tool())?;
    let server = McpHandler::new(registry)
        .server_info("agent-tools-conformance", env!("CARGO_PKG_VERSION"))
        .serve_http(addr)
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
