//! The package's one integration-test binary, as cargo and ripgrep lay theirs out: each
//! file of `tests/` was a binary of its own, linked against every dependency again; as
//! modules of one binary the package's tests link once. `cargo test --test it -- NAME::`
//! runs one module. What several packages' tests share is `agent-tools-test-support`.

// Modules that need a feature of the package are compiled with it only.
mod approval_later;
mod audit;
mod dialects;
mod hooks;
#[cfg(feature = "builtins")]
mod hostile_files;
#[cfg(feature = "builtins")]
mod hostile_web;
mod limits;
#[cfg(feature = "builtins")]
mod load;
mod macros;
mod policy;
#[cfg(feature = "builtins")]
mod readme_tools;
#[cfg(all(feature = "builtins", feature = "mcp"))]
mod tool_catalog;
mod tool_search;
#[cfg(all(feature = "builtins", feature = "mcp"))]
mod tool_search_quality;
mod ui;
