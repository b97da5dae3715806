//! `agent-tools` (the built-in tools) with one more tool, `echo`, which the load benchmark
//! (`benches/serve_load.sh`) calls on our server as on the peers' servers: the same tool,
//! so the comparison is of the servers. Everything else is the command line as shipped:
//! `cargo run --release -p agent-tools-cli --example serve_echo -- serve --http 127.0.0.1:8080 --stateless`.

use agent_tools::tool;

/// Say the text back.
#[tool(read_only, idempotent)]
async fn echo(
    /// The text to say back.
    message: String,
) -> String {
    message
}

fn main() -> std::process::ExitCode {
    agent_tools_cli::main_with(|registry, settings| {
        agent_tools_cli::register_builtins(registry, settings)?;
        registry.register(EchoTool)?;
        Ok(())
    })
}
