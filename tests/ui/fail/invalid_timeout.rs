use agent_tools::tool;

/// Waits.
#[tool(timeout = "30 parsecs")]
async fn wait(seconds: u64) -> String {
    seconds.to_string()
}

fn main() {}
