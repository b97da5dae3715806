//! What the command's process does between `fork` and `exec`: die with the agent, join
//! its cgroups, enter its PID namespace (and under an allow-list its network namespace),
//! set its resource limits, and confine itself.
//!
//! # Why nothing here allocates
//!
//! The agent is multi-threaded. `fork` copies only the calling thread, together with the
//! memory of all of them — including any lock another thread held at that moment, such as
//! the allocator's, which nobody will ever release in the child. Until `exec`, the child
//! may therefore only make async-signal-safe calls. Everything the child needs is built by
//! the parent beforehand: the Landlock ruleset is an open descriptor, the seccomp program a
//! finished array of BPF instructions, the namespace's id maps preformatted bytes, each
//! cgroup an open `cgroup.procs`. The
//! child makes raw system calls on them ([`sys`]) and reports a failure as an errno-only
//! [`std::io::Error`], which std's child code sends to the parent without allocating.

mod namespace;
mod network;
mod sys;

use std::io;
use std::os::fd::{AsFd as _, AsRawFd, OwnedFd};

use tokio::process::Command;

pub(crate) use namespace::{NamespaceSetup, probe as probe_namespace};

/// Everything the child applies to itself, prepared by the parent.
#[derive(Debug, Default)]
pub(crate) struct ChildPlan {
    /// A Landlock ruleset to enforce.
    pub(crate) landlock: Option<OwnedFd>,
    /// A seccomp program to install (last: it may refuse calls made before it).
    pub(crate) seccomp: Option<seccompiler::BpfProgram>,
    /// Namespaces to run in: PID, and network under an allow-list.
    pub(crate) namespace: Option<NamespaceSetup>,
    /// Where to send the proxy's listener made in the network namespace: this process's
    /// end of a socket pair whose other end the agent reads.
    pub(crate) proxy_link: Option<OwnedFd>,
    /// Give up every capability (a root agent's command runs as uid 0 without them).
    pub(crate) drop_capabilities: bool,
    /// The `cgroup.procs` of each cgroup to join, first of all, so that everything the
    /// command starts is inside.
    pub(crate) cgroup_procs: Vec<OwnedFd>,
    /// Resource limits of the command's process (set after the namespace is made).
    pub(crate) rlimits: Rlimits,
}

/// Resource limits the command's process sets on itself; each only lowers what it has.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Rlimits {
    /// `RLIMIT_NPROC`: processes of this user (in the command's own user namespace).
    pub(crate) processes: Option<u64>,
    /// `RLIMIT_AS`: bytes of address space per process.
    pub(crate) address_space: Option<u64>,
    /// `RLIMIT_CPU`: seconds of CPU time per process (SIGXCPU then, SIGKILL a second later).
    pub(crate) cpu_seconds: Option<u64>,
}

impl ChildPlan {
    /// Makes `command` apply this plan in its child before `exec`.
    // Unsafe: code that runs between fork and exec is unsafe by nature (`pre_exec`).
    #[allow(unsafe_code)]
    pub(crate) fn install(self, command: &mut Command) {
        // SAFETY: `apply` runs in the forked child and makes only async-signal-safe system
        // calls on data prepared here, allocating nothing (see the module docs).
        unsafe {
            command.pre_exec(move || self.apply());
        }
    }

    fn apply(&self) -> io::Result<()> {
        sys::die_with_parent()?;
        for procs in &self.cgroup_procs {
            sys::join_cgroup(procs.as_fd())?;
        }
        if let Some(setup) = &self.namespace {
            namespace::enter(setup, self.proxy_link.as_ref().map(AsRawFd::as_raw_fd))?;
        }
        self.set_rlimits()?;
        if self.drop_capabilities {
            sys::drop_capabilities()?;
        }
        if self.landlock.is_some() || self.seccomp.is_some() {
            sys::no_new_privs()?;
        }
        if let Some(ruleset) = &self.landlock {
            sys::landlock_restrict_self(ruleset.as_raw_fd())?;
        }
        if let Some(program) = &self.seccomp {
            sys::seccomp_filter(program)?;
        }
        Ok(())
    }

    fn set_rlimits(&self) -> io::Result<()> {
        use rustix::process::Resource;
        let Rlimits {
            processes,
            address_space,
            cpu_seconds,
        } = self.rlimits;
        if let Some(max) = processes {
            sys::lower_rlimit(Resource::Nproc, max, max)?;
        }
        if let Some(max) = address_space {
            sys::lower_rlimit(Resource::As, max, max)?;
        }
        if let Some(seconds) = cpu_seconds {
            // SIGXCPU at the limit; SIGKILL a second later for a process that ignores it.
            sys::lower_rlimit(Resource::Cpu, seconds, seconds.saturating_add(1))?;
        }
        Ok(())
    }
}
