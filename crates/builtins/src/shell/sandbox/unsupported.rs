//! The sandbox where there is none: every system but Linux. Same interface as `linux/`,
//! and it refuses: `exec` runs commands here only when the configuration chose
//! `sandbox = "none"` itself, so that nobody believes a command confined that is not.

use std::path::Path;

use tokio::process::Command;

use super::{ExecSandbox, Prepared, ReadScope};
use crate::ExecConfig;

/// The refusal under the default `sandbox = "landlock"`: what is missing, and the setting
/// that runs commands anyway.
const NEEDS_LINUX: &str = "exec's sandbox needs Linux (Landlock, seccomp, PID namespaces); \
     set `sandbox = \"none\"` in `[exec]` to run commands without one. The command was not run";

/// What a process group does not stop, said in each output (or, with `require_sandbox`,
/// the reason for refusing).
const BACKGROUND: &str = "no processes outliving the call (`keep_background = false`) — needs a \
     PID namespace (Linux); only the command's process group is killed when the call ends";

/// Nothing for the child to apply: no kernel layer to enter.
#[derive(Debug, Default)]
pub(crate) struct ChildPlan;

impl ChildPlan {
    /// Leaves `command` as it is.
    pub(crate) fn install(self, _command: &mut Command) {}
}

/// Resource limits have no mechanism here (they are Linux cgroups and resource limits of
/// the sandboxed child): nothing is kept, nothing is reported reached.
#[derive(Debug, Default)]
pub(crate) struct CommandLimits;

impl CommandLimits {
    /// Never returns: nothing counts the command's CPU time here.
    pub(crate) async fn cpu_exhausted(&self) {
        std::future::pending().await
    }

    /// No limit is enforced here, so none is reached.
    pub(crate) fn reached(&self, _status: Option<std::process::ExitStatus>) -> Option<String> {
        None
    }
}

/// Refuses unless the sandbox is off; with it off, notes (or, with `require_sandbox`,
/// refuses) that background processes may outlive the call.
/// No network namespaces here: an allow-list's proxy is shared ([`super::ProxyRoute::Shared`]).
pub(crate) fn network_namespace(_config: &ExecConfig) -> bool {
    false
}

/// Without a sandbox nothing keeps a command to the allow-list's proxy: the command is
/// only given the proxy's address (`sandbox = "none"` says so).
pub(crate) fn prepare(
    config: &ExecConfig,
    _scope: &ReadScope,
    _writable: &[&Path],
    _proxy: Option<super::ProxyRoute>,
) -> Result<Prepared, String> {
    let prepared = |note: Option<String>| Prepared {
        plan: ChildPlan,
        note,
        hidden: None,
        limits: CommandLimits,
    };
    match (config.sandbox, config.keep_background, config.require_sandbox) {
        (ExecSandbox::Landlock, _, _) => Err(NEEDS_LINUX.to_owned()),
        (ExecSandbox::None, true, _) => Ok(prepared(None)),
        (ExecSandbox::None, false, false) => Ok(prepared(Some(format!(
            "sandbox: not enforced here: {BACKGROUND}"
        )))),
        (ExecSandbox::None, false, true) => Err(format!(
            "the exec sandbox is required, but this system cannot enforce: {BACKGROUND}. The \
             command was not run (`keep_background = true` accepts that)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(sandbox: ExecSandbox, keep_background: bool, require_sandbox: bool) -> ExecConfig {
        ExecConfig {
            sandbox,
            keep_background,
            require_sandbox,
            ..ExecConfig::default()
        }
    }

    #[test]
    fn the_default_sandbox_is_refused_with_the_setting_that_turns_it_off() {
        for (keep, require) in [(false, false), (true, false), (false, true), (true, true)] {
            let refused = prepare(
                &config(ExecSandbox::Landlock, keep, require),
                &ReadScope::default(),
                &[],
                None,
            )
            .unwrap_err();
            assert_eq!(refused, NEEDS_LINUX);
        }
        assert!(prepare(&ExecConfig::default(), &ReadScope::default(), &[], None).is_err());
    }

    #[test]
    fn without_a_sandbox_commands_run_and_background_ones_are_noted() {
        let noted = prepare(
            &config(ExecSandbox::None, false, false),
            &ReadScope::default(),
            &[],
            None,
        )
        .unwrap();
        assert!(noted.note.unwrap().contains("PID namespace"));
        let quiet = prepare(
            &config(ExecSandbox::None, true, false),
            &ReadScope::default(),
            &[],
            None,
        )
        .unwrap();
        assert!(quiet.note.is_none());
        let refused = prepare(
            &config(ExecSandbox::None, false, true),
            &ReadScope::default(),
            &[],
            None,
        )
        .unwrap_err();
        assert!(refused.contains("keep_background = true"), "{refused}");
        assert!(
            prepare(
                &config(ExecSandbox::None, true, true),
                &ReadScope::default(),
                &[],
                None
            )
            .is_ok()
        );
    }

    #[tokio::test]
    async fn exec_runs_commands_only_without_a_sandbox() {
        use crate::shell::{Exec, ExecArgs, exec};
        let temp = tempfile::tempdir().unwrap();
        let ws = crate::Workspace::open(temp.path()).unwrap();
        let args = || ExecArgs {
            command: "echo hello".into(),
            working_dir: None,
            timeout_secs: None,
            env: None,
            background: None,
        };
        let ctx = agent_tools_core::ToolContext::new("t");
        let default = Exec::new(ExecConfig::default()).unwrap();
        let refused = exec(&ws, &default, args(), &ctx).await.unwrap_err().to_string();
        assert!(refused.contains("sandbox = \"none\""), "{refused}");
        let unconfined = Exec::new(config(ExecSandbox::None, true, false)).unwrap();
        let ran = exec(&ws, &unconfined, args(), &ctx).await.unwrap();
        assert_eq!(ran, "exit code: 0\n--- stdout ---\nhello\n");
    }
}
