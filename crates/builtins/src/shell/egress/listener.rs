//! The agent's side of the proxy listener a command's namespace makes: the socket pair it
//! comes down, and receiving it (`SCM_RIGHTS`).
//!
//! The child sends the listener before its command starts, so by the time the spawn
//! returns it is waiting in the pair; if the child fails first, its end closes and the
//! read sees end of file.

use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;

use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SocketFlags};
use tokio::io::Interest;
use tokio::net::UnixStream;

/// A socket pair: the agent's end, and the end the child sends the listener down.
pub(crate) fn link() -> io::Result<(UnixStream, OwnedFd)> {
    let (agent, child) = rustix::net::socketpair(
        rustix::net::AddressFamily::UNIX,
        rustix::net::SocketType::STREAM,
        SocketFlags::CLOEXEC,
        None,
    )?;
    let agent = std::os::unix::net::UnixStream::from(agent);
    agent.set_nonblocking(true)?;
    Ok((UnixStream::from_std(agent)?, child))
}

/// Waits for the listener the child sends down `agent`.
pub(crate) async fn receive(agent: &UnixStream) -> io::Result<tokio::net::TcpListener> {
    loop {
        agent.readable().await?;
        match agent.try_io(Interest::READABLE, || receive_now(agent)) {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => continue,
            Err(error) => return Err(error),
            Ok(listener) => {
                let listener = std::net::TcpListener::from(listener);
                listener.set_nonblocking(true)?;
                return tokio::net::TcpListener::from_std(listener);
            }
        }
    }
}

fn receive_now(agent: &UnixStream) -> io::Result<OwnedFd> {
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let mut byte = [0u8; 1];
    let received = rustix::net::recvmsg(
        agent,
        &mut [io::IoSliceMut::new(&mut byte)],
        &mut control,
        RecvFlags::CMSG_CLOEXEC,
    )?;
    if received.bytes == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the command's network namespace sent no proxy listener",
        ));
    }
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(mut fds) = message
            && let Some(listener) = fds.next()
        {
            return Ok(listener);
        }
    }
    Err(io::Error::other(
        "the command's network namespace sent no descriptor",
    ))
}
