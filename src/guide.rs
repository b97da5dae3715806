// The guide: `docs/guide/*.md`, one documentation-only module per chapter, so that docs.rs
// shows it and every Rust example in it is a doc test. A chapter about a feature's items is
// compiled in with that feature: `cargo test --workspace` (the command line's features)
// tests them all, `cargo test -p agent-tools-sdk --doc` the core chapters. docs.rs
// documents every feature.
#![doc = include_str!("../docs/guide/index.md")]

pub mod tools {
    // Writing tools: `#[tool]`, `#[toolset]`, talking to the caller.
    #![doc = include_str!("../docs/guide/tools.md")]
}

pub mod registry {
    // Calling tools: the registry, the audit log, provider dialects.
    #![doc = include_str!("../docs/guide/registry.md")]
}

pub mod policy {
    // Deciding what runs: policy, approval, hooks, limits.
    #![doc = include_str!("../docs/guide/policy.md")]
}

pub mod tool_search {
    // Large tool sets: deferred tools and tool search.
    #![doc = include_str!("../docs/guide/tool_search.md")]
}

#[cfg(feature = "builtins")]
pub mod builtins {
    // The built-in tools and their configuration.
    #![doc = include_str!("../docs/guide/builtins.md")]
}

#[cfg(feature = "oauth")]
pub mod mcp {
    // MCP: serving, mounting, OAuth.
    #![doc = include_str!("../docs/guide/mcp.md")]
}

pub mod cli {
    // The command line.
    #![doc = include_str!("../docs/guide/cli.md")]
}

#[cfg(feature = "telemetry")]
pub mod telemetry {
    // Telemetry: OpenTelemetry.
    #![doc = include_str!("../docs/guide/telemetry.md")]
}

#[cfg(feature = "postgres")]
pub mod deployment {
    // Deployment: PostgreSQL, replicas, `deploy/`.
    #![doc = include_str!("../docs/guide/deployment.md")]
}

pub mod performance {
    // Performance: every measured figure and how to reproduce it.
    #![doc = include_str!("../docs/guide/performance.md")]
}

pub mod development {
    // Development: tests, CI, conformance, fuzzing.
    #![doc = include_str!("../docs/guide/development.md")]
}
