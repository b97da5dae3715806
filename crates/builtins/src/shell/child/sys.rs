//! The system calls the child makes between `fork` and `exec`, each a thin wrapper that
//! turns a failure into an errno-only [`io::Error`] (which allocates nothing).
//!
//! Every function here is async-signal-safe: a raw system call on memory the caller
//! already owns. Nothing here may allocate, lock, or call into code that might.
//!
//! Where rustix has a safe function for the call, it is used: rustix makes the system
//! call itself (its `linux_raw` backend, no libc), allocates nothing for arguments that
//! are already C strings or integers, and turns the errno into an [`io::Error`] with
//! `from_raw_os_error`. (A rustix function given a `&str` or a `Path` would not do: it
//! copies a long name into an allocated C string.) The rest are libc calls, each in a
//! function that says why it needs `unsafe`.

use std::io;
use std::os::fd::{IntoRawFd as _, RawFd};

use libc::{c_int, c_long, pid_t};
use rustix::process::Signal;
use rustix::thread::{CapabilitySet, CapabilitySets};

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
    Ok(rustix::process::set_parent_process_death_signal(Some(
        Signal::KILL,
    ))?)
}

/// Sets `no_new_privs`, which Landlock and seccomp need from an unprivileged process and
/// which keeps set-uid programs from regaining what the sandbox took.
pub(super) fn no_new_privs() -> io::Result<()> {
    Ok(rustix::thread::set_no_new_privs(true)?)
}

/// Gives up every capability, now and across `exec`: the bounding set (so that running a
/// program as uid 0 grants nothing), the ambient set, and the process's own sets. A root
/// agent's command otherwise keeps root's powers, some of which pass Landlock by (e.g.
/// `CAP_SYS_PTRACE` reads other processes' `/proc/<pid>/environ`).
pub(super) fn drop_capabilities() -> io::Result<()> {
    // Failures for capabilities this kernel does not know (EINVAL) or we may not drop
    // (EPERM, without CAP_SETPCAP) are expected; capset below is what must succeed.
    let _ = rustix::thread::clear_ambient_capability_set();
    for capability in 0..64 {
        let _ = rustix::thread::remove_capability_from_bounding_set(CapabilitySet::from_bits_retain(
            1 << capability,
        ));
    }
    let none = CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    Ok(rustix::thread::set_capabilities(None, none)?)
}

/// Enforces a Landlock ruleset on this process and what it starts.
// Needs unsafe: rustix has no Landlock calls.
#[allow(unsafe_code)]
pub(super) fn landlock_restrict_self(ruleset: RawFd) -> io::Result<()> {
    // SAFETY: the system call reads only its two integer arguments.
    check_long(unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0) }).map(drop)
}

/// Installs a seccomp filter on this process and what it starts.
// Needs unsafe: rustix has no `seccomp(2)`, and the kernel reads the program through a
// raw pointer.
#[allow(unsafe_code)]
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
// Needs unsafe: unsharing is unsafe in rustix too (`unshare_unsafe`): some flags break
// what other code assumes about descriptors it shares.
#[allow(unsafe_code)]
pub(super) fn unshare(flags: c_int) -> io::Result<()> {
    // SAFETY: unshare takes integer flags only; the flags used here (CLONE_NEWUSER,
    // CLONE_NEWPID) change no descriptor or memory this process relies on.
    check(unsafe { libc::unshare(flags) }).map(drop)
}

/// Writes `bytes` to the file at `path` in one `write`, as `/proc/self/uid_map` requires.
pub(super) fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    use rustix::fs::{Mode, OFlags};
    // A `&CStr` goes to the kernel as it is, without a copy; the descriptor closes when
    // dropped, on every path.
    let file = rustix::fs::open(path, OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())?;
    match rustix::io::write(&file, bytes)? {
        written if written == bytes.len() => Ok(()),
        _ => Err(io::Error::from_raw_os_error(libc::EIO)),
    }
}

/// Moves this process into the cgroup whose `cgroup.procs` is open as `procs`: `0` means
/// the writing process, in cgroup v1 and v2 alike.
pub(super) fn join_cgroup(procs: std::os::fd::BorrowedFd<'_>) -> io::Result<()> {
    match rustix::io::write(procs, b"0")? {
        1 => Ok(()),
        _ => Err(io::Error::from_raw_os_error(libc::EIO)),
    }
}

/// Lowers a resource limit to `current` (soft) and `maximum` (hard), never above what
/// this process has: raising a limit needs a privilege the command must not use.
pub(super) fn lower_rlimit(
    resource: rustix::process::Resource,
    current: u64,
    maximum: u64,
) -> io::Result<()> {
    let had = rustix::process::getrlimit(resource);
    let cap = |wanted: u64, had: Option<u64>| Some(had.map_or(wanted, |had| had.min(wanted)));
    let maximum = cap(maximum, had.maximum);
    let limit = rustix::process::Rlimit {
        current: cap(current, maximum),
        maximum,
    };
    Ok(rustix::process::setrlimit(resource, limit)?)
}

/// A pipe whose ends close on `exec`: `[read, write]`.
pub(super) fn pipe() -> io::Result<[RawFd; 2]> {
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    // Raw from here on: the processes that hold them close descriptors by number
    // (`close_all_except`) and end with `_exit`, neither of which an owned one expects.
    Ok([read.into_raw_fd(), write.into_raw_fd()])
}

/// What `fork` returned in this process.
pub(super) enum Forked {
    /// This is the new child.
    Child,
    /// This is the parent; the child has this pid.
    Parent(pid_t),
}

/// Forks this (single-threaded) process.
// Needs unsafe: forking is unsafe by nature (rustix offers no fork), and the child's
// safety rests on the caller.
#[allow(unsafe_code)]
pub(super) fn fork() -> io::Result<Forked> {
    // SAFETY: called only in a child that is already single-threaded and makes only
    // async-signal-safe calls afterwards.
    match check(unsafe { libc::fork() })? {
        0 => Ok(Forked::Child),
        pid => Ok(Forked::Parent(pid)),
    }
}

/// Closes a descriptor, ignoring errors (it is ours and open).
// Needs unsafe: closing by number is unsafe in rustix too; the descriptors here are raw
// on purpose (see `pipe`).
#[allow(unsafe_code)]
pub(super) fn close(fd: RawFd) {
    // SAFETY: closing a descriptor this process owns.
    unsafe {
        libc::close(fd);
    }
}

/// Closes every descriptor but `keep`: the output pipes, std's exec-error pipe and the
/// Landlock ruleset must not be held open by a supervising process.
// Needs unsafe: rustix has no `close_range`, and it closes descriptors it does not own.
#[allow(unsafe_code)]
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
    const MAX: u64 = 1 << 20;
    // No soft limit (`None`, infinity) counts as the most we would ever close one by one.
    let current = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .unwrap_or(MAX);
    u32::try_from(current.min(MAX)).unwrap_or(1 << 20)
}

/// Ignores `signal` in this process.
// Needs unsafe: rustix has no safe way to set a signal disposition.
#[allow(unsafe_code)]
pub(super) fn ignore(signal: c_int) {
    // SAFETY: setting a disposition to SIG_IGN installs no handler code.
    unsafe {
        libc::signal(signal, libc::SIG_IGN);
    }
}

/// Waits for the child `pid`, or for any child with `None`, retrying interrupted waits:
/// the pid that ended and its raw wait status.
pub(super) fn wait(pid: Option<pid_t>) -> io::Result<(pid_t, c_int)> {
    use rustix::process::{Pid, WaitOptions};
    let pid = match pid {
        // rustix's `waitpid(None)` would wait for our process group, not any child.
        Some(pid) => Some(Pid::from_raw(pid).ok_or_else(|| io::Error::from_raw_os_error(libc::ECHILD))?),
        None => None,
    };
    loop {
        let waited = match pid {
            Some(pid) => rustix::process::waitpid(Some(pid), WaitOptions::empty()),
            None => rustix::process::wait(WaitOptions::empty()),
        };
        match waited {
            Err(rustix::io::Errno::INTR) => continue,
            Err(error) => return Err(error.into()),
            Ok(Some((ended, status))) => return Ok((ended.as_raw_nonzero().get(), status.as_raw())),
            // Only a WNOHANG wait returns without a child.
            Ok(None) => return Err(io::Error::from_raw_os_error(libc::ECHILD)),
        }
    }
}

/// Writes a wait status to a pipe; a failure only means the reader sees end of file.
// Needs unsafe: the descriptor is raw (see `pipe`).
#[allow(unsafe_code)]
pub(super) fn send_status(fd: RawFd, status: c_int) {
    let bytes = status.to_ne_bytes();
    // SAFETY: writing from a stack buffer.
    unsafe {
        libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    }
}

/// Reads a wait status written by [`send_status`], if one was.
// Needs unsafe: the descriptor is raw (see `pipe`).
#[allow(unsafe_code)]
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
// Needs unsafe: restoring a signal's default disposition has no safe form in rustix.
#[allow(unsafe_code)]
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
// Needs unsafe: `_exit` runs no destructors and no atexit handlers; rustix's safe form
// is in its unstable `runtime` module.
#[allow(unsafe_code)]
pub(super) fn exit(code: c_int) -> ! {
    // SAFETY: _exit is async-signal-safe and does not return.
    unsafe { libc::_exit(code) }
}
