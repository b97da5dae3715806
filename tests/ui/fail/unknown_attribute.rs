use agent_tools::tool;

/// Reads a file.
#[tool(readonly)]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
