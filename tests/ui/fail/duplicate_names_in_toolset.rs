use agent_tools::toolset;

struct Files;

#[toolset]
impl Files {
    /// Reads a file.
    #[tool]
    async fn read(&self, path: String) -> String {
        path
    }

    /// Reads a file, again.
    #[tool(name = "read")]
    async fn read_again(&self, path: String) -> String {
        path
    }
}

fn main() {}
