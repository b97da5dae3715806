//! The exec sandbox: which kernel layer enforces which restriction, and what happens when
//! one cannot.
//!
//! | restriction | enforced by | needs |
//! |---|---|---|
//! | no writes outside the workspace and the call's `TMPDIR` | Landlock | Linux 5.13 (ABI 1) |
//! | no signals to processes outside | Landlock scopes, or the PID namespace | ABI 6 (Linux 6.12), or a PID namespace |
//! | no Unix sockets (named or abstract) | seccomp (and Landlock scopes for abstract ones) | seccomp filters (Linux 4.14) |
//! | no network (`network = false`): TCP, UDP, DNS, raw | seccomp (and Landlock for TCP from ABI 4) | seccomp filters |
//! | no typing into the terminal (TIOCSTI, TIOCLINUX) | seccomp | seccomp filters |
//! | nothing outlives the call | a PID namespace per command | root, or unprivileged user namespaces |
//! | no capabilities (a root agent's command keeps uid 0 but none of root's powers) | `capset` and the bounding set | any Linux |
//!
//! Each feature is probed on its own ([`features`]). A restriction that was asked for and
//! cannot be enforced fails the call when `require_sandbox` is set, and otherwise runs the
//! command with a note naming exactly what is off and why. The command guard is not part
//! of this: it is not a boundary.
//!
//! What the sandbox does not do: it does not hide files from reading (the command can read
//! what the agent's user can; keep secrets out of its reach), limit CPU, memory or the
//! number of processes, or stop a local daemon reachable over an allowed socket from
//! acting for the command (with `unix_sockets = true`, docker.sock is root).

mod features;
mod landlock;
mod seccomp;

use std::path::Path;

use self::features::{Features, LANDLOCK_SCOPES, LANDLOCK_TCP};
use self::landlock::LandlockRules;
use self::seccomp::SocketRules;
use super::ExecConfig;
use super::child::ChildPlan;

/// How `exec` confines commands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExecSandbox {
    /// No confinement: the command can do whatever the agent's user can. (Background
    /// processes are still ended with the call unless `keep_background` is set.)
    None,
    /// The kernel sandbox: Landlock for files and signals, a seccomp filter for sockets and
    /// terminal input (see the table in this module's documentation).
    #[default]
    Landlock,
}

/// A restriction the configuration asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Restriction {
    Writes,
    Signals,
    UnixSockets,
    Network,
    TerminalInput,
    Background,
}

impl Restriction {
    fn describe(self) -> &'static str {
        match self {
            Restriction::Writes => "no writes outside the workspace",
            Restriction::Signals => "no signals to processes outside the sandbox",
            Restriction::UnixSockets => "no Unix sockets (`unix_sockets = false`)",
            Restriction::Network => "no network (`network = false`)",
            Restriction::TerminalInput => "no typing into the terminal (TIOCSTI)",
            Restriction::Background => "no processes outliving the call (`keep_background = false`)",
        }
    }
}

/// A restriction that cannot be enforced here, and why.
#[derive(Debug)]
struct Missing {
    restriction: Restriction,
    reason: String,
}

/// What the child will apply, and the note for the output when something is off.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The child's confinement.
    pub(crate) plan: ChildPlan,
    /// Which requested restrictions are not enforced, when `require_sandbox` is off.
    pub(crate) note: Option<String>,
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
    match (missing.is_empty(), config.require_sandbox) {
        (true, _) => Ok(Prepared { plan, note: None }),
        (false, true) => Err(refusal(&missing)),
        (false, false) => Ok(Prepared {
            plan,
            note: Some(note(&missing)),
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
