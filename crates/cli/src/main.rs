//! The `agent-tools` command line; see [`agent_tools_cli`].

fn main() -> std::process::ExitCode {
    agent_tools_cli::main()
}
