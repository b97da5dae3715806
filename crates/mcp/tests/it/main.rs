//! The package's one integration-test binary, as cargo and ripgrep lay theirs out: each
//! file of `tests/` was a binary of its own, linked against every dependency again; as
//! modules of one binary the package's tests link once. `cargo test --test it -- NAME::`
//! runs one module. What several packages' tests share is `agent-tools-test-support`.

// Modules that need a feature of the package are compiled with it only.
mod caller;
mod content;
mod handshake;
mod mount;
mod mount_2026;
mod mount_trust;
#[cfg(feature = "oauth")]
mod oauth_2026;
#[cfg(feature = "oauth")]
mod oauth_client;
#[cfg(feature = "oauth")]
mod oauth_resource;
#[cfg(feature = "oauth")]
mod oauth_tool_search;
mod request_2026;
mod request_ids;
mod result_budget;
mod revision_2026;
mod serve;
mod session_client;
mod session_end;
mod tasks;
mod typescript_client;
