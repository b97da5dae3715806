//! A pseudo-terminal, and commands run in a session whose controlling terminal it is — as
//! a person at a terminal runs them.

use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::process::CommandExt as _;
use std::process::Command;

use rustix::fs::{Mode, OFlags};
use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};

/// A new pseudo-terminal in its default (line-editing, echoing) mode: `(controller,
/// terminal)`. What is written to the controller is typed at the terminal.
pub fn pseudo_terminal() -> (OwnedFd, OwnedFd) {
    let controller = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("posix_openpt");
    grantpt(&controller).expect("grantpt");
    unlockpt(&controller).expect("unlockpt");
    let name = ptsname(&controller, Vec::new()).expect("ptsname");
    let flags = OFlags::RDWR | OFlags::NOCTTY;
    let terminal = rustix::fs::open(name.as_c_str(), flags, Mode::empty()).expect("open the terminal");
    (controller, terminal)
}

/// Makes `command` the leader of a new session whose controlling terminal is `terminal`.
// Needs unsafe: it runs code between fork and exec (`pre_exec`).
#[allow(unsafe_code)]
pub fn in_session_of(command: &mut Command, terminal: &OwnedFd) {
    let terminal = terminal.as_raw_fd();
    // SAFETY: setsid and ioctl are async-signal-safe; nothing is allocated.
    unsafe {
        command.pre_exec(move || {
            if libc::setsid() < 0 || libc::ioctl(terminal, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
