//! The sandbox on Linux: each kernel feature probed ([`features`]), the Landlock ruleset
//! ([`landlock`]) and the seccomp program ([`seccomp`]) built in the parent, and the plan
//! the child applies between `fork` and `exec` ([`ChildPlan`]). The parent module's table
//! says which layer enforces what.

mod cgroup;
mod features;
mod landlock;
mod limits;
mod readable;
mod seccomp;

use std::path::Path;
use std::time::Duration;

use self::features::{Features, LANDLOCK_SCOPES, LANDLOCK_TCP};
use self::landlock::LandlockRules;
use self::seccomp::{InternetSockets, SocketRules};
use super::hidden_paths::ReadScope;
use super::{ExecSandbox, Prepared, ProxyRoute};
pub(crate) use crate::shell::child::ChildPlan;
use crate::shell::egress::PROXY_PORT;
use crate::{ExecConfig, ExecNetwork};
pub(crate) use limits::CommandLimits;

/// A restriction the configuration asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Restriction {
    Writes,
    Reads,
    Signals,
    UnixSockets,
    Network,
    AllowList,
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
            Restriction::Reads => "no reads of what `read` and `deny_read` hide".to_owned(),
            Restriction::Signals => "no signals to processes outside the sandbox".to_owned(),
            Restriction::UnixSockets => "no Unix sockets (`unix_sockets = false`)".to_owned(),
            Restriction::Network => "no network (`network = false`)".to_owned(),
            Restriction::AllowList => "only the allow-list's hosts (`network = [...]`)".to_owned(),
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

/// Whether a command under an allow-list can have a network namespace of its own here.
pub(crate) fn network_namespace(_config: &ExecConfig) -> bool {
    Features::get().network_namespace.is_ok()
}

/// Builds the confinement of one call on this kernel: `scope` is what it may read,
/// `writable` where it may write, `proxy` how a command under an allow-list reaches the
/// proxy.
pub(crate) fn prepare(
    config: &ExecConfig,
    scope: &ReadScope,
    writable: &[&Path],
    proxy: Option<ProxyRoute>,
) -> Result<Prepared, String> {
    prepare_with(Features::get(), config, scope, writable, proxy)
}

fn prepare_with(
    features: &Features,
    config: &ExecConfig,
    scope: &ReadScope,
    writable: &[&Path],
    proxy: Option<ProxyRoute>,
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
    let proxy_port = proxy.map(|route| route_to_proxy(features, route, &mut plan));
    if config.sandbox == ExecSandbox::Landlock {
        confine(
            features,
            config,
            scope,
            writable,
            proxy_port,
            &mut plan,
            &mut missing,
        )?;
    }
    if let Some(ProxyPort::Shared(port)) = proxy_port {
        missing.push(Missing {
            restriction: Restriction::AllowList,
            reason: shared_proxy_gap(features, config, port),
        });
    }
    let hidden = plan
        .landlock
        .is_some()
        .then(|| scope.describe(config.read))
        .flatten();
    // Made last: the cgroups are removed again if the call is refused.
    let limits = limits::prepare(features, config, &mut plan, &mut missing)?;
    match (missing.is_empty(), config.require_sandbox) {
        (true, _) => Ok(Prepared {
            plan,
            note: None,
            hidden,
            limits,
        }),
        (false, true) => Err(refusal(&missing)),
        (false, false) => Ok(Prepared {
            plan,
            note: Some(note(&missing)),
            hidden,
            limits,
        }),
    }
}

/// Where a command finds the proxy: in its own network namespace, or on the agent's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProxyPort {
    /// [`PROXY_PORT`] in the command's network namespace.
    Namespace,
    /// This port on the agent's loopback.
    Shared(u16),
}

impl ProxyPort {
    fn port(self) -> u16 {
        match self {
            ProxyPort::Namespace => PROXY_PORT,
            ProxyPort::Shared(port) => port,
        }
    }
}

/// Adds the network namespace to the plan for a namespaced route (with
/// `keep_background = true`, without the PID namespace).
fn route_to_proxy(features: &Features, route: ProxyRoute, plan: &mut ChildPlan) -> ProxyPort {
    match (route, &features.pid_namespace) {
        (ProxyRoute::Namespace(link), Ok(setup)) => {
            let setup = match &plan.namespace {
                Some(with_pid) => with_pid.with_network(),
                None => setup.with_network().without_pid(),
            };
            plan.namespace = Some(setup);
            plan.proxy_link = Some(link);
            ProxyPort::Namespace
        }
        // The caller asks for a namespace only where the probe made one; without namespaces
        // the link is dropped and the child's listener never made.
        (ProxyRoute::Namespace(_), Err(_)) => ProxyPort::Shared(0),
        (ProxyRoute::Shared(port), _) => ProxyPort::Shared(port),
    }
}

/// What a command can still reach when the proxy is on the agent's loopback.
fn shared_proxy_gap(features: &Features, config: &ExecConfig, port: u16) -> String {
    let why = features
        .network_namespace
        .as_ref()
        .err()
        .map_or("no network namespace", String::as_str);
    let landlock = config.sandbox == ExecSandbox::Landlock && features.landlock_abi() >= LANDLOCK_TCP;
    let seccomp = config.sandbox == ExecSandbox::Landlock && features.seccomp.is_ok();
    let mut open = Vec::new();
    if landlock {
        open.push(format!(
            "a TCP connection to any host on port {port} (the proxy's)"
        ));
    } else {
        open.push("a TCP connection to any host (needs Landlock ABI 4, Linux 6.7)".to_owned());
    }
    if !seccomp {
        open.push("UDP (and so DNS) and raw sockets (needs seccomp filters)".to_owned());
    }
    format!("{why}; a command can still make {}", open.join(", and "))
}

/// Adds Landlock and seccomp to the plan, and what neither can enforce to `missing`.
fn confine(
    features: &Features,
    config: &ExecConfig,
    scope: &ReadScope,
    writable: &[&Path],
    proxy_port: Option<ProxyPort>,
    plan: &mut ChildPlan,
    missing: &mut Vec<Missing>,
) -> Result<(), String> {
    plan.drop_capabilities = true;
    let abi = features.landlock_abi();
    let mut lack = |restriction, reason: String| missing.push(Missing { restriction, reason });
    match &features.landlock {
        Ok(_) => {
            let rules = LandlockRules {
                refuse_tcp: config.network != ExecNetwork::All && abi >= LANDLOCK_TCP,
                connect_port: proxy_port.map(ProxyPort::port),
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
        network: match &config.network {
            ExecNetwork::None => InternetSockets::None,
            ExecNetwork::Allow(_) => InternetSockets::Tcp,
            _ => InternetSockets::All,
        },
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
            if config.network == ExecNetwork::None {
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
