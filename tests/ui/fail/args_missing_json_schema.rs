use agent_tools::tool;
use serde::Deserialize;

/// Deserializable, but without a schema.
#[derive(Deserialize)]
struct SearchArgs {
    query: String,
}

/// Searches.
#[tool]
async fn search(args: SearchArgs) -> String {
    args.query
}

fn main() {}
