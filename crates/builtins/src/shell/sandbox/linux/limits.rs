//! Per-command resource limits (`max_processes`, `max_memory`, `max_cpu`): which kernel
//! mechanism enforces each here, and how a call learns that its command reached one.
//!
//! | limit | with a cgroup (`cgroup.rs`) | without |
//! |---|---|---|
//! | `max_processes` | `pids.max` on the command's cgroup: every process and thread it starts, at once | `RLIMIT_NPROC` in the command's own user namespace (an agent that is not root, Linux 5.14 or later); otherwise not enforced |
//! | `max_memory` | the memory controller's limit on the command's cgroup (`memory.max`, or `memory.limit_in_bytes`, swap included where the kernel counts it) | `RLIMIT_AS` per process, reported as not enforced |
//! | `max_cpu` | the CPU time of the whole cgroup, watched by the agent, plus `RLIMIT_CPU` per process | `RLIMIT_CPU` per process, reported as not enforced |
//!
//! What each stops, and what it does not:
//!
//! - `pids.max` stops a fork bomb: a `fork` or thread beyond the limit fails with
//!   `EAGAIN`, and the agent's own processes are in another cgroup, so it goes on
//!   answering. The limit counts threads as well as processes, and the two processes
//!   that hold the command's PID namespace are added to it. It does not stop a command
//!   from using the processes it may have for something else (CPU, memory).
//! - `RLIMIT_NPROC` counts the processes of a user id. Real root is exempt from it
//!   (`kernel/fork.c`), and for anyone else it counts every process of the user — the
//!   agent's own included — unless the command has a user namespace of its own, where
//!   since Linux 5.14 the count is per namespace. So it is used only for an agent that is
//!   not root and runs commands in user namespaces (`NamespaceSetup::unprivileged`), and
//!   it is set after the namespace is made, in the command's process.
//! - The memory controller bounds the memory of the command's processes together (pages
//!   they touch, page cache they fill, and kernel memory charged to them); beyond it the
//!   kernel reclaims, then its OOM killer ends a process of the command. It does not
//!   bound the agent's memory or that of processes outside the command.
//! - `RLIMIT_AS` bounds each process's *address space*, not what it uses: several
//!   processes together can exceed the number, and a program that reserves much address
//!   space and uses little (a JVM, Go, sanitizers) fails under it. An allocation beyond
//!   it fails (`ENOMEM`) and the program reports that its own way, which the call cannot
//!   tell from any other failure.
//! - CPU time: no kernel mechanism ends a group of processes at a total CPU time (a
//!   cgroup's `cpu.max` throttles, it does not stop). With a cgroup counting CPU time the
//!   agent reads the total and stops the command when it reaches the limit, waking no
//!   earlier than the time the command needs to get there on every CPU; `RLIMIT_CPU` on
//!   each process is the kernel's bound should the agent be late (SIGXCPU at the limit,
//!   SIGKILL a second later). Without the cgroup, only `RLIMIT_CPU` remains, per process,
//!   so many processes together use more; and the call can name the limit only when the
//!   command's own process was stopped by it.
//!
//! A limit that was asked for and is not enforced here follows the sandbox's rule: with
//! `require_sandbox` the call is refused, naming it; otherwise the output notes it.
//!
//! A call learns that a limit was reached from the kernel, never from the command's
//! output: `pids.events` (`max`), the OOM kill count (`memory.events` or
//! `memory.oom_control`), the cgroup's CPU time, or a `SIGXCPU` wait status.

use std::os::unix::process::ExitStatusExt as _;
use std::process::ExitStatus;
use std::time::Duration;

use super::cgroup::{CgroupLimits, CommandCgroup};
use super::features::Features;
use super::{Missing, Restriction};
use crate::ExecConfig;
use crate::shell::child::{ChildPlan, Rlimits};
use crate::text_format::human_size;

/// The processes that hold a command's PID namespace (supervisor and init), which the
/// process count includes.
const NAMESPACE_PROCESSES: u64 = 2;

/// What the parent keeps of one command's limits: its cgroups, and the limits to name
/// when one is reached.
#[derive(Debug, Default)]
pub(crate) struct CommandLimits {
    cgroup: Option<CommandCgroup>,
    max_processes: Option<u32>,
    max_memory: Option<u64>,
    max_cpu: Option<Duration>,
    /// Whether the cgroup counts CPU time (else only `RLIMIT_CPU` does).
    cpu_counted: bool,
}

/// Adds the configured limits to `plan`, with what cannot be enforced here to `missing`,
/// and makes the command's cgroups.
pub(super) fn prepare(
    features: &Features,
    config: &ExecConfig,
    plan: &mut ChildPlan,
    missing: &mut Vec<Missing>,
) -> Result<CommandLimits, String> {
    let cgroups = &features.cgroups;
    let overhead = if plan.namespace.is_some() {
        NAMESPACE_PROCESSES
    } else {
        0
    };
    let mut rlimits = Rlimits::default();
    let mut lack = |restriction, reason: String| missing.push(Missing { restriction, reason });

    let pids = config.max_processes.and_then(|max| match &cgroups.pids {
        Ok(place) => Some(place),
        Err(reason) => {
            let per_namespace = plan
                .namespace
                .as_ref()
                .is_some_and(|setup| setup.uses_user_namespace())
                && !rustix::process::getuid().is_root();
            if per_namespace {
                rlimits.processes = Some(u64::from(max) + overhead);
            } else {
                lack(
                    Restriction::Processes(max),
                    format!("{reason}; and RLIMIT_NPROC would count {}", nproc_scope(plan)),
                );
            }
            None
        }
    });
    let memory = config.max_memory.and_then(|max| match &cgroups.memory {
        Ok(place) => Some(place),
        Err(reason) => {
            rlimits.address_space = Some(max);
            lack(
                Restriction::Memory(max),
                format!(
                    "{reason}; each process is held to {} of address space instead (RLIMIT_AS)",
                    human_size(max)
                ),
            );
            None
        }
    });
    let cpu_time = config.max_cpu.and_then(|max| {
        rlimits.cpu_seconds = Some(max.as_secs_f64().ceil() as u64);
        match &cgroups.cpu_time {
            Ok(place) => Some(place),
            Err(reason) => {
                lack(
                    Restriction::Cpu(max),
                    format!("{reason}; each process is held to it on its own instead (RLIMIT_CPU)"),
                );
                None
            }
        }
    });
    plan.rlimits = rlimits;
    let mut limits = CommandLimits {
        cgroup: None,
        max_processes: config.max_processes,
        max_memory: config.max_memory,
        max_cpu: config.max_cpu,
        cpu_counted: cpu_time.is_some(),
    };
    if pids.is_some() || memory.is_some() || cpu_time.is_some() {
        let values = CgroupLimits {
            pids: config.max_processes.map(|max| u64::from(max) + overhead),
            memory: config.max_memory,
        };
        let (cgroup, procs) = CommandCgroup::create(pids, memory, cpu_time, values)
            .map_err(|error| format!("cannot set the command's resource limits: {error}"))?;
        plan.cgroup_procs = procs;
        limits.cgroup = Some(cgroup);
    }
    Ok(limits)
}

/// Whose processes `RLIMIT_NPROC` would count for this command.
fn nproc_scope(plan: &ChildPlan) -> &'static str {
    if rustix::process::getuid().is_root() {
        "nothing: root is exempt from it"
    } else if plan.namespace.is_none() {
        "every process of the agent's user, not the command's (no user namespace per command)"
    } else {
        "every process of the agent's user (the command has no user namespace of its own)"
    }
}

impl CommandLimits {
    /// Returns once the command has used its `max_cpu` of CPU time, all its processes
    /// together; never, when no cgroup counts its CPU time.
    pub(crate) async fn cpu_exhausted(&self) {
        let (Some(cgroup), Some(max), true) = (&self.cgroup, self.max_cpu, self.cpu_counted) else {
            return std::future::pending().await;
        };
        let cpus = std::thread::available_parallelism().map_or(1, usize::from);
        loop {
            let used = cgroup.cpu_used().unwrap_or_default();
            if used >= max {
                return;
            }
            // The earliest the command can get there is with every CPU busy.
            let soonest = (max - used) / u32::try_from(cpus).unwrap_or(u32::MAX);
            tokio::time::sleep(soonest.max(Duration::from_millis(10))).await;
        }
    }

    /// The limit the command reached, as the kernel reports it, for the call's error:
    /// `status` is how the command's own process ended, if it did.
    pub(crate) fn reached(&self, status: Option<ExitStatus>) -> Option<String> {
        let cgroup = self.cgroup.as_ref();
        let refused = cgroup.map_or(0, CommandCgroup::pids_refused);
        if let (Some(max), true) = (self.max_processes, refused > 0) {
            return Some(format!(
                "the command reached `max_processes` ({max}): the kernel refused to start a process or thread \
                 for it {refused} time(s) (fork failed with EAGAIN)"
            ));
        }
        let killed = cgroup.map_or(0, CommandCgroup::oom_kills);
        if let (Some(max), true) = (self.max_memory, killed > 0) {
            return Some(format!(
                "the command was killed: it exceeded `max_memory` ({}); the kernel's OOM killer ended {killed} of \
                 its processes",
                human_size(max)
            ));
        }
        let max = self.max_cpu?;
        let used = cgroup
            .and_then(CommandCgroup::cpu_used)
            .filter(|_| self.cpu_counted);
        let by_signal = status.and_then(|status| status.signal()) == Some(libc::SIGXCPU);
        (used.is_some_and(|used| used >= max) || by_signal).then(|| {
            format!(
                "the command was stopped: it used its `max_cpu` of {} CPU time",
                humantime::format_duration(max)
            )
        })
    }
}
