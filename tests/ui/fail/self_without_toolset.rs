use agent_tools::tool;

struct Files;

impl Files {
    /// Reads a file.
    #[tool]
    async fn read_file(&self, path: String) -> String {
        path
    }
}

fn main() {}
