//! A small MCP server in Python (`mcp_server.py` beside this crate's manifest): a second,
//! hand-written MCP implementation (JSON-RPC over stdio, the 2025 protocol) that the
//! mount tests mount next to rmcp's. One script for every test that mounts it; what each
//! needs (its tools, fixed content, `list_changed`, a process id in the answer, a marker,
//! staying up after stdin closes) is its configuration, not a copy of the script. The
//! script's header says what it answers.

use std::path::PathBuf;

use serde_json::Value;

use crate::require_program;

/// The script's path.
pub fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mcp_server.py")
}

/// `python3`, or `None` after saying the test is skipped (a failure under CI).
pub fn python() -> Option<PathBuf> {
    require_program("python3", "apt-get install python3")
}

/// The arguments after the interpreter: unbuffered, the script, its configuration
/// (`config`, see the script), then `extra` (a marker, `stubborn`).
pub fn arguments(config: &Value, extra: &[&str]) -> Vec<String> {
    let mut arguments = vec![
        "-u".to_owned(),
        script().display().to_string(),
        config.to_string(),
    ];
    arguments.extend(extra.iter().map(|&word| word.to_owned()));
    arguments
}
