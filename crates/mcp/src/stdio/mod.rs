//! The process's stdin and stdout as an MCP transport, on the runtime's reactor whenever
//! the descriptors allow it.
//!
//! Tokio's `stdin()` and `stdout()` hand every read and write to a thread of the blocking
//! pool and back: two thread wake-ups per message, which dominate a small call's round
//! trip. MCP clients start a stdio server on one of two kinds of descriptor, and both can
//! be driven by the reactor instead:
//!
//! - pipes (Python's, Rust's and Go's process APIs): [`rmcp::transport::stdio_pipes`]
//!   reopens them through `/proc/self/fd`, so `O_NONBLOCK` is set on open file
//!   descriptions of its own and the process's standard streams stay as they were;
//! - Unix socket pairs (Node's `child_process`, that is libuv, which most desktop MCP hosts
//!   are built on): a socket cannot be reopened that way, so its description itself is
//!   made non-blocking — descriptors 0 and 1 of the whole process then are — and its
//!   flags are put back when the transport is done.
//!
//! Anything else falls back to the blocking handles, which work on every kind of file: a
//! terminal, a regular file (`serve < requests.jsonl`), a socket that is not a Unix stream
//! socket, stdin and stdout on one socket, and stdout sharing its socket with stderr
//! (where a non-blocking descriptor would make `eprintln!` fail when the socket is full).

use rmcp::transport::{StdioReader, StdioWriter};

#[cfg(unix)]
mod sockets;

#[cfg(unix)]
pub(crate) use sockets::SocketPair;

/// The transport over stdin and stdout.
pub(crate) enum Stdio {
    /// Pipes on the reactor, or the blocking handles ([`rmcp::transport::stdio_pipes`]).
    Rmcp(StdioReader, StdioWriter),
    /// Unix sockets on the reactor.
    #[cfg(unix)]
    Sockets(SocketPair),
}

impl Stdio {
    /// The fastest transport the process's stdin and stdout allow. Must be called inside
    /// a Tokio runtime with IO enabled.
    pub(crate) fn open() -> Self {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd as _;
            let (stdin, stdout, stderr) = (std::io::stdin(), std::io::stdout(), std::io::stderr());
            if let Some(pair) = SocketPair::open(stdin.as_fd(), stdout.as_fd(), stderr.as_fd()) {
                return Self::Sockets(pair);
            }
        }
        let (reader, writer) = rmcp::transport::stdio_pipes();
        Self::Rmcp(reader, writer)
    }
}
