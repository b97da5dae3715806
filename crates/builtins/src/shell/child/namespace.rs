//! A PID namespace per command, so that nothing it starts outlives it.
//!
//! A process group does not hold a command's processes: `setsid`, a double fork or
//! `nohup … &` leaves it, and the process then lives on after the call. A PID namespace
//! does hold them: when the namespace's first process (its *init*) ends, the kernel kills
//! every other process in it, and no process can leave a PID namespace.
//!
//! `unshare(CLONE_NEWPID)` puts the *children* of the caller in the new namespace, so the
//! child that `std` forks becomes a supervisor with two processes below it:
//!
//! ```text
//! agent ─ supervisor (our pid namespace) ─ init (pid 1 of the new one) ─ sh -c COMMAND
//! ```
//!
//! - **init** reaps every process orphaned in the namespace, and when the command ends it
//!   passes the command's wait status up a pipe and exits, which ends everything else.
//!   The command is not pid 1, so it handles signals as it would anywhere else (the init
//!   of a namespace ignores every signal it has no handler for).
//! - **the supervisor** is the process the agent waits for. It ignores SIGTERM (the
//!   command gets it through the process group and may end cleanly), waits for init, and
//!   then ends the way the command did — with its exit code or by its signal.
//!
//! Each process dies with its parent (`PR_SET_PDEATHSIG`), so a SIGKILL to the supervisor
//! (the end of the kill grace, or the agent's own death) takes the namespace with it.
//!
//! Without root, the namespace needs a user namespace around it (unprivileged user
//! namespaces; some distributions turn them off). The command keeps its user and group
//! ids: they are mapped to themselves, so it gains nothing it did not have.
//!
//! Under a network allow-list the same `unshare` also makes a network namespace (the
//! `network` module); with `keep_background = true` the command gets that one alone, with
//! no PID namespace and so no supervisor: it runs in the process that made it.
//!
//! What this does not do: it does not hide the agent's processes from `/proc` (Landlock
//! keeps the command from reading or tracing them), and it does not limit how many
//! processes a command starts (`max_processes` does: the sandbox's `limits` module).

use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;

use libc::pid_t;

use super::network;
use super::sys::{self, Forked};

/// How to enter a PID namespace (and, for an allow-list, a network namespace) here, as the
/// probe found works.
#[derive(Debug, Clone)]
pub(crate) struct NamespaceSetup {
    flags: libc::c_int,
    /// For a user namespace: the contents of `uid_map` and `gid_map`.
    id_maps: Option<(Vec<u8>, Vec<u8>)>,
}

impl NamespaceSetup {
    /// A PID namespace alone, which needs `CAP_SYS_ADMIN` (root).
    pub(crate) fn privileged() -> Self {
        Self {
            flags: libc::CLONE_NEWPID,
            id_maps: None,
        }
    }

    /// A PID namespace inside a new user namespace whose only ids are our own.
    pub(crate) fn unprivileged() -> Self {
        let uid = rustix::process::getuid().as_raw();
        let gid = rustix::process::getgid().as_raw();
        Self {
            flags: libc::CLONE_NEWUSER | libc::CLONE_NEWPID,
            id_maps: Some((
                format!("{uid} {uid} 1").into_bytes(),
                format!("{gid} {gid} 1").into_bytes(),
            )),
        }
    }

    /// The same namespaces and a network namespace too.
    pub(crate) fn with_network(&self) -> Self {
        Self {
            flags: self.flags | libc::CLONE_NEWNET,
            ..self.clone()
        }
    }

    /// The same without the PID namespace (for `keep_background = true`).
    pub(crate) fn without_pid(&self) -> Self {
        Self {
            flags: self.flags & !libc::CLONE_NEWPID,
            ..self.clone()
        }
    }

    /// Whether this setup makes a network namespace.
    pub(crate) fn has_network(&self) -> bool {
        self.flags & libc::CLONE_NEWNET != 0
    }

    /// Whether this setup needs unprivileged user namespaces.
    pub(crate) fn uses_user_namespace(&self) -> bool {
        self.id_maps.is_some()
    }
}

const SETGROUPS: &CStr = c"/proc/self/setgroups";
const UID_MAP: &CStr = c"/proc/self/uid_map";
const GID_MAP: &CStr = c"/proc/self/gid_map";

/// Makes the new namespaces and, for a PID namespace, the two processes that hold it, and
/// returns in the process that goes on to `exec` the command. The supervisor and init
/// never return. In a network namespace, loopback comes up and, given `proxy_link`, the
/// proxy's listener is sent down it — before the supervisor forks, since it and init close
/// every descriptor they do not need.
///
/// Runs between `fork` and `exec`: see the parent module for what that allows.
pub(super) fn enter(setup: &NamespaceSetup, proxy_link: Option<RawFd>) -> io::Result<()> {
    sys::unshare(setup.flags)?;
    if let Some((uid_map, gid_map)) = &setup.id_maps {
        // An unprivileged process may map only its own ids, and only after giving up
        // setgroups(2).
        sys::write_file(SETGROUPS, b"deny")?;
        sys::write_file(UID_MAP, uid_map)?;
        sys::write_file(GID_MAP, gid_map)?;
    }
    if setup.has_network() {
        network::bring_up_loopback()?;
        if let Some(link) = proxy_link {
            network::send_proxy_listener(link)?;
        }
    }
    if setup.flags & libc::CLONE_NEWPID == 0 {
        return Ok(());
    }
    let [status_read, status_write] = sys::pipe()?;
    match sys::fork()? {
        Forked::Parent(init) => {
            sys::close(status_write);
            supervise(init, status_read)
        }
        Forked::Child => {
            sys::close(status_read);
            sys::die_with_parent()?;
            match sys::fork()? {
                Forked::Parent(command) => run_init(command, status_write),
                Forked::Child => {
                    sys::close(status_write);
                    sys::die_with_parent()
                }
            }
        }
    }
}

/// The namespace's pid 1: reaps orphans until the command ends, then reports its status
/// and exits, which makes the kernel kill what is left.
fn run_init(command: pid_t, status: RawFd) -> ! {
    sys::close_all_except(status);
    loop {
        match sys::wait(None) {
            Ok((pid, wait_status)) if pid == command => {
                sys::send_status(status, wait_status);
                sys::exit(0)
            }
            Ok(_) => continue,
            // No children left (the command is gone without a status we saw).
            Err(_) => sys::exit(0),
        }
    }
}

/// The agent's direct child: waits for init and ends as the command ended.
fn supervise(init: pid_t, status: RawFd) -> ! {
    sys::close_all_except(status);
    sys::ignore(libc::SIGTERM);
    let init_status = match sys::wait(Some(init)) {
        Ok((_, wait_status)) => wait_status,
        Err(_) => sys::exit(127),
    };
    // Init killed before the command ended (the kill grace ran out): end as init did.
    let ended = sys::receive_status(status).unwrap_or(init_status);
    sys::exit_like(ended)
}

/// Whether `setup` works here: enters it in a throwaway child, as a command would, and
/// reports the first failure.
// Unsafe: it forks the multi-threaded agent, which no safe interface offers.
#[allow(unsafe_code)]
pub(crate) fn probe(setup: &NamespaceSetup) -> io::Result<()> {
    // SAFETY: the child makes only the system calls `enter` makes, then `_exit`s; it never
    // returns into the caller's code.
    match unsafe { libc::fork() } {
        -1 => Err(io::Error::last_os_error()),
        0 => {
            let code = match enter(setup, None) {
                Ok(()) => 0,
                Err(error) => error.raw_os_error().unwrap_or(libc::EINVAL),
            };
            sys::exit(code)
        }
        child => {
            let (_, status) = sys::wait(Some(child))?;
            match libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)) {
                Some(0) => Ok(()),
                Some(errno) => Err(io::Error::from_raw_os_error(errno)),
                None => Err(io::Error::other("the namespace probe was killed")),
            }
        }
    }
}
