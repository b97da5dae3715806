//! The exec sandbox: which kernel layer enforces which restriction, and what happens when
//! one cannot.
//!
//! | restriction | enforced by | needs |
//! |---|---|---|
//! | no writes outside the workspace and the call's `TMPDIR` | Landlock | Linux 5.13 (ABI 1) |
//! | no reads outside the workspace, its `TMPDIR` and the system (`read = "workspace"`), nor of `deny_read` | Landlock | Linux 5.13 (ABI 1) |
//! | no signals to processes outside | Landlock scopes, or the PID namespace | ABI 6 (Linux 6.12), or a PID namespace |
//! | no Unix sockets (named or abstract) | seccomp (and Landlock scopes for abstract ones) | seccomp filters (Linux 4.14) |
//! | no network (`network = false`): TCP, UDP, DNS, raw | seccomp (and Landlock for TCP from ABI 4) | seccomp filters |
//! | only the allow-list's hosts (`network = [...]`): no connection but through the proxy | a network namespace per command (its own loopback, nothing else); Landlock: TCP connect only to the proxy's port, no bind; seccomp: no UDP (so no DNS), raw or non-TCP stream sockets | root, or unprivileged user namespaces; ABI 4; seccomp filters |
//! | no typing into the terminal (TIOCSTI, TIOCLINUX) | seccomp | seccomp filters |
//! | nothing outlives the call | a PID namespace per command | root, or unprivileged user namespaces |
//! | no capabilities (a root agent's command keeps uid 0 but none of root's powers) | `capset` and the bounding set | any Linux |
//! | at most `max_processes` processes and threads per command | a `pids` cgroup per command; else `RLIMIT_NPROC` in the command's user namespace | a cgroup the agent may create; else an agent that is not root and user namespaces (Linux 5.14) |
//! | at most `max_memory` per command | a memory cgroup per command (`RLIMIT_AS` per process is reported as not enforcing it) | a cgroup the agent may create |
//! | at most `max_cpu` of CPU time per command | the cgroup's CPU time, watched; `RLIMIT_CPU` per process as the kernel's backstop (alone, reported as not enforcing it) | a cgroup the agent may create |
//!
//! Each feature is probed on its own (`linux/features.rs`). A restriction that was asked
//! for and cannot be enforced fails the call when `require_sandbox` is set, and otherwise
//! runs the command with a note naming exactly what is off and why. The command guard is
//! not part of this: it is not a boundary.
//!
//! `linux/limits.rs` says what each resource limit stops and what it does not, and how a
//! call learns from the kernel that its command reached one.
//!
//! What the sandbox does not do: it does not hide a file reached through another mount or
//! hard link than the hidden path (`linux/readable.rs`), bound memory or CPU time unless
//! `max_memory` or `max_cpu` is set, or stop a local daemon reachable over an allowed
//! socket from acting for the command (with `unix_sockets = true`, docker.sock is root).
//!
//! # Other systems
//!
//! Every layer above is a Linux kernel feature, and there is no weaker stand-in worth the
//! name elsewhere: a sandbox that only looks like one is worse than none. So on other
//! systems (`unsupported.rs`, the same interface as `linux/`) `exec` refuses every call
//! unless the configuration says `sandbox = "none"`, and then runs commands unconfined in
//! their own process group, which is killed when the call ends; what leaves the group
//! (`setsid`, a double fork) may outlive the call, which each output notes unless
//! `keep_background = true` says that is expected (`require_sandbox = true` refuses it).
//! Landlock and seccompiler are Linux-only dependencies and are not built there.

mod hidden_paths;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as platform;

#[cfg(not(target_os = "linux"))]
mod unsupported;
#[cfg(not(target_os = "linux"))]
use unsupported as platform;

/// What the parent keeps of a command's resource limits: to learn which it reached.
pub(crate) use platform::CommandLimits;
/// What the child applies to itself before `exec`, how to prepare it for one call, and
/// whether a command under an allow-list can get a network namespace of its own.
pub(crate) use platform::{ChildPlan, network_namespace, prepare};

pub(crate) use crate::config::exec::ExecSandbox;
#[cfg(not(target_os = "linux"))]
use hidden_paths::ReadScope;
pub(crate) use hidden_paths::ReadSettings;

/// How a command under a network allow-list reaches the agent's proxy.
#[derive(Debug)]
pub(crate) enum ProxyRoute {
    /// From a network namespace of its own, where the child listens on the proxy's port
    /// and sends the listener down this end of a socket pair.
    Namespace(std::os::fd::OwnedFd),
    /// On the agent's loopback, at this port: no namespace could be made.
    Shared(u16),
}

/// What the child will apply, and the note for the output when something is off.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The child's confinement.
    pub(crate) plan: ChildPlan,
    /// Which requested restrictions are not enforced, when `require_sandbox` is off.
    pub(crate) note: Option<String>,
    /// What reading is confined to and which paths are hidden, when the sandbox hides
    /// anything: said when a command is refused a read.
    pub(crate) hidden: Option<String>,
    /// The command's resource limits, kept by the parent until the command has ended.
    pub(crate) limits: CommandLimits,
}
