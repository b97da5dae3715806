use agent_tools::tool;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

/// Reads a file.
#[tool]
async fn read_file(args: ReadArgs, limit: u32) -> String {
    format!("{}{limit}", args.path)
}

fn main() {}
