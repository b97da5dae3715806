use agent_tools::tool;

/// Reads a file.
#[tool(name = "read_the_file_from_the_workspace_and_return_its_contents_as_text_please")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
