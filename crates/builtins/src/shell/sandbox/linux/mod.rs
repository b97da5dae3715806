//! The sandbox on Linux: each kernel feature probed ([`features`]), the Landlock ruleset
//! ([`landlock`]) and the seccomp program ([`seccomp`]) built in the parent, and the plan
//! the child applies between `fork` and `exec` ([`ChildPlan`]). The parent module's table
//! says which layer enforces what.

mod features;
mod landlock;
mod readable;
mod seccomp;

use std::path::Path;

use self::features::{Features, LANDLOCK_SCOPES, LANDLOCK_TCP};
use self::landlock::LandlockRules;
use self::seccomp::SocketRules;
use super::hidden_paths::ReadScope;
use super::{ExecSandbox, Prepared};
use crate::ExecConfig;
pub(crate) use crate::shell::child::ChildPlan;

/// A restriction the configuration asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Restriction {
    Writes,
    Reads,
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
            Restriction::Reads => "no reads of what `read` and `deny_read` hide",
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

/// Builds the confinement of one call on this kernel.
pub(crate) fn prepare(
    config: &ExecConfig,
    scope: &ReadScope,
    writable: &[&Path],
) -> Result<Prepared, String> {
    prepare_with(Features::get(), config, scope, writable)
}

fn prepare_with(
    features: &Features,
    config: &ExecConfig,
    scope: &ReadScope,
    writable: &[&Path],
) -> Result<Prepared, String> {
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
        confine(features, config, scope, writable, &mut plan, &mut missing)?;
    }
    let hidden = plan
        .landlock
        .is_some()
        .then(|| scope.describe(config.read))
        .flatten();
    match (missing.is_empty(), config.require_sandbox) {
        (true, _) => Ok(Prepared {
            plan,
            note: None,
            hidden,
        }),
        (false, true) => Err(refusal(&missing)),
        (false, false) => Ok(Prepared {
            plan,
            note: Some(note(&missing)),
            hidden,
        }),
    }
}

/// Adds Landlock and seccomp to the plan, and what neither can enforce to `missing`.
fn confine(
    features: &Features,
    config: &ExecConfig,
    scope: &ReadScope,
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
            let ruleset = landlock::ruleset(rules, writable, scope)
                .map_err(|error| format!("cannot prepare the exec sandbox (Landlock): {error}"))?;
            plan.landlock = Some(ruleset);
        }
        Err(reason) => {
            lack(Restriction::Writes, reason.clone());
            if scope.readable.is_some() || !scope.hidden.is_empty() {
                lack(Restriction::Reads, reason.clone());
            }
        }
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
