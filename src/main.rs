//! The `agent-tools` command line; see [`agent_tools::cli`].

fn main() -> std::process::ExitCode {
    agent_tools::cli::main()
}
