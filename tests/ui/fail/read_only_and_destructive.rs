use agent_tools::tool;

/// Deletes nothing.
#[tool(read_only, destructive)]
async fn delete(path: String) -> String {
    path
}

fn main() {}
