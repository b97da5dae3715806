use agent_tools::tool;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[derive(Deserialize, JsonSchema)]
struct PagingArgs {
    offset: u32,
}

/// Reads a file.
#[tool]
async fn read_file(args: ReadArgs, paging: PagingArgs) -> String {
    format!("{}{}", args.path, paging.offset)
}

fn main() {}
