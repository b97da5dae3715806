//! The sandbox on Linux: each kernel feature probed ([`features`]), the Landlock ruleset
//! ([`landlock`]) and the seccomp program ([`seccomp`]) built in the parent, and the plan
//! the child applies between `fork` and `exec` ([`ChildPlan`]). The parent module's table
//! says which layer enforces what.

mod cgroup;
mod features;
mod landlock;
mod limits;
mod seccomp;

use std::path::Path;
use std::time::Duration;

use self::features::{Features, LANDLOCK_SCOPES, LANDLOCK_TCP};
use self::landlock::LandlockRules;
use self::seccomp::SocketRules;
use super::{ExecSandbox, Prepared};
use crate::ExecConfig;
pub(crate) use crate::shell::child::ChildPlan;
pub(crate) use limits::CommandLimits;

/// A restriction the configuration asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Restriction {
    Writes,
    Signals,
    UnixSockets,
    Network,
    TerminalInput,
    Background,
    Processes(u32),
    Memory(u64),
    Cpu(Duration),
}

impl Restriction {
    fn describe(self) -> String {
        match self {
            Restriction::Writes => "no writes outside the workspace".to_owned(),
            Restriction::Signals => "no signals to processes outside the sandbox".to_owned(),
            Restriction::UnixSockets => "no Unix sockets (`unix_sockets = false`)".to_owned(),
            Restriction::Network => "no network (`network = false`)".to_owned(),
            Restriction::TerminalInput => "no typing into the terminal (TIOCSTI)".to_owned(),
            Restriction::Background => {
                "no processes outliving the call (`keep_background = false`)".to_owned()
            }
            Restriction::Processes(max) => format!("at most {max} processes per command (`max_processes`)"),
            Restriction::Memory(max) => format!(
                "at most {} of memory per command (`max_memory`)",
                crate::text_format::human_size(max)
            ),
            Restriction::Cpu(max) => format!(
                "at most {} of CPU time per command (`max_cpu`)",
                humantime::format_duration(max)
            ),
        }
    }
}

/// A restriction that cannot be enforced here, and why.
#[derive(Debug)]
struct Missing {
    restriction: Restriction,
    reason: String,
}

/// Builds the confinement of one call on this kernel.
pub(crate) fn prepare(config: &ExecConfig, writable: &[&Path]) -> Result<Prepared, String> {
    prepare_with(Features::get(), config, writable)
}

fn prepare_with(features: &Features, config: &ExecConfig, writable: &[&Path]) -> Result<Prepared, String> {
    let mut plan = ChildPlan::default();
    let mut missing = Vec::new();
    if !config.keep_background {
        match &features.pid_namespace {
            Ok(setup) => plan.namespace = Some(setup.clone()),
            Err(reason) => missing.push(Missing {
                restriction: Restriction::Background,
                reason: reason.clone(),
            }),
        }
    }
    if config.sandbox == ExecSandbox::Landlock {
        confine(features, config, writable, &mut plan, &mut missing)?;
    }
    // Made last: the cgroups are removed again if the call is refused.
    let limits = limits::prepare(features, config, &mut plan, &mut missing)?;
    match (missing.is_empty(), config.require_sandbox) {
        (true, _) => Ok(Prepared {
            plan,
            note: None,
            limits,
        }),
        (false, true) => Err(refusal(&missing)),
        (false, false) => Ok(Prepared {
            plan,
            note: Some(note(&missing)),
            limits,
        }),
    }
}

/// Adds Landlock and seccomp to the plan, and what neither can enforce to `missing`.
fn confine(
    features: &Features,
    config: &ExecConfig,
    writable: &[&Path],
    plan: &mut ChildPlan,
    missing: &mut Vec<Missing>,
) -> Result<(), String> {
    plan.drop_capabilities = true;
    let abi = features.landlock_abi();
    let mut lack = |restriction, reason: String| missing.push(Missing { restriction, reason });
    match &features.landlock {
        Ok(_) => {
            let rules = LandlockRules {
                refuse_tcp: !config.network && abi >= LANDLOCK_TCP,
                scope_signals: abi >= LANDLOCK_SCOPES,
                scope_abstract_sockets: !config.unix_sockets && abi >= LANDLOCK_SCOPES,
            };
            let ruleset = landlock::ruleset(rules, writable)
                .map_err(|error| format!("cannot prepare the exec sandbox (Landlock): {error}"))?;
            plan.landlock = Some(ruleset);
        }
        Err(reason) => lack(Restriction::Writes, reason.clone()),
    }
    if abi < LANDLOCK_SCOPES && plan.namespace.is_none() {
        let namespace = match &features.pid_namespace {
            Err(reason) => reason.clone(),
            Ok(_) => "not used, since `keep_background = true`".to_owned(),
        };
        lack(
            Restriction::Signals,
            format!(
                "needs Landlock ABI {LANDLOCK_SCOPES} (Linux 6.12), this kernel has {}, or a PID namespace ({namespace})",
                if abi == 0 {
                    "none".to_owned()
                } else {
                    format!("ABI {abi}")
                }
            ),
        );
    }
    let sockets = SocketRules {
        network: config.network,
        unix_sockets: config.unix_sockets,
    };
    match &features.seccomp {
        Ok(()) => {
            let program = seccomp::program(sockets)
                .map_err(|error| format!("cannot prepare the exec sandbox (seccomp): {error}"))?;
            plan.seccomp = Some(program);
        }
        Err(reason) => {
            let needs = |what: &str| format!("{what} needs seccomp filters: {reason}");
            if !config.unix_sockets {
                lack(Restriction::UnixSockets, needs("refusing named Unix sockets"));
            }
            if !config.network {
                let tcp = if abi >= LANDLOCK_TCP {
                    " (TCP is refused by Landlock)"
                } else {
                    ""
                };
                lack(
                    Restriction::Network,
                    needs(&format!("refusing UDP and raw sockets{tcp}")),
                );
            }
            lack(Restriction::TerminalInput, needs("refusing terminal ioctls"));
        }
    }
    Ok(())
}

fn listed(missing: &[Missing]) -> String {
    missing
        .iter()
        .map(|item| format!("{} — {}", item.restriction.describe(), item.reason))
        .collect::<Vec<_>>()
        .join("; ")
}

fn refusal(missing: &[Missing]) -> String {
    format!(
        "the exec sandbox is required, but this system cannot enforce: {}. The command was not run \
         (`require_sandbox = false` runs it with these restrictions off, and says so)",
        listed(missing)
    )
}

fn note(missing: &[Missing]) -> String {
    format!("sandbox: not enforced here: {}", listed(missing))
}

#[cfg(test)]
mod tests;
