use agent_tools::tool;

/// Never runs.
#[tool(max_concurrency = 0, retries = "two")]
async fn never() -> String {
    String::new()
}

fn main() {}
