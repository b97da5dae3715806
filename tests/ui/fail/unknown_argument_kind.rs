use agent_tools::tool;

/// Runs a command.
#[tool(destructive, kinds(command = comand, cwd = shell, url = 3))]
async fn run(command: String, cwd: String, url: String) -> String {
    format!("{command} {cwd} {url}")
}

fn main() {}
