//! The exec sandbox: Landlock makes the kernel refuse writes outside the workspace.
//!
//! A command may read the whole file system (compilers, interpreters and libraries live
//! there) but write only in the workspace, in a private temporary directory made for the
//! call (exported as `TMPDIR`), and to `/dev/null`-like devices; optionally it may not
//! open TCP connections. The rules are built in our process and applied in the child
//! between `fork` and `exec`, so they bind the command and everything it starts, and
//! nothing can lift them.
//!
//! This is the boundary; the command guard is not. Where the kernel has no Landlock,
//! the call fails when the sandbox is required and otherwise runs unconfined with a note.

use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, path_beneath_rules,
};

/// How `exec` confines commands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExecSandbox {
    /// No confinement: the command can do whatever the agent's user can.
    None,
    /// Landlock (Linux 5.13+): writes only inside the workspace and the call's temporary
    /// directory.
    #[default]
    Landlock,
}

/// The newest Landlock ABI this code knows; older kernels get what they support.
const ABI_VERSION: ABI = ABI::V5;

/// Devices a command may write to wherever it runs.
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// A sandbox ready to apply in the child, or the reason there is none.
pub(crate) enum Confinement {
    /// Apply this ruleset in the child.
    Landlock(RulesetCreated),
    /// Run unconfined; the note says why, when the sandbox was wanted.
    Unconfined(Option<String>),
}

/// Builds the confinement for one call.
pub(crate) fn prepare(
    sandbox: ExecSandbox,
    required: bool,
    network: bool,
    writable: &[&Path],
) -> Result<Confinement, String> {
    if sandbox == ExecSandbox::None {
        return Ok(Confinement::Unconfined(None));
    }
    if let Err(error) = probe(network) {
        if required {
            return Err(format!(
                "the exec sandbox (Landlock) is required, but this kernel cannot enforce it ({error}); the command was not run"
            ));
        }
        let note = "the sandbox (Landlock) is not available on this kernel; the command ran unconfined";
        return Ok(Confinement::Unconfined(Some(note.to_owned())));
    }
    ruleset(network, writable)
        .map(Confinement::Landlock)
        .map_err(|error| format!("cannot prepare the exec sandbox: {error}"))
}

/// Whether the kernel enforces every rule we ask for.
fn probe(network: bool) -> Result<(), landlock::RulesetError> {
    let mut ruleset = landlock::Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V1))?;
    if !network {
        ruleset = ruleset.handle_access(AccessNet::from_all(ABI::V4))?;
    }
    ruleset.create().map(drop)
}

fn ruleset(network: bool, writable: &[&Path]) -> Result<RulesetCreated, landlock::RulesetError> {
    let mut ruleset = landlock::Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(ABI_VERSION))?;
    if !network {
        // No rule grants TCP bind or connect, so both are refused.
        ruleset = ruleset.handle_access(AccessNet::from_all(ABI_VERSION))?;
    }
    let devices = WRITABLE_DEVICES
        .iter()
        .map(Path::new)
        .filter(|device| device.exists());
    ruleset
        .create()?
        .no_new_privs(true)
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(ABI_VERSION)))?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(ABI_VERSION)))?
        .add_rules(path_beneath_rules(devices, AccessFs::from_file(ABI_VERSION)))
}

/// Applies the ruleset to the calling (child) process; run between `fork` and `exec`.
pub(crate) fn apply(ruleset: RulesetCreated) -> std::io::Result<()> {
    match ruleset.restrict_self() {
        Ok(status) if status.ruleset == landlock::RulesetStatus::NotEnforced => {
            Err(std::io::Error::other("Landlock did not enforce the exec sandbox"))
        }
        Ok(_) => Ok(()),
        Err(error) => Err(std::io::Error::other(error)),
    }
}
