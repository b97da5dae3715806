//! The system calls the child makes between `fork` and `exec`, each a thin wrapper that
//! turns a failure into an errno-only [`io::Error`] (which allocates nothing).
//!
//! Every function here is async-signal-safe: a raw system call on memory the caller
//! already owns. Nothing here may allocate, lock, or call into code that might.

use std::io;
use std::os::fd::RawFd;

use libc::{c_int, c_long, pid_t};

/// The errno of the last failed call, as an error that carries only the number.
fn last_error() -> io::Error {
    io::Error::last_os_error()
}

fn check(result: c_int) -> io::Result<c_int> {
    if result < 0 { Err(last_error()) } else { Ok(result) }
}

fn check_long(result: c_long) -> io::Result<c_long> {
    if result < 0 { Err(last_error()) } else { Ok(result) }
}

/// Asks the kernel to SIGKILL this process when the thread that forked it ends.
pub(super) fn die_with_parent() -> io::Result<()> {
    // SAFETY: prctl with integer arguments only.
    check(unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) }).map(drop)
}

/// Sets `no_new_privs`, which Landlock and seccomp need from an unprivileged process and
/// which keeps set-uid programs from regaining what the sandbox took.
pub(super) fn no_new_privs() -> io::Result<()> {
    // SAFETY: prctl with integer arguments only.
    check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) }).map(drop)
}

/// Gives up every capability, now and across `exec`: the bounding set (so that running a
/// program as uid 0 grants nothing), the ambient set, and the process's own sets. A root
/// agent's command otherwise keeps root's powers, some of which pass Landlock by (e.g.
/// `CAP_SYS_PTRACE` reads other processes' `/proc/<pid>/environ`).
pub(super) fn drop_capabilities() -> io::Result<()> {
    // SAFETY: prctl with integer arguments only; failures for capabilities this kernel
    // does not know (EINVAL) or may not drop (EPERM, without CAP_SETPCAP) are expected.
    unsafe {
        libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
        for capability in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0);
        }
    }
    #[repr(C)]
    struct Header {
        version: u32,
        pid: c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Sets {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const VERSION_3: u32 = 0x2008_0522;
    let header = Header {
        version: VERSION_3,
        pid: 0,
    };
    let none = [Sets {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: capset reads the header and the two (version 3) sets it points to.
    check_long(unsafe { libc::syscall(libc::SYS_capset, &raw const header, none.as_ptr()) }).map(drop)
}

/// Enforces a Landlock ruleset on this process and what it starts.
pub(super) fn landlock_restrict_self(ruleset: RawFd) -> io::Result<()> {
    // SAFETY: the system call reads only its two integer arguments.
    check_long(unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0) }).map(drop)
}

/// Installs a seccomp filter on this process and what it starts.
pub(super) fn seccomp_filter(program: &[seccompiler::sock_filter]) -> io::Result<()> {
    let len = u16::try_from(program.len()).map_err(|_| io::Error::from_raw_os_error(libc::E2BIG))?;
    let prog = libc::sock_fprog {
        len,
        // seccompiler's `sock_filter` is `#[repr(C)]` with the kernel's layout, as libc's is.
        filter: program.as_ptr().cast_mut().cast::<libc::sock_filter>(),
    };
    // SAFETY: the kernel copies `prog` and the array it points to during the call;
    // both outlive it.
    check_long(unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &raw const prog,
        )
    })
    .map(drop)
}

/// Moves this process into new namespaces (`CLONE_NEW*` flags).
pub(super) fn unshare(flags: c_int) -> io::Result<()> {
    // SAFETY: unshare takes integer flags only.
    check(unsafe { libc::unshare(flags) }).map(drop)
}

/// Writes `bytes` to the file at `path` (a NUL-terminated byte string) in one `write`, as
/// `/proc/self/uid_map` requires.
pub(super) fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: `path` is NUL-terminated; the descriptor is closed on every path.
    unsafe {
        let fd = check(libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC))?;
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let error = last_error();
        libc::close(fd);
        match usize::try_from(written) {
            Ok(count) if count == bytes.len() => Ok(()),
            Ok(_) => Err(io::Error::from_raw_os_error(libc::EIO)),
            Err(_) => Err(error),
        }
    }
}

/// A pipe whose ends close on `exec`: `[read, write]`.
pub(super) fn pipe() -> io::Result<[RawFd; 2]> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    Ok(fds)
}

/// What `fork` returned in this process.
pub(super) enum Forked {
    /// This is the new child.
    Child,
    /// This is the parent; the child has this pid.
    Parent(pid_t),
}

/// Forks this (single-threaded) process.
pub(super) fn fork() -> io::Result<Forked> {
    // SAFETY: called only in a child that is already single-threaded and makes only
    // async-signal-safe calls afterwards.
    match check(unsafe { libc::fork() })? {
        0 => Ok(Forked::Child),
        pid => Ok(Forked::Parent(pid)),
    }
}

/// Closes a descriptor, ignoring errors (it is ours and open).
pub(super) fn close(fd: RawFd) {
    // SAFETY: closing a descriptor this process owns.
    unsafe {
        libc::close(fd);
    }
}

/// Closes every descriptor but `keep`: the output pipes, std's exec-error pipe and the
/// Landlock ruleset must not be held open by a supervising process.
pub(super) fn close_all_except(keep: RawFd) {
    let keep = u32::try_from(keep).unwrap_or(0);
    let ranges = [(0, keep.checked_sub(1)), (keep + 1, Some(u32::MAX))];
    for (first, last) in ranges {
        let Some(last) = last else { continue };
        // SAFETY: close_range only closes descriptors.
        let closed = unsafe { libc::syscall(libc::SYS_close_range, first, last, 0) };
        if closed < 0 {
            // Before Linux 5.9: one by one, up to the descriptor limit.
            let limit = open_max().min(last.saturating_add(1));
            (first..limit).for_each(|fd| close(fd as RawFd));
        }
    }
}

fn open_max() -> u32 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct.
    let known = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    let current = if known { limit.rlim_cur } else { 1024 };
    u32::try_from(current.min(1 << 20)).unwrap_or(1 << 20)
}

/// Ignores `signal` in this process.
pub(super) fn ignore(signal: c_int) {
    // SAFETY: setting a disposition to SIG_IGN installs no handler code.
    unsafe {
        libc::signal(signal, libc::SIG_IGN);
    }
}

/// Waits for `pid`, or for any child with `-1`, retrying interrupted waits: the pid that
/// ended and its raw wait status.
pub(super) fn wait(pid: pid_t) -> io::Result<(pid_t, c_int)> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid writes the status into our variable.
        match unsafe { libc::waitpid(pid, &mut status, 0) } {
            -1 if last_error().raw_os_error() == Some(libc::EINTR) => continue,
            -1 => return Err(last_error()),
            ended => return Ok((ended, status)),
        }
    }
}

/// Writes a wait status to a pipe; a failure only means the reader sees end of file.
pub(super) fn send_status(fd: RawFd, status: c_int) {
    let bytes = status.to_ne_bytes();
    // SAFETY: writing from a stack buffer.
    unsafe {
        libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    }
}

/// Reads a wait status written by [`send_status`], if one was.
pub(super) fn receive_status(fd: RawFd) -> Option<c_int> {
    let mut bytes = [0u8; 4];
    loop {
        // SAFETY: reading into a stack buffer of the given length.
        let read = unsafe { libc::read(fd, bytes.as_mut_ptr().cast(), bytes.len()) };
        if read == -1 && last_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        return (read == 4).then(|| c_int::from_ne_bytes(bytes));
    }
}

/// Ends this process the way `status` says another ended: with its exit code, or killed
/// by its signal (without a core dump, which would copy the agent's memory to disk).
pub(super) fn exit_like(status: c_int) -> ! {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: plain system calls; the signal's default action ends this process.
        unsafe {
            libc::setrlimit(libc::RLIMIT_CORE, &no_core);
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
        exit(128 + signal);
    }
    exit(libc::WEXITSTATUS(status))
}

/// Ends this process at once, running no destructors and no `atexit` handlers.
pub(super) fn exit(code: c_int) -> ! {
    // SAFETY: _exit is async-signal-safe and does not return.
    unsafe { libc::_exit(code) }
}
