//! An MCP server with your own tools next to the built-in ones, over stdio.
//!
//! Point an MCP client at it, e.g. in its JSON configuration:
//!
//! ```json
//! { "mcpServers": { "my-tools": {
//!     "command": "cargo",
//!     "args": ["run", "--quiet", "--example", "mcp_server", "--", "/path/to/project"]
//! } } }
//! ```
//!
//! The optional argument is the workspace (default: the current directory). Stdout
//! carries the protocol, so everything else goes to stderr.

use std::path::PathBuf;

use agent_tools::builtins::{self, BuiltinConfig};
use agent_tools::{ToolRegistry, audit::JsonlAudit, tool};

/// Count the words, lines and characters of a text.
#[tool(read_only, idempotent)]
async fn word_count(
    /// The text to count.
    text: String,
) -> String {
    let words = text.split_whitespace().count();
    let lines = text.lines().count();
    let chars = text.chars().count();
    format!("{words} words, {lines} lines, {chars} characters")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let workspace = std::env::args_os().nth(1).map(PathBuf::from);
    // Every call from the client is audited, as with any other caller of the registry.
    let audit = JsonlAudit::open(std::env::temp_dir().join("agent-tools-mcp-example.jsonl"))?;
    let registry = ToolRegistry::builder().audit(audit).build();
    registry.register(WordCountTool)?;
    let names = builtins::register_all(&registry, workspace, &BuiltinConfig::default())?;
    eprintln!("serving word_count and {} built-in tools over stdio", names.len());
    agent_tools::mcp::serve_stdio(registry).await?;
    Ok(())
}
