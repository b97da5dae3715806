//! Which Tokio runtime a command runs on.
//!
//! `serve` over stdio has one client, and on one thread its messages never cross threads:
//! the request is read, dispatched and answered where the reactor woke up. On the
//! multi-threaded runtime the reader, the request's task and the writer may each run on
//! another worker, and every hand-off wakes a thread, which costs more than dispatching a
//! small call: the echo round trip of `benches/mcp.rs` goes from about 135 to 105 µs.
//!
//! What one thread gives up: calls a client sends at once still run at once wherever they
//! wait — `fn` tools and the built-ins' file, database and HTML work run on Tokio's
//! blocking pool, processes and HTTP are awaited — but an `async` tool that computes for a
//! long time without awaiting holds up the session's other calls meanwhile (on the
//! multi-threaded runtime it would hold up one worker). Such work belongs in
//! `tokio::task::spawn_blocking`, or in an `fn` tool, on any runtime.
//!
//! `list`, `schema` and `call` do one thing and exit. `serve --http` serves any number of
//! clients, on every core.

use tokio::runtime::{Builder, Runtime};

use super::args::Command;

/// One thread for every command but `serve --http`; see the [module docs](self).
pub(super) fn for_command(command: &Command) -> std::io::Result<Runtime> {
    let mut builder = match command {
        Command::Serve { http: Some(_), .. } => Builder::new_multi_thread(),
        _ => Builder::new_current_thread(),
    };
    builder.enable_all().build()
}
