use agent_tools::toolset;

struct Files;
struct Config;

#[toolset]
impl Files {
    /// Reads a file.
    #[tool]
    async fn read(&self, config: &Config, path: String) -> String {
        let _ = config;
        path
    }
}

fn main() {}
