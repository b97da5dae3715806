//! The package's one integration-test binary, as cargo and ripgrep lay theirs out: each
//! file of `tests/` was a binary of its own, linked against every dependency again; as
//! modules of one binary the package's tests link once. `cargo test --test it -- NAME::`
//! runs one module. What several packages' tests share is `agent-tools-test-support`.

mod cli;
mod cli_approve;
mod cli_mount;
mod cli_mount_trust;
mod cli_oauth;
mod cli_plan;
mod cli_policy;
mod cli_telemetry;
mod cli_tool_search;
mod clients;
mod exec_reads;
mod faults;
mod hostile_approval;
mod hostile_exec;
mod hostile_memory;
mod mcp;
mod mcp_everything;
mod sandbox;
mod serve_stdio;
mod stateless_replicas;
mod task_replicas;
