use agent_tools::tool;

/// Reads a file.
#[tool(read_only, timeout = "5s", read_only)]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
