use agent_tools::tool;

/// Reads a file.
#[tool(enabled = true)]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
