//! The planner against kernels that lack one feature or another. (What each layer stops is
//! attacked for real in `tests/hostile_exec.rs`; here the question is which restrictions a
//! call reports missing, and that one missing feature never reads as all of them.)

use super::cgroup::Cgroups;
use super::*;
use crate::shell::child::NamespaceSetup;

fn kernel(landlock: Result<i32, &str>, seccomp: bool, namespace: bool) -> Features {
    Features {
        landlock: landlock.map_err(str::to_owned),
        seccomp: if seccomp {
            Ok(())
        } else {
            Err("no seccomp here".to_owned())
        },
        pid_namespace: if namespace {
            Ok(NamespaceSetup::privileged())
        } else {
            Err("no PID namespace here".to_owned())
        },
        network_namespace: if namespace {
            Ok(())
        } else {
            Err("no network namespace here".to_owned())
        },
        cgroups: Cgroups::none("no cgroups here"),
    }
}

fn plan(features: &Features, config: &ExecConfig) -> Result<Prepared, String> {
    let temp = tempfile::tempdir().unwrap();
    prepare_with(features, config, &ReadScope::default(), &[temp.path()], None)
}

/// Required, with no resource limit (their planning is tested below).
fn required() -> ExecConfig {
    ExecConfig {
        require_sandbox: true,
        ..unlimited()
    }
}

fn unlimited() -> ExecConfig {
    ExecConfig {
        max_processes: None,
        ..ExecConfig::default()
    }
}

#[test]
fn a_full_kernel_enforces_everything_without_a_note() {
    let prepared = plan(&kernel(Ok(7), true, true), &required()).unwrap();
    assert!(prepared.note.is_none());
    assert!(prepared.plan.landlock.is_some());
    assert!(prepared.plan.seccomp.is_some());
    assert!(prepared.plan.namespace.is_some());
}

#[test]
fn a_kernel_without_scopes_names_signals_alone_and_the_abi_it_has() {
    let config = ExecConfig {
        keep_background: true,
        ..required()
    };
    let error = plan(&kernel(Ok(5), true, true), &config).unwrap_err();
    assert!(error.contains("no signals to processes outside"), "{error}");
    assert!(
        error.contains("Landlock ABI 6") && error.contains("this kernel has ABI 5"),
        "{error}"
    );
    for other in ["writes", "Unix sockets", "network", "terminal", "outliving"] {
        assert!(!error.contains(other), "{other} in {error}");
    }
}

#[test]
fn a_pid_namespace_stands_in_for_signal_scopes() {
    let prepared = plan(&kernel(Ok(5), true, true), &required()).unwrap();
    assert!(prepared.note.is_none());
}

#[test]
fn without_seccomp_the_socket_and_terminal_rules_are_missing_and_writes_are_not() {
    let config = ExecConfig {
        network: crate::ExecNetwork::None,
        ..required()
    };
    let error = plan(&kernel(Ok(7), false, true), &config).unwrap_err();
    for expected in [
        "Unix sockets",
        "no network",
        "(TCP is refused by Landlock)",
        "terminal",
        "no seccomp here",
    ] {
        assert!(error.contains(expected), "{expected} not in {error}");
    }
    assert!(!error.contains("writes"), "{error}");
    assert!(error.contains("The command was not run"), "{error}");
}

#[test]
fn allowed_sockets_are_not_reported_missing() {
    let config = ExecConfig {
        unix_sockets: true,
        ..unlimited()
    };
    let note = plan(&kernel(Ok(7), false, true), &config).unwrap().note.unwrap();
    assert!(
        !note.contains("Unix sockets") && !note.contains("network"),
        "{note}"
    );
    assert!(note.contains("terminal"), "{note}");
}

#[test]
fn without_landlock_only_writes_are_missing_and_the_reason_is_given() {
    let features = kernel(Err("Landlock is built in but not enabled"), true, true);
    let prepared = plan(&features, &unlimited()).unwrap();
    let note = prepared.note.unwrap();
    assert!(note.starts_with("sandbox: not enforced here: no writes outside the workspace — Landlock is built in but not enabled"), "{note}");
    assert!(!note.contains("signals"), "the namespace covers signals: {note}");
    assert!(prepared.plan.landlock.is_none() && prepared.plan.seccomp.is_some());
}

#[test]
fn without_a_namespace_background_processes_are_reported_even_unsandboxed() {
    let config = ExecConfig {
        sandbox: ExecSandbox::None,
        ..unlimited()
    };
    let note = plan(&kernel(Ok(7), true, false), &config).unwrap().note.unwrap();
    assert_eq!(
        note,
        "sandbox: not enforced here: no processes outliving the call (`keep_background = false`) — no PID namespace here"
    );
    let kept = ExecConfig {
        keep_background: true,
        ..config
    };
    assert!(plan(&kernel(Ok(7), true, false), &kept).unwrap().note.is_none());
}

#[test]
fn without_cgroups_memory_and_cpu_fall_back_to_limits_per_process_and_say_so() {
    let config = ExecConfig {
        max_memory: Some(64 << 20),
        max_cpu: Some(std::time::Duration::from_millis(1500)),
        ..unlimited()
    };
    let prepared = plan(&kernel(Ok(7), true, true), &config).unwrap();
    let note = prepared.note.unwrap();
    assert!(
        note.contains("at most 64.0 MB of memory per command (`max_memory`) — no cgroups here; each process is held to 64.0 MB of address space instead (RLIMIT_AS)"),
        "{note}"
    );
    assert!(
        note.contains("at most 1s 500ms of CPU time per command (`max_cpu`) — no cgroups here; each process"),
        "{note}"
    );
    let rlimits = prepared.plan.rlimits;
    assert_eq!(
        (rlimits.address_space, rlimits.cpu_seconds),
        (Some(64 << 20), Some(2))
    );
    assert!(prepared.plan.cgroup_procs.is_empty());
    let refused = plan(
        &kernel(Ok(7), true, true),
        &ExecConfig {
            require_sandbox: true,
            ..config
        },
    )
    .unwrap_err();
    assert!(
        refused.contains("`max_memory`") && refused.contains("The command was not run"),
        "{refused}"
    );
}

#[test]
fn without_a_pids_cgroup_the_process_limit_needs_a_user_namespace_and_no_root() {
    let config = ExecConfig {
        max_processes: Some(50),
        ..required()
    };
    let features = Features {
        pid_namespace: Ok(NamespaceSetup::unprivileged()),
        ..kernel(Ok(7), true, true)
    };
    let planned = plan(&features, &config);
    if rustix::process::getuid().is_root() {
        let refused = planned.unwrap_err();
        assert!(
            refused.contains("at most 50 processes per command (`max_processes`) — no cgroups here; and RLIMIT_NPROC would count nothing: root is exempt from it"),
            "{refused}"
        );
    } else {
        // Counted in the command's own user namespace, with the two that hold it.
        assert_eq!(planned.unwrap().plan.rlimits.processes, Some(52));
    }
}
