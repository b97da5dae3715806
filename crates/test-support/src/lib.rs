//! What the workspace's tests and benchmarks share: servers on loopback (pages, an OAuth
//! authorization server, an OTLP receiver, PostgreSQL, nginx), the outside programs they
//! drive (Node's and Python's MCP software, a small Python MCP server), and small helpers
//! (free ports, a seeded random generator, a pseudo-terminal, processes by command line).
//!
//! One crate rather than files included with `#[path]` into each test binary: each helper
//! is compiled once, its dead code is not each binary's warning, and its dependencies are
//! declared in one place. It depends on no crate of this workspace, on purpose: a test
//! package depending on it must not link a second copy of the crate under test, so what
//! needs our types (the tool catalog's registries, an MCP result's text) takes plain JSON
//! here and the glue stays in the test binary.
//!
//! Modules with heavy dependencies are behind features: `http` (axum, reqwest), `oauth`,
//! `otlp` and `postgres`.
//!
//! Tests that need a program from outside the build (Chromium, Xvfb, PostgreSQL, nginx,
//! Node, Python) ask for it through [`require`]: missing, the test says so and passes as
//! skipped — unless `CI=true`, where it fails, so that CI never skips silently.

pub mod everything;
pub mod hostile_pages;
pub mod mcp_server;
pub mod mcp_text;
pub mod nginx;
pub mod outside_clients;
pub mod ports;
pub mod processes;
pub mod require;
pub mod rng;
pub mod terminal;
pub mod tool_catalog;

#[cfg(feature = "oauth")]
pub mod auth_server;
#[cfg(feature = "http")]
pub mod mcp_post;
#[cfg(feature = "otlp")]
pub mod otlp_receiver;
#[cfg(feature = "http")]
pub mod page_server;
#[cfg(feature = "postgres")]
pub mod postgres;

pub use require::{require_chromium, require_file, require_program};

use std::path::Path;

/// The workspace's root directory (the one with `Cargo.lock`), whatever package's test
/// asks: where `deploy/`, `scripts/` and the tools the scripts install (`target/npm-tools`,
/// `target/py-tools`) are. This crate lives at `crates/test-support`, two levels below it.
pub fn workspace_root() -> &'static Path {
    let manifest: &'static Path = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .or_else(|| manifest.parent()?.parent())
        .unwrap_or(manifest)
}
