//! An agent loop: an OpenAI-compatible model works on a task with the built-in tools.
//!
//! ```sh
//! export OPENAI_API_KEY=sk-...                         # any OpenAI-compatible endpoint:
//! export OPENAI_BASE_URL=https://api.openai.com/v1     #   (default) or a local server
//! export OPENAI_MODEL=gpt-4.1-mini                     #   (default)
//! cargo run --example agent -- "Summarize what this project does in three lines."
//! ```
//!
//! The tools work in the current directory. Each call the model makes runs through the
//! registry (validated, timed out, audited) and is printed to stderr; Ctrl-C stops the
//! agent, and the running tools with it.
//!
//! With `AGENT_TOOL_SEARCH=1`, the model starts with only the file-reading tools and
//! `tool_search`; the loop loads the definitions each search returns, so the model can
//! call what it found.

use std::sync::Arc;

use agent_tools::builtins::agent::{AgentRunner, OpenAiCompatibleRunner};
use agent_tools::builtins::{self, BuiltinConfig};
use agent_tools::{
    ToolRegistry,
    audit::{AuditEvent, AuditSink},
    context::CancellationToken,
};

const SYSTEM_PROMPT: &str = "You are a careful assistant working in a software project. \
Use the tools to look before you answer; change files only when the task asks for it. \
Finish with a short answer to the task.";

/// Prints each call as it finishes.
struct PrintCalls;

impl AuditSink for PrintCalls {
    fn record(&self, event: &AuditEvent) {
        eprintln!(
            "  [{}] {} {}",
            event.outcome.as_str(),
            event.tool,
            event.arguments
        );
    }
}

#[tokio::main]
async fn main() -> Result<(), agent_tools::builtins::BoxError> {
    let task = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    if task.trim().is_empty() {
        return Err(
            "give the task as arguments, e.g. `cargo run --example agent -- \"List the crates.\"`".into(),
        );
    }
    let base_url = env_or("OPENAI_BASE_URL", "https://api.openai.com/v1");
    let model = env_or("OPENAI_MODEL", "gpt-4.1-mini");
    let mut runner = OpenAiCompatibleRunner::new(base_url, model)?.system_prompt(SYSTEM_PROMPT);
    if let Ok(key) = std::env::var("OPENAI_API_KEY") {
        runner = runner.api_key(key);
    }

    let mut builder = ToolRegistry::builder().audit(PrintCalls);
    if std::env::var("AGENT_TOOL_SEARCH").is_ok_and(|value| value == "1") {
        builder = builder.defer_all_except(["read_file", "list_dir", "file_search"]);
    }
    let registry = builder.build();
    let names = builtins::register_all(&registry, None, &BuiltinConfig::default())?;
    eprintln!("tools: {}", names.join(", "));

    let cancel = CancellationToken::new();
    let on_ctrl_c = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.cancel();
        }
    });
    let runner: Arc<dyn AgentRunner> = Arc::new(runner);
    let answer = runner.run(task, registry, cancel).await?;
    println!("{answer}");
    Ok(())
}

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_owned())
}
