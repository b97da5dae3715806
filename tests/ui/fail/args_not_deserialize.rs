use agent_tools::tool;

/// Not deserializable and without a schema.
struct SearchArgs {
    query: String,
}

/// Searches.
#[tool]
async fn search(args: SearchArgs) -> String {
    args.query
}

fn main() {}
