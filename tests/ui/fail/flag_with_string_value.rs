use agent_tools::tool;

/// Reads a file.
#[tool(read_only = "yes", strict = 1)]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
