//! A network namespace per command under an allow-list: its own loopback and nothing else,
//! and in it the one listener the agent's proxy serves.
//!
//! A new network namespace has a loopback interface, down, and no other; no route leads
//! out of it, so a command in it can reach no host and no server of the machine, whatever
//! sockets it makes. The process that made it (the supervisor, before it forks) brings
//! `lo` up, listens on [`PROXY_PORT`] of 127.0.0.1 there, and hands the listener to the
//! agent over a socket pair the agent made before forking (`SCM_RIGHTS`). A socket
//! belongs to the namespace it was made in, so the agent accepts the command's
//! connections on it while connecting to servers from its own namespace: the proxy is the
//! only way out. The port is fixed since the namespace is the command's alone.
//!
//! Runs between `fork` and `exec`: raw system calls on stack memory only (see the parent
//! module).

use std::io;
use std::mem::MaybeUninit;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::{AsFd as _, AsRawFd as _, BorrowedFd, RawFd};

use crate::shell::egress::PROXY_PORT;
use rustix::net::{
    AddressFamily, SendAncillaryBuffer, SendAncillaryMessage, SendFlags, SocketFlags, SocketType,
};

/// Brings the namespace's loopback interface up (`ioctl(SIOCSIFFLAGS)`).
// Needs unsafe: rustix has no interface ioctls, and `ifreq` is a C union.
#[allow(unsafe_code)]
pub(super) fn bring_up_loopback() -> io::Result<()> {
    let socket =
        rustix::net::socket_with(AddressFamily::INET, SocketType::DGRAM, SocketFlags::CLOEXEC, None)?;
    // SAFETY: `ifreq` is plain old data, valid all zero.
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
        *slot = *byte as libc::c_char;
    }
    request.ifr_ifru.ifru_flags = (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
    // SAFETY: the kernel reads the interface name and flags from `request`, which lives on
    // this stack frame through the call.
    let set = unsafe { libc::ioctl(socket.as_raw_fd(), libc::SIOCSIFFLAGS, &raw mut request) };
    if set < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Listens on 127.0.0.1:[`PROXY_PORT`] and sends the listener down `link` to the agent;
/// this process keeps no copy.
// Needs unsafe: the link is a raw descriptor the agent's `ChildPlan` owns.
#[allow(unsafe_code)]
pub(super) fn send_proxy_listener(link: RawFd) -> io::Result<()> {
    let listener = rustix::net::socket_with(
        AddressFamily::INET,
        SocketType::STREAM,
        SocketFlags::CLOEXEC,
        None,
    )?;
    rustix::net::bind(&listener, &SocketAddrV4::new(Ipv4Addr::LOCALHOST, PROXY_PORT))?;
    rustix::net::listen(&listener, 128)?;
    // SAFETY: `link` is open for the whole call: the plan that owns it outlives `apply`.
    let link = unsafe { BorrowedFd::borrow_raw(link) };
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    let listeners = [listener.as_fd()];
    if !control.push(SendAncillaryMessage::ScmRights(&listeners)) {
        return Err(io::Error::from_raw_os_error(libc::ENOBUFS));
    }
    // One byte of data: a message of ancillary data alone is not delivered on a stream.
    rustix::net::sendmsg(link, &[io::IoSlice::new(b"L")], &mut control, SendFlags::empty())?;
    Ok(())
}
