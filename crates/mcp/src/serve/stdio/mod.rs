//! Serving over the process's stdin and stdout ([`serve_stdio`],
//! [`McpHandler::serve_stdio`]), on the runtime's reactor whenever the descriptors allow it.
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

use agent_tools_core::ToolRegistry;
use rmcp::ServiceExt as _;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::{StdioReader, StdioWriter};
use tokio::io::{AsyncRead, AsyncWrite};

use super::error::ServeError;
use super::handler::McpHandler;
use super::own_requests::WithoutProgressTokens;

#[cfg(unix)]
mod sockets;

#[cfg(unix)]
use sockets::SocketPair;

/// Serves `registry` over the process's stdin and stdout until the client closes them.
/// Nothing else may write to stdout meanwhile; log to stderr.
pub async fn serve_stdio(registry: ToolRegistry) -> Result<(), ServeError> {
    McpHandler::new(registry).serve_stdio().await
}

impl McpHandler {
    /// Serves over the process's stdin and stdout until the client closes them.
    ///
    /// Pipes and Unix socket pairs (how MCP clients start a server) are read and written
    /// on Tokio's IO driver, not its blocking pool, which saves a thread hand-off per
    /// message; other files (a terminal, a regular file) go through the blocking handles.
    /// When stdin and stdout are Unix sockets, they are non-blocking for the whole process
    /// while this runs: nothing else should use them meanwhile (child processes should not
    /// inherit them). Needs a runtime with IO enabled (`enable_all`).
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        match Stdio::open() {
            Stdio::Rmcp(read, write) => self.serve_streams(read, write).await,
            #[cfg(unix)]
            Stdio::Sockets(SocketPair { read, write, restore }) => {
                let served = self.serve_streams(read, write).await;
                drop(restore);
                served
            }
        }
    }

    /// Serves one session over a pair of byte streams until it ends.
    async fn serve_streams<R, W>(self, read: R, write: W) -> Result<(), ServeError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let transport = WithoutProgressTokens(AsyncRwTransport::new(read, write));
        let running = self
            .serve(transport)
            .await
            .map_err(|error| ServeError::Handshake(Box::new(error)))?;
        running.waiting().await.map(drop).map_err(ServeError::Stopped)
    }
}

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
