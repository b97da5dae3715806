use agent_tools::toolset;

struct Files;

trait Reader {
    fn read(&self, path: String) -> String;
}

#[toolset]
impl Reader for Files {
    /// Reads a file.
    #[tool]
    fn read(&self, path: String) -> String {
        path
    }
}

fn main() {}
