//! What this kernel can enforce: each feature probed on its own, once per process.
//!
//! One missing feature must never read as all of them missing ("Landlock is not
//! available" on a kernel that lacks only signal scoping), so each answer carries its own
//! reason.

use std::sync::OnceLock;

use super::cgroup::Cgroups;
use crate::shell::child::{NamespaceSetup, probe_namespace};

/// The Landlock ABI that scopes signals and abstract Unix sockets (Linux 6.12).
pub(crate) const LANDLOCK_SCOPES: i32 = 6;
/// The Landlock ABI that can refuse TCP (Linux 6.7).
pub(crate) const LANDLOCK_TCP: i32 = 4;

/// The kernel features the exec sandbox uses.
#[derive(Debug)]
pub(crate) struct Features {
    /// Landlock's ABI version, or why there is none.
    pub(crate) landlock: Result<i32, String>,
    /// Whether seccomp filters can be installed, or why not.
    pub(crate) seccomp: Result<(), String>,
    /// How to make a PID namespace here, or why it cannot be made.
    pub(crate) pid_namespace: Result<NamespaceSetup, String>,
    /// Whether a network namespace can be made with it (with its loopback up), or why not.
    pub(crate) network_namespace: Result<(), String>,
    /// Where the agent can make a cgroup per command, per controller.
    pub(crate) cgroups: Cgroups,
}

impl Features {
    /// The features of this kernel, probed on first use.
    pub(crate) fn get() -> &'static Features {
        static FEATURES: OnceLock<Features> = OnceLock::new();
        FEATURES.get_or_init(|| {
            let pid_namespace = pid_namespace();
            let network_namespace = network_namespace(&pid_namespace);
            Features {
                landlock: landlock_abi(),
                seccomp: seccomp(),
                pid_namespace,
                network_namespace,
                cgroups: Cgroups::find(),
            }
        })
    }

    /// The Landlock ABI, 0 without Landlock.
    pub(crate) fn landlock_abi(&self) -> i32 {
        self.landlock.as_ref().map_or(0, |abi| *abi)
    }
}

// Unsafe: rustix has no Landlock calls, so this is a raw system call.
#[allow(unsafe_code)]
fn landlock_abi() -> Result<i32, String> {
    // SAFETY: with a null attribute pointer and the VERSION flag the call only returns the
    // ABI version.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0,
            1, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    if version >= 1 {
        return i32::try_from(version).map_err(|_| "Landlock reported an unknown version".to_owned());
    }
    Err(match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EOPNOTSUPP) => {
            "Landlock is built into this kernel but not enabled (add `landlock` to the `lsm=` boot parameter)"
                .to_owned()
        }
        _ => "this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)".to_owned(),
    })
}

// Unsafe: rustix has no `seccomp(2)`, so asking for an action is a raw system call.
#[allow(unsafe_code)]
fn seccomp() -> Result<(), String> {
    if rustix::thread::secure_computing_mode().is_err() {
        return Err("this kernel has no seccomp (CONFIG_SECCOMP)".to_owned());
    }
    let errno_action: u32 = libc::SECCOMP_RET_ERRNO;
    // SAFETY: the call reads the action value we pass by pointer.
    let available = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_GET_ACTION_AVAIL,
            0,
            &raw const errno_action,
        )
    };
    if available != 0 {
        return Err("this kernel cannot return errors from seccomp filters (Linux 4.14 or later)".to_owned());
    }
    Ok(())
}

fn pid_namespace() -> Result<NamespaceSetup, String> {
    let root = rustix::process::geteuid().is_root();
    let mut candidates = vec![NamespaceSetup::unprivileged()];
    if root {
        candidates.insert(0, NamespaceSetup::privileged());
    }
    let mut reasons = Vec::new();
    for setup in candidates {
        match probe_namespace(&setup) {
            Ok(()) => return Ok(setup),
            Err(error) if setup.uses_user_namespace() => {
                reasons.push(format!("an unprivileged user namespace cannot be made ({error})"));
            }
            Err(error) => reasons.push(format!("as root: {error}")),
        }
    }
    Err(format!(
        "no PID namespace can be made here: {}",
        reasons.join("; ")
    ))
}

fn network_namespace(pid_namespace: &Result<NamespaceSetup, String>) -> Result<(), String> {
    let setup = pid_namespace
        .as_ref()
        .map_err(|reason| format!("no namespaces at all: {reason}"))?;
    probe_namespace(&setup.with_network())
        .map_err(|error| format!("no network namespace can be made here ({error})"))
}
