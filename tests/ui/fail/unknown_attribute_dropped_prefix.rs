use agent_tools::tool;

/// Reads a file.
#[tool(rename = "read")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
