//! stdin and stdout as Unix stream sockets on the reactor (see the parent module).

use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream as StdUnixStream;

use rustix::fs::OFlags;
use rustix::net::{AddressFamily, SocketType};

/// Two Unix stream sockets, non-blocking and registered with the reactor, their flags
/// put back on drop.
pub(crate) struct SocketPair {
    /// Messages come in here.
    pub(crate) read: tokio::net::UnixStream,
    /// Messages go out here.
    pub(crate) write: tokio::net::UnixStream,
    /// Drop it once the streams are done with.
    pub(crate) restore: RestoreFlags,
}

impl SocketPair {
    /// `read` and `write` on the reactor, when both are Unix stream sockets, distinct
    /// from each other and from `log`; `None` leaves them untouched.
    pub(crate) fn open(read: BorrowedFd<'_>, write: BorrowedFd<'_>, log: BorrowedFd<'_>) -> Option<Self> {
        let (read_id, write_id) = (unix_stream_id(read)?, unix_stream_id(write)?);
        let shares_log = file_id(log).is_some_and(|log| log == read_id || log == write_id);
        if read_id == write_id || shares_log {
            return None;
        }
        let restore = RestoreFlags {
            _saved: [SavedFlags::save(read)?, SavedFlags::save(write)?],
        };
        let (read, write) = (reactor_stream(read)?, reactor_stream(write)?);
        Some(Self { read, write, restore })
    }
}

/// Which file a descriptor refers to: (device, inode).
fn file_id(fd: BorrowedFd<'_>) -> Option<(u64, u64)> {
    let stat = rustix::fs::fstat(fd).ok()?;
    #[allow(clippy::useless_conversion)] // the field types differ between targets
    Some((u64::from(stat.st_dev), u64::from(stat.st_ino)))
}

/// The file id of a Unix stream socket; `None` for anything else.
fn unix_stream_id(fd: BorrowedFd<'_>) -> Option<(u64, u64)> {
    let is_unix = rustix::net::getsockname(fd).is_ok_and(|addr| addr.address_family() == AddressFamily::UNIX);
    let is_stream = rustix::net::sockopt::socket_type(fd).is_ok_and(|kind| kind == SocketType::STREAM);
    (is_unix && is_stream).then(|| file_id(fd)).flatten()
}

/// A socket's own descriptor, non-blocking, registered with the reactor.
fn reactor_stream(fd: BorrowedFd<'_>) -> Option<tokio::net::UnixStream> {
    let stream = StdUnixStream::from(fd.try_clone_to_owned().ok()?);
    stream.set_nonblocking(true).ok()?;
    tokio::net::UnixStream::from_std(stream).ok()
}

/// Sets the sockets' status flags back to what they were before, when dropped: their open
/// file descriptions are those of descriptors 0 and 1, which the process keeps.
pub(crate) struct RestoreFlags {
    /// Each puts its flags back when dropped.
    _saved: [SavedFlags; 2],
}

/// One descriptor's status flags, as they were.
struct SavedFlags {
    fd: OwnedFd,
    flags: OFlags,
}

impl SavedFlags {
    fn save(fd: BorrowedFd<'_>) -> Option<Self> {
        let flags = rustix::fs::fcntl_getfl(fd).ok()?;
        let fd = fd.try_clone_to_owned().ok()?;
        Some(Self { fd, flags })
    }
}

impl Drop for SavedFlags {
    fn drop(&mut self) {
        // Nothing to do about a failure: the process is done with the stream.
        let _ = rustix::fs::fcntl_setfl(&self.fd, self.flags);
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsFd;

    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    use super::*;

    fn nonblocking(fd: impl AsFd) -> bool {
        rustix::fs::fcntl_getfl(fd).unwrap().contains(OFlags::NONBLOCK)
    }

    #[tokio::test]
    async fn unix_sockets_go_on_the_reactor_and_get_their_flags_back() {
        let (ours_in, theirs_in) = StdUnixStream::pair().unwrap();
        let (ours_out, theirs_out) = StdUnixStream::pair().unwrap();
        let (log, _log_peer) = StdUnixStream::pair().unwrap();
        let pair =
            SocketPair::open(ours_in.as_fd(), ours_out.as_fd(), log.as_fd()).expect("two Unix sockets");
        assert!(
            nonblocking(&ours_in) && nonblocking(&ours_out),
            "the descriptions are shared"
        );
        assert!(!nonblocking(&log), "stderr is left alone");

        let SocketPair {
            mut read,
            mut write,
            restore,
        } = pair;
        let mut theirs_in = tokio::net::UnixStream::from_std({
            theirs_in.set_nonblocking(true).unwrap();
            theirs_in
        })
        .unwrap();
        theirs_in.write_all(b"{}\n").await.unwrap();
        let mut line = [0; 3];
        read.read_exact(&mut line).await.unwrap();
        assert_eq!(&line, b"{}\n");
        write.write_all(b"ok\n").await.unwrap();
        let mut answer = [0; 3];
        std::io::Read::read_exact(&mut &theirs_out, &mut answer).unwrap();
        assert_eq!(&answer, b"ok\n");

        drop((read, write, restore));
        assert!(
            !nonblocking(&ours_in) && !nonblocking(&ours_out),
            "blocking again"
        );
    }

    #[tokio::test]
    async fn other_descriptors_are_left_to_the_blocking_handles() {
        let (a, _a_peer) = StdUnixStream::pair().unwrap();
        let (b, _b_peer) = StdUnixStream::pair().unwrap();
        let file = std::fs::File::open("/dev/null").unwrap();
        let (pipe_read, pipe_write) = std::io::pipe().unwrap();
        let refused = [
            // stdin and stdout on one socket
            (a.as_fd(), a.as_fd(), b.as_fd()),
            // stdout shared with stderr
            (a.as_fd(), b.as_fd(), b.as_fd()),
            // not sockets
            (file.as_fd(), b.as_fd(), file.as_fd()),
            (pipe_read.as_fd(), pipe_write.as_fd(), file.as_fd()),
        ];
        for (read, write, log) in refused {
            assert!(SocketPair::open(read, write, log).is_none());
        }
        let datagrams = std::os::unix::net::UnixDatagram::pair().unwrap();
        assert!(SocketPair::open(datagrams.0.as_fd(), b.as_fd(), file.as_fd()).is_none());
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        assert!(SocketPair::open(tcp.as_fd(), b.as_fd(), file.as_fd()).is_none());
        for fd in [a.as_fd(), b.as_fd(), file.as_fd(), pipe_read.as_fd()] {
            assert!(!nonblocking(fd), "nothing was changed");
        }
    }
}
