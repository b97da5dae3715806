//! Every supported form of `#[tool]` and `#[toolset]` compiles.

use std::sync::Arc;

use agent_tools::{ToolContext, ToolError, ToolOutput, ToolRegistry, tool, toolset, output::{Image, Json}};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    query: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct Input {
    pub text: String,
}

pub struct Db;

#[derive(Serialize, JsonSchema)]
pub struct Hit {
    pub score: f32,
}

/// Struct arguments, no state.
#[tool]
async fn search(args: SearchArgs) -> String {
    args.query
}

/// A struct named `args` of any type, with state and context in any order.
#[tool(read_only, destructive = false, idempotent, open_world, strict, timeout = "1m 30s")]
pub async fn lookup(ctx: &ToolContext, args: Input, db: &Db) -> Result<Json<Vec<Hit>>, ToolError> {
    let _ = (ctx, db, args.text);
    Ok(Json(vec![Hit { score: 1.0 }]))
}

/// A struct marked `#[args]`.
#[tool(name = "marked", title = "Marked tool", defer)]
async fn with_marked(#[args] input: Input) -> &'static str {
    let _ = input;
    "ok"
}

/// Plain parameters with docs and serde attributes; a std error type.
#[tool]
fn plain(
    /// A path.
    path: String,
    /// A limit.
    #[serde(default)]
    limit: u32,
    _unused: Option<bool>,
    /// A raw identifier keeps its name.
    r#type: Option<String>,
) -> std::io::Result<ToolOutput> {
    let _ = r#type;
    Ok(ToolOutput::text(format!("{path}{limit}")))
}

/// No arguments at all, returning nothing.
#[tool(description = "Overrides the doc comment.")]
async fn nothing() {}

/// An image result with a boxed error.
#[tool]
async fn picture() -> Result<Image, Box<dyn std::error::Error + Send + Sync>> {
    Ok(Image::png(vec![]))
}

/// A `serde_json::Value` result and a `String` error.
#[tool]
async fn raw(value: serde_json::Value) -> Result<serde_json::Value, String> {
    Ok(value)
}

/// Limits and a preview: a file edit, with state.
#[tool(destructive, edits_files, retries = 2, max_concurrency = 1, max_result_tokens = 20000, preview = preview_save)]
fn save(db: &Db, args: Input) -> String {
    let _ = db;
    args.text
}

fn preview_save(_db: &Db, args: &Input) -> Option<String> {
    Some(format!("saves {}", args.text))
}

/// A preview without state.
#[tool(preview = preview_echo)]
async fn echo(args: Input) -> String {
    args.text
}

fn preview_echo(args: &Input) -> Option<String> {
    Some(args.text.clone())
}

/// Unsized state behind a trait object.
trait Store: Send + Sync {
    fn get(&self) -> String;
}

/// Trait-object state.
#[tool]
async fn stored(store: &dyn Store) -> String {
    store.get()
}

struct Set {
    enabled: bool,
}

#[toolset]
impl Set {
    /// A toolset tool.
    #[tool]
    pub async fn first(&self, args: SearchArgs) -> String {
        args.query
    }

    /// A toolset tool whose preview is a method.
    #[tool(preview = preview_third)]
    async fn third(&self, args: SearchArgs) -> String {
        args.query
    }

    fn preview_third(&self, args: &SearchArgs) -> Option<String> {
        Some(format!("{} {}", self.enabled, args.query))
    }

    /// A conditional, synchronous toolset tool with context.
    #[tool(enabled = self.enabled, timeout = "10s")]
    fn second(&self, ctx: &ToolContext, count: u8) -> Result<String, std::fmt::Error> {
        Ok(format!("{}{count}", ctx.call_id()))
    }
}

struct Memory;

impl Store for Memory {
    fn get(&self) -> String {
        String::new()
    }
}

fn main() {
    let registry = ToolRegistry::new();
    registry.register(SearchTool).unwrap();
    registry.register(LookupTool::new(Db)).unwrap();
    registry.register(WithMarkedTool).unwrap();
    registry.register(PlainTool::new()).unwrap();
    registry.register(NothingTool).unwrap();
    registry.register(PictureTool).unwrap();
    registry.register(RawTool).unwrap();
    let store: Arc<dyn Store> = Arc::new(Memory);
    registry.register(StoredTool::new(store)).unwrap();
    registry.register(SaveTool::new(Db)).unwrap();
    registry.register(EchoTool).unwrap();
    Arc::new(Set { enabled: true }).register_all(&registry).unwrap();
    registry.register(FirstTool::new(Set { enabled: false })).unwrap_err();
    let _: PlainArgs = PlainArgs {
        path: String::new(),
        limit: 0,
        unused: None,
        r#type: None,
    };
}
