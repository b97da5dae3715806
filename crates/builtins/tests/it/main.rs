//! The package's one integration-test binary, as cargo and ripgrep lay theirs out: each
//! file of `tests/` was a binary of its own, linked against every dependency again; as
//! modules of one binary the package's tests link once. `cargo test --test it -- NAME::`
//! runs one module. What several packages' tests share is `agent-tools-test-support`.

// Modules that need a feature of the package are compiled with it only.
mod allocations;
#[cfg(feature = "fs")]
mod apply_patch;
mod exec_background;
#[cfg(target_os = "linux")]
mod exec_egress;
mod exec_memory;
#[cfg(feature = "postgres")]
mod memory_postgres;
#[cfg(feature = "plan")]
mod plan;
mod registration;
#[cfg(feature = "fs")]
mod result_budget;
#[cfg(feature = "image")]
mod view_image;
mod web_bomb;
