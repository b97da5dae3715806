use agent_tools::tool;

/// Neither deserializable nor with a schema.
pub struct Query {
    pub text: String,
}

/// Searches.
#[tool]
async fn search(
    /// What to look for.
    query: Query,
    /// How many results.
    limit: u32,
) -> String {
    format!("{} {limit}", query.text)
}

fn main() {}
